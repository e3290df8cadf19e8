package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/engine"
	"artifactflow/backend/llm/llmtest"
)

// organiseQuestions are the questions of the conversations TestBrowserE2EOrganise makes,
// oldest first, with the title the model gives each after its answer.
var organiseQuestions = [][2]string{
	{"What limits the efficiency of solar panels?", "Solar panel efficiency"},
	{"How do tides work?", "How tides work"},
	{"Why are wind turbines so tall?", "Tall wind turbines"},
	{"How far is the Moon from the Earth?", "Lunar distance"},
}

// TestBrowserE2EOrganise runs the real frontend in headless Chromium against browser mode
// with a UI's Core (titles and follow-up questions on; frontend/e2e/organise.mjs): the
// conversations carry the titles the model wrote after their answers; the latest answer
// shows its follow-up questions, a click puts one in the composer and Enter sends it, after
// which only the new answer has questions; a conversation is pinned from its menu with the
// keyboard and sits in the Pinned group; two are archived and leave the list for the
// collapsed Archived group, which opens from the keyboard; one is unarchived; all of it
// holds after a reload. Screenshots of the sidebar with pinned and archived conversations
// (the archived group open) in English and Chinese. Then, in Go: the database holds the
// same pins and archives. Needs AF_E2E=1 and a built frontend, like TestBrowserE2E.
func TestBrowserE2EOrganise(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	titles := map[string]string{}
	for _, q := range organiseQuestions {
		titles[q[0]] = q[1]
	}
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			user := apptest.LastUser(req)
			if llmtest.SystemContains(req, engine.SuggestRole) {
				title := ""
				for q, t := range titles {
					if strings.Contains(user, q) {
						title = t
					}
				}
				return llmtest.Reply{Content: `{"title": "` + title + `", "questions": ["Why does the distance change over a month?", "How is the distance measured today?"]}`}
			}
			return llmtest.Reply{Content: "Here is what the research found about: " + user}
		}
	})
	core, err := app.NewCore(context.Background(), app.Options{DataDir: w.DataDir, Overrides: w.Overrides(), Suggest: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	srv, hs := serveCore(t, core, dist)
	chat := core.Services().Chat
	ids := map[string]string{}
	for _, q := range organiseQuestions {
		res, err := chat.Send(app.SendRequest{Content: q[0]})
		if err != nil {
			t.Fatal(err)
		}
		if r := core.Engine().Active(res.ConversationID); r != nil {
			<-r.Done()
		}
		ids[q[1]] = res.ConversationID
	}

	if err := runScript(t, 4*time.Minute, "organise.mjs", hs.URL+"/?token="+srv.Token(), nil); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}

	ctx := context.Background()
	want := map[string][2]bool{ // title → (pinned, archived) after the script
		"Tall wind turbines":     {true, false},
		"Solar panel efficiency": {false, false},
		"How tides work":         {false, true},
		"Lunar distance":         {false, false},
	}
	for title, w := range want {
		c, err := core.Store().GetConversation(ctx, ids[title])
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]bool{!c.PinnedAt.IsZero(), !c.ArchivedAt.IsZero()}; got != w {
			t.Errorf("%s: (pinned, archived) = %v, want %v", title, got, w)
		}
	}
}
