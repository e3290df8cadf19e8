package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// TestCutFinalAnswer: a final answer the model did not finish (finish_reason "length" or
// "content_filter") never ends a run as a silent complete: the answer ends with a note
// saying it is incomplete, and the result and the stored terminal event record why.
func TestCutFinalAnswer(t *testing.T) {
	for _, tc := range []struct {
		finish, wantCut, wantNote string
	}{
		{"length", "length", "output token limit"},
		{"content_filter", "content_filter", "content filter"},
		{"stop", "", ""},
	} {
		t.Run(tc.finish, func(t *testing.T) {
			e, db, _, _ := newEngine(t, func(openai.ChatCompletionRequest, int) llmtest.Reply {
				return llmtest.Reply{Content: "The answer starts", FinishReason: tc.finish}
			})
			res, err := e.Ask(context.Background(), Request{Content: "question"})
			if err != nil || res.Status != events.Complete {
				t.Fatalf("run = %+v, %v", res, err)
			}
			if !strings.HasPrefix(res.Response, "The answer starts") {
				t.Fatalf("response %q lost the answer", res.Response)
			}
			hasNote := strings.Contains(res.Response, "This answer is incomplete")
			if hasNote != (tc.wantNote != "") || !strings.Contains(res.Response, tc.wantNote) {
				t.Errorf("response %q, want note about %q", res.Response, tc.wantNote)
			}
			typ, data := lastStored(t, db, res.ConversationID)
			if res.Cut != tc.wantCut || typ != events.Complete || data.Cut != tc.wantCut || data.Response != res.Response {
				t.Errorf("result cut %q, terminal %s cut %q; want %q", res.Cut, typ, data.Cut, tc.wantCut)
			}
		})
	}
}

// TestCutSubagentAnswerFlaggedToLead: a sub-agent's answer cut at the token limit reaches
// the lead, in its call_subagent result, with the note that it is incomplete; the lead's
// own finished answer is not marked cut.
func TestCutSubagentAnswerFlaggedToLead(t *testing.T) {
	res, toolResult := subagentResult(t, llmtest.Reply{Content: "half a summary", FinishReason: "length"})
	if !strings.Contains(toolResult, "half a summary") || !strings.Contains(toolResult, "This answer is incomplete: the model stopped at its output token limit") {
		t.Errorf("the lead's call_subagent result %q does not flag the cut answer", toolResult)
	}
	if res.Cut != "" {
		t.Errorf("result cut %q, want none: the lead finished", res.Cut)
	}
}

// TestEmptyFinalAnswer: a lead whose final answer is empty (nothing, white space, or only
// reasoning) fails the run with ErrEmptyAnswer and the model_unavailable kind
// (llm.ErrEmptyAnswer), instead of completing with nothing; a sub-agent's empty answer is
// reported to the lead instead.
func TestEmptyFinalAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply llmtest.Reply
	}{
		{"nothing", llmtest.Reply{}},
		{"white space", llmtest.Reply{Content: " \n\t"}},
		{"only reasoning, cut", llmtest.Reply{Reasoning: "thinking and thinking", FinishReason: "length"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, db, _, _ := newEngine(t, func(openai.ChatCompletionRequest, int) llmtest.Reply { return tc.reply })
			res, err := e.Ask(context.Background(), Request{Content: "question"})
			if err != nil || res.Status != events.Error {
				t.Fatalf("run = %+v, %v; want an error ending", res, err)
			}
			if !errors.Is(res.Err, ErrEmptyAnswer) || !errors.Is(res.Err, llm.ErrEmptyAnswer) {
				t.Errorf("err = %v, want ErrEmptyAnswer", res.Err)
			}
			if tc.reply.FinishReason != "" && !strings.Contains(res.Err.Error(), "finish_reason "+tc.reply.FinishReason) {
				t.Errorf("err = %v, want it to name the finish reason", res.Err)
			}
			if typ, data := lastStored(t, db, res.ConversationID); typ != events.Error || !strings.Contains(data.Error, "final answer is empty") {
				t.Errorf("terminal event %s %+v", typ, data)
			}
		})
	}
	t.Run("sub-agent", func(t *testing.T) {
		_, toolResult := subagentResult(t, llmtest.Reply{})
		if !strings.Contains(toolResult, "search_agent gave an empty answer") {
			t.Errorf("the lead's call_subagent result %q does not say the answer was empty", toolResult)
		}
	})
}

// replayEngine is an engine whose lead calls a real llm.Client against a server answering
// every request with body (text/event-stream).
func replayEngine(t *testing.T, body []byte) (*Engine, *llmtest.Replayed) {
	t.Helper()
	srv := llmtest.Replay(t, &llmtest.Replayed{ContentType: "text/event-stream", Body: body})
	model, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, _, _ := newEngineModel(t, model, nil)
	return e, srv
}

// TestRecordedCutAnswerEndsWithNote replays OpenRouter's real stream of an answer cut by
// max_tokens (backend/llm/testdata/recorded) through a run: it completes with the text
// the model wrote, the note, and cut "length".
func TestRecordedCutAnswerEndsWithNote(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "llm", "testdata", "recorded", "openrouter-qwen3.5-max-tokens.sse"))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := replayEngine(t, body)
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run = %+v, %v", res, err)
	}
	if !strings.HasPrefix(res.Response, "The Theory of Relativity is the cornerstone") || !strings.Contains(res.Response, "output token limit") || res.Cut != "length" {
		t.Errorf("response %q cut %q", res.Response, res.Cut)
	}
}

// TestErrorAfterLengthFailsRun: OpenRouter ends a stream cut at its token limit with
// finish_reason "length" and then a chunk holding the error; the run fails with the
// provider's message instead of completing with an empty answer, and the request is
// not retried (the error is the request's). The stream is written out after that shape,
// not recorded.
func TestErrorAfterLengthFailsRun(t *testing.T) {
	body := `data: {"id":"gen-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}]}` + "\n\n" +
		`data: {"id":"gen-1","object":"chat.completion.chunk","model":"m","error":{"code":400,"message":"Token limit reached"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	e, srv := replayEngine(t, []byte(body))
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Error {
		t.Fatalf("run = %+v, %v; want an error ending", res, err)
	}
	if !strings.Contains(res.Err.Error(), "Token limit reached") || !errors.Is(res.Err, llm.ErrRejected) {
		t.Errorf("err = %v, want the provider's message, rejected", res.Err)
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls, want 1 (not retried)", srv.Calls())
	}
}

// TestReasoningSentBackWithToolCalls: the reasoning a reply sent as "reasoning_content"
// goes back with that reply's tool calls in every later request, within the run and in
// the history rebuilt for the next run (DeepSeek's thinking mode answers 400 otherwise),
// and never with a final answer.
func TestReasoningSentBackWithToolCalls(t *testing.T) {
	e, _, _, srv := newWireEngine(t, func(req openai.ChatCompletionRequest, n int) llmtest.Reply {
		switch n { // 0-based
		case 0:
			r := call("web_search", `{"query":"x"}`)
			r.Reasoning = "I should search"
			return r
		case 1:
			return llmtest.Reply{Reasoning: "enough", Content: "answer one"}
		default:
			return llmtest.Reply{Content: "answer two"}
		}
	})
	ctx := context.Background()
	res, err := e.Ask(ctx, Request{Content: "first"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run 1 = %+v, %v", res, err)
	}
	res, err = e.Ask(ctx, Request{ConversationID: res.ConversationID, Content: "second"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run 2 = %+v, %v", res, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, req := range reqs[1:] {
		sent := 0
		for _, m := range req.Messages {
			switch {
			case m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0:
				if m.ReasoningContent != "I should search" {
					t.Errorf("request %d: tool-call turn sent reasoning_content %q", i+2, m.ReasoningContent)
				}
				sent++
			case m.ReasoningContent != "":
				t.Errorf("request %d: %s message sent reasoning_content %q", i+2, m.Role, m.ReasoningContent)
			}
		}
		if sent != 1 {
			for _, m := range req.Messages {
				t.Logf("%s %q %d", m.Role, m.Content[:min(40, len(m.Content))], len(m.ToolCalls))
			}
			t.Errorf("request %d has %d tool-call turns, want 1", i+2, sent)
		}
	}
}

// subagentResult runs a lead that sends search_agent out once, search_agent answering with
// reply, and the lead finishing once it has the result. It fails the test unless the run
// completes, and returns the run's result and the call_subagent result the lead received.
func subagentResult(t *testing.T, reply llmtest.Reply) (Result, string) {
	t.Helper()
	var mu sync.Mutex
	var toolResult string
	e, _, _, _ := newEngine(t, func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
		if isAgent(req, "search_agent") {
			return reply
		}
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				mu.Lock()
				toolResult = m.Content
				mu.Unlock()
				return llmtest.Reply{Content: "done"}
			}
		}
		return call("call_subagent", `{"agent_name":"search_agent","instruction":"look"}`)
	})
	res, err := e.Ask(context.Background(), Request{Content: "question"})
	if err != nil || res.Status != events.Complete {
		t.Fatalf("run = %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return res, toolResult
}
