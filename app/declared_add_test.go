package app

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"artifactflow/backend/declared"
)

// TestAddLink: Links & files' Add link declares the user's link through the declared
// store's own validation (the local API's): what it refuses comes back as a validation
// error naming the field, and nothing is stored; a good link is created as a user link
// (source client, retained, only the user may remove it) and the window hears it; the url
// of a link the agent declared keeps the agent's artifact and title.
func TestAddLink(t *testing.T) {
	f := newDeclaredFixture(t)
	log := watchArtifactEvents(t, f.core)
	svc := &ArtifactService{f.core}

	bad := []struct {
		name, title, url, field string
	}{
		{"no title", "  ", "https://example.com/", "title"},
		{"title too long", strings.Repeat("a", declared.MaxTitleRunes+1), "https://example.com/", "title"},
		{"title with a control character", "a\x07b", "https://example.com/", "title"},
		{"title with markup", "<b>bold</b>", "https://example.com/", "title"},
		{"javascript url", "Run", "javascript:alert(1)", "url"},
		{"file url", "Passwords", "file:///etc/passwd", "url"},
		{"ftp url", "Files", "ftp://example.com/x", "url"},
		{"relative url", "Here", "/reports/x", "url"},
		{"no url", "Nothing", "", "url"},
		{"url with a control character", "Tab", "https://exa\tmple.com/", "url"},
		{"url too long", "Long", "https://example.com/" + strings.Repeat("a", 8<<10), "url"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.AddLink(f.conv, c.title, c.url)
			ae := ToAppError(err)
			if ae.Code != CodeValidation || ae.Fields[c.field] == "" {
				t.Fatalf("AddLink(%q, %.40q) = %v, want a validation error naming %s", c.title, c.url, err, c.field)
			}
		})
	}
	if list, _ := svc.ListDeclared(f.conv); len(list) != 0 {
		t.Fatalf("refused links were stored: %+v", list)
	}

	a, err := svc.AddLink(f.conv, "  Project board ", " https://User:pw@Board.Example.com:443/p/1#top ")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || a.Title != "Project board" || a.URL != "https://board.example.com/p/1#top" || a.Kind != declared.KindLink ||
		a.Storage != declared.StorageExternalURL || a.Source != declared.SourceClient || !a.ClientRetained {
		t.Fatalf("AddLink = %+v", a)
	}
	got, msgs := log.changes(t, f.conv)
	if len(got) != 1 || got[0].Action != declared.ActionCreated || got[0].Declared == nil || got[0].Declared.ID != a.ID || msgs[0] != "" {
		t.Fatalf("events = %+v", got)
	}
	// Only the user may remove it: a local client asking is refused.
	if _, err := f.core.Declared().Remove(context.Background(), f.conv, a.ID, "cli-1"); err == nil {
		t.Error("a local client removed the user's link")
	}

	agent := f.add(t, declared.Input{Title: "Agent's source", URL: "https://example.org/paper", Source: declared.SourceTool})
	again, err := svc.AddLink(f.conv, "My title", "https://example.org/paper")
	if err != nil || again.ID != agent[0] || again.Title != "Agent's source" || again.Source != declared.SourceTool || !again.ClientRetained {
		t.Fatalf("AddLink of the agent's url = %+v, %v; want the agent's artifact, retained", again, err)
	}
	same, err := svc.AddLink(f.conv, "Project board", "https://board.example.com/p/1#top")
	if err != nil || same.ID != a.ID {
		t.Fatalf("adding the same link again = %+v, %v", same, err)
	}
	if _, err := svc.AddLink("no-such-conversation", "x", "https://example.com/"); ToAppError(err).Code != CodeNotFound {
		t.Errorf("AddLink to an unknown conversation = %v", err)
	}
}

// TestAddLinkNeverEvictsAgentLinks: with the agent's links within their reservation and
// the conversation full, each link the user adds evicts the user's own oldest link, never
// one of the agent's.
func TestAddLinkNeverEvictsAgentLinks(t *testing.T) {
	f := newDeclaredFixture(t)
	svc := &ArtifactService{f.core}
	var tool []declared.Input
	for i := range declared.ReserveTool {
		tool = append(tool, declared.Input{Title: fmt.Sprint("agent ", i), URL: fmt.Sprintf("https://agent.example.com/%d", i), Source: declared.SourceTool})
	}
	f.add(t, tool...)
	for i := range declared.MaxPerConversation - declared.ReserveTool + 3 {
		if _, err := svc.AddLink(f.conv, fmt.Sprint("mine ", i), fmt.Sprintf("https://mine.example.com/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := svc.ListDeclared(f.conv)
	if err != nil {
		t.Fatal(err)
	}
	agents, mine := 0, 0
	for _, a := range list {
		switch a.Source {
		case declared.SourceTool:
			agents++
		case declared.SourceClient:
			mine++
		}
	}
	if len(list) != declared.MaxPerConversation || agents != declared.ReserveTool {
		t.Fatalf("%d artifacts, %d of the agent's (want %d and all %d)", len(list), agents, declared.MaxPerConversation, declared.ReserveTool)
	}
	if mine != declared.MaxPerConversation-declared.ReserveTool || list[len(list)-1].Title != fmt.Sprint("mine ", declared.MaxPerConversation-declared.ReserveTool+2) {
		t.Errorf("user links: %d, last %q", mine, list[len(list)-1].Title)
	}
}
