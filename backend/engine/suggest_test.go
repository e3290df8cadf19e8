package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// isSuggest tells the suggestions call from the agents'.
func isSuggest(req openai.ChatCompletionRequest) bool {
	return llmtest.SystemContains(req, SuggestRole)
}

// suggestionsOf returns the data of the stored suggestions events of message msg.
func suggestionsOf(t *testing.T, db *store.DB, conv, msg string) []events.DataSuggestions {
	t.Helper()
	evs, err := db.ListEvents(context.Background(), store.EventQuery{ConversationID: conv, MessageID: msg})
	if err != nil {
		t.Fatal(err)
	}
	var out []events.DataSuggestions
	for _, ev := range evs {
		if ev.Type == events.Suggestions {
			var d events.DataSuggestions
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
	}
	return out
}

// withSuggest turns the suggestions call on, with a cheaper model for the sub-agents.
func withSuggest(d *Deps) {
	d.Suggest = true
	d.SubAgents = &AgentModel{Name: "cheap"}
}

// TestSuggestTitleAndFollowUps: after the first complete run the sub-agents' model (a
// named cheaper model, max_tokens capped) writes the title, which replaces the one made
// from the question, and follow-up questions, stored as a suggestions event after the
// terminal event. The second run asks for questions only and leaves the title alone.
func TestSuggestTitleAndFollowUps(t *testing.T) {
	var suggestReqs []openai.ChatCompletionRequest
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isSuggest(req) {
			suggestReqs = append(suggestReqs, req) // calls come one at a time: runs of one conversation
			return llmtest.Reply{Content: "```json\n{\"title\": \"“月球与地球的距离。”\", \"questions\": [\"月球为什么在远离地球？\", \" 如何测量月地距离？ \", \"月球为什么在远离地球？\", \"\", \"潮汐如何影响距离？\", \"第四个问题？\"]}\n```"}
		}
		return llmtest.Reply{Content: "平均距离约为 384,400 公里。"}
	}, withSuggest)
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "月球离地球有多远？请详细说明测量方法。"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	conv, err := db.GetConversation(ctx, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Title != "月球与地球的距离" || conv.TitleSource != store.TitleFromModel {
		t.Errorf("title = %q (%s), want the model's, cleaned: 月球与地球的距离 (model)", conv.Title, conv.TitleSource)
	}
	want := []events.DataSuggestions{{Title: "月球与地球的距离", Questions: []string{"月球为什么在远离地球？", "如何测量月地距离？", "潮汐如何影响距离？"}}}
	if got := suggestionsOf(t, db, res.ConversationID, res.MessageID); !reflect.DeepEqual(got, want) {
		t.Errorf("suggestions events = %+v, want %+v", got, want)
	}
	evs, _ := db.ListEvents(ctx, store.EventQuery{ConversationID: res.ConversationID, MessageID: res.MessageID})
	if last := evs[len(evs)-1]; last.Type != events.Suggestions || evs[len(evs)-2].Type != events.Complete {
		t.Errorf("the suggestions event must follow the terminal event: last two %s, %s", evs[len(evs)-2].Type, last.Type)
	}
	if len(suggestReqs) != 1 {
		t.Fatalf("suggestions calls = %d, want 1", len(suggestReqs))
	}
	r := suggestReqs[0]
	if r.Model != "cheap" || r.MaxTokens != suggestMaxTokens || len(r.Tools) != 0 {
		t.Errorf("suggestions call: model %q max_tokens %d tools %d; want the sub-agents' model, %d, none", r.Model, r.MaxTokens, len(r.Tools), suggestMaxTokens)
	}
	if !strings.Contains(r.Messages[0].Content, `"title"`) || !strings.Contains(r.Messages[1].Content, "384,400") {
		t.Errorf("the first call must ask for a title and see the answer: %+v", r.Messages)
	}

	res2, err := e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "为什么？"})
	if err != nil || res2.Status != events.Complete {
		t.Fatalf("second run: %v %+v", err, res2)
	}
	if len(suggestReqs) != 2 || strings.Contains(suggestReqs[1].Messages[0].Content, `"title"`) {
		t.Errorf("the second run's call must not ask for a title (%d calls)", len(suggestReqs))
	}
	if got := suggestionsOf(t, db, res.ConversationID, res2.MessageID); len(got) != 1 || got[0].Title != "" || len(got[0].Questions) != 3 {
		t.Errorf("second run's suggestions = %+v, want 3 questions, no title", got)
	}
}

// TestSuggestRenameWins: the user renames the conversation while the title call is under
// way (the race of a slow model), or before it starts; the rename stays, the title call
// is not asked for a title when the rename came first, and the questions still arrive.
func TestSuggestRenameWins(t *testing.T) {
	for _, during := range []bool{true, false} {
		name := "rename before the call"
		if during {
			name = "rename during the call"
		}
		t.Run(name, func(t *testing.T) {
			arrived, renamed := make(chan string, 1), make(chan struct{})
			var db *store.DB
			var askedTitle bool
			e, db0, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isSuggest(req) {
					askedTitle = strings.Contains(req.Messages[0].Content, `"title"`)
					if during {
						arrived <- ""
						select {
						case <-renamed:
						case <-time.After(10 * time.Second):
						}
					}
					return llmtest.Reply{Content: `{"title": "Model title", "questions": ["Why?", "How?"]}`}
				}
				if !during { // the user renames while the lead writes its answer
					convs, _ := db.ListConversations(context.Background(), 0, 0)
					_ = db.RenameConversation(context.Background(), convs[0].ID, "My title")
				}
				return llmtest.Reply{Content: "The answer."}
			}, withSuggest)
			db = db0
			ctx := context.Background()
			r, err := e.Start(ctx, Request{Content: "What is the question?"})
			if err != nil {
				t.Fatal(err)
			}
			if during {
				select {
				case <-arrived:
				case <-time.After(10 * time.Second):
					t.Fatal("the title call never came")
				}
				if err := db.RenameConversation(ctx, r.ConversationID, "My title"); err != nil {
					t.Fatal(err)
				}
				close(renamed)
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			res, err := r.Wait(wctx)
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			conv, _ := db.GetConversation(ctx, r.ConversationID)
			if conv.Title != "My title" || conv.TitleSource != store.TitleFromUser {
				t.Errorf("title = %q (%s), want the user's", conv.Title, conv.TitleSource)
			}
			if askedTitle != during {
				t.Errorf("title asked = %v; want a title asked only when the rename came during the call", askedTitle)
			}
			want := []events.DataSuggestions{{Questions: []string{"Why?", "How?"}}}
			if got := suggestionsOf(t, db, r.ConversationID, r.MessageID); !reflect.DeepEqual(got, want) {
				t.Errorf("suggestions = %+v, want %+v (no title)", got, want)
			}
		})
	}
}

// TestSuggestFailuresAreSilent: a call the endpoint refuses (after the client's retries),
// a reply without JSON and one with no usable question leave the run complete, the title
// made from the question, and no suggestions event; a run that failed asks nothing.
func TestSuggestFailuresAreSilent(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"endpoint error", llmtest.Reply{Status: http.StatusInternalServerError, ErrorMessage: "overloaded"}},
		{"no JSON", llmtest.Reply{Content: "Here are some questions: why? how?"}},
		{"broken JSON", llmtest.Reply{Content: `{"title": "T", "questions": ["a",`}},
		{"nothing usable", llmtest.Reply{Content: `{"title": "  ", "questions": ["", "  "]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, db, _, srv := newWireEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
				if isSuggest(req) {
					return tt.reply
				}
				return llmtest.Reply{Content: "The answer."}
			}, withSuggest)
			res, err := e.Ask(context.Background(), Request{Content: "How far is the Moon?"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run: %v %+v", err, res)
			}
			conv, _ := db.GetConversation(context.Background(), res.ConversationID)
			if conv.Title != "How far is the Moon?" || conv.TitleSource != store.TitleFromQuestion {
				t.Errorf("title = %q (%s), want the question's", conv.Title, conv.TitleSource)
			}
			if got := suggestionsOf(t, db, res.ConversationID, res.MessageID); len(got) != 0 {
				t.Errorf("suggestions = %+v, want none", got)
			}
			if srv.Calls() < 2 {
				t.Errorf("calls = %d: the suggestions call was never made", srv.Calls())
			}
		})
	}

	t.Run("failed run", func(t *testing.T) {
		e, db, _, srv := newWireEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if isSuggest(req) {
				return llmtest.Reply{Content: `{"questions": ["Why?"]}`}
			}
			return llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "bad model"}
		}, withSuggest)
		res, _ := e.Ask(context.Background(), Request{Content: "How far is the Moon?"})
		if res.Status != events.Error {
			t.Fatalf("status %s, want error", res.Status)
		}
		for _, r := range srv.Requests() {
			if isSuggest(r) {
				t.Error("a failed run asked for suggestions")
			}
		}
		if got := suggestionsOf(t, db, res.ConversationID, res.MessageID); len(got) != 0 {
			t.Errorf("suggestions = %+v, want none", got)
		}
	})
}

// A message queued while the lead gives its final answer skips the run's suggestions call
// (they would be stale), even when it is asked for before the call starts: the caller
// waiting for Done is not held up to SuggestTimeout.
func TestSkipSuggestionsBeforeTheCall(t *testing.T) {
	answering, release := make(chan struct{}, 1), make(chan struct{})
	var suggested atomic.Bool
	e, db, _, _ := newEngineWith(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isSuggest(req) {
			suggested.Store(true)
			return llmtest.Reply{Content: `{"questions": ["Why?", "How?"]}`}
		}
		answering <- struct{}{}
		<-release
		return llmtest.Reply{Content: "The answer."}
	}, withSuggest)
	ctx := context.Background()
	r, err := e.Start(ctx, Request{Content: "What is the question?"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-answering:
	case <-time.After(10 * time.Second):
		t.Fatal("the lead was never asked")
	}
	r.SkipSuggestions() // before the run completes, so before its suggestions call starts
	close(release)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if res, err := r.Wait(wctx); err != nil || res.Status != events.Complete {
		t.Fatalf("run: %v %+v", err, res)
	}
	if suggested.Load() {
		t.Error("the suggestions call ran after SkipSuggestions")
	}
	if got := suggestionsOf(t, db, r.ConversationID, r.MessageID); len(got) != 0 {
		t.Errorf("suggestions = %+v, want none", got)
	}
}
