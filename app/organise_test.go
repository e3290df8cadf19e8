package app

import (
	"context"
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

// TestPinArchiveAndModelTitle: through the bound services, a UI's Core (Options.Suggest)
// titles a new conversation with the sub-agents' model after its first answer; pinning
// and archiving show in the list's summaries and survive a new Core on the same data
// dir; restoring and unpinning clear them; unknown ids are store.ErrNotFound.
func TestPinArchiveAndModelTitle(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return apptest.WithSuggestions(func(openai.ChatCompletionRequest, int) llmtest.Reply {
			return llmtest.Reply{Content: "The Moon is 384,400 km away."}
		}, "Lunar distance", "Why does it change?", "How is it measured?")
	})
	open := func() *Core {
		core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(), Suggest: true})
		if err != nil {
			t.Fatal(err)
		}
		return core
	}
	core := open()
	chat, convs := &ChatService{core}, &ConversationService{core}
	var ids []string
	for _, q := range []string{"How far is the Moon?", "What is a light year?"} {
		res, err := chat.Send(SendRequest{Content: q})
		if err != nil {
			t.Fatal(err)
		}
		waitIdle(core, res.ConversationID)
		ids = append(ids, res.ConversationID)
	}
	if d, _ := convs.Get(ids[0]); d.Conversation.Title != "Lunar distance" {
		t.Errorf("title after the first answer = %q, want the model's", d.Conversation.Title)
	}
	if err := convs.Pin(ids[0], true); err != nil {
		t.Fatal(err)
	}
	if err := convs.Archive(ids[1], true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"nope"} {
		if err := convs.Pin(id, true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Pin(%q) = %v, want store.ErrNotFound", id, err)
		}
		if err := convs.Archive(id, true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Archive(%q) = %v, want store.ErrNotFound", id, err)
		}
	}
	if err := core.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	core = open()
	defer core.Close(context.Background())
	convs = &ConversationService{core}
	state := func() map[string][2]bool {
		list, err := convs.List()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]bool{}
		for _, c := range list {
			out[c.ID] = [2]bool{c.Pinned, c.Archived}
		}
		return out
	}
	if got := state(); got[ids[0]] != [2]bool{true, false} || got[ids[1]] != [2]bool{false, true} {
		t.Errorf("after restart (pinned, archived) = %v; want first pinned, second archived", got)
	}
	if err := convs.Archive(ids[1], false); err != nil {
		t.Fatal(err)
	}
	if err := convs.Pin(ids[0], false); err != nil {
		t.Fatal(err)
	}
	if got := state(); got[ids[0]] != [2]bool{} || got[ids[1]] != [2]bool{} {
		t.Errorf("after unpin and restore = %v, want neither", got)
	}
}

// Files dropped or pasted with no conversation open make one titled "Files: name"; the first
// question asked there names it instead (and the model may then retitle it), unless the user
// renamed it first.
func TestFilesFirstConversationTakesQuestionTitle(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return apptest.WithSuggestions(func(openai.ChatCompletionRequest, int) llmtest.Reply {
			return llmtest.Reply{Content: "The chart rises every year."}
		}, "", "Why does it rise?")
	})
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides(), Suggest: true})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close(context.Background())
	arts, chat, convs := &ArtifactService{core}, &ChatService{core}, &ConversationService{core}
	for _, tc := range []struct {
		name, rename, want string
	}{
		{name: "question names it", want: "What does this chart show?"},
		{name: "a rename first wins", rename: "My chart", want: "My chart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up, err := arts.Upload("", []UploadFile{{Name: "notes.md", Data: []byte("# Notes\n\nSales rose.\n")}})
			if err != nil || len(up) != 1 || up[0].ConversationID == "" {
				t.Fatalf("Upload = %+v, %v", up, err)
			}
			id := up[0].ConversationID
			if d, _ := convs.Get(id); d.Conversation.Title != "Files: notes.md" {
				t.Fatalf("title after the upload = %q, want the files' stand-in", d.Conversation.Title)
			}
			if tc.rename != "" {
				if err := convs.Rename(id, tc.rename); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := chat.Send(SendRequest{ConversationID: id, Content: "What does this chart show?"}); err != nil {
				t.Fatal(err)
			}
			waitIdle(core, id)
			if d, _ := convs.Get(id); d.Conversation.Title != tc.want {
				t.Errorf("title after the first question = %q, want %q", d.Conversation.Title, tc.want)
			}
		})
	}
}
