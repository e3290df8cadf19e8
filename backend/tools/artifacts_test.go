package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/backend/artifact"
	"artifactflow/backend/store"
)

func TestReadArtifactPaging(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "af.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.CreateConversation(ctx, store.Conversation{ID: "c"}); err != nil {
		t.Fatal(err)
	}
	m := artifact.NewManager(db, "c", "")
	big := strings.Repeat("研究", 500_000) // 1,000,000 runes, 3 MB
	ts := ArtifactTools(m)
	if r := ts[0].Execute(ctx, map[string]any{"id": "big", "content_type": "markdown", "title": "Big", "content": big}); !r.Success {
		t.Fatal(r.Error)
	}
	read := ts[3]
	tests := []struct {
		name      string
		params    map[string]any
		wantRunes int
		wantNote  string
		wantErr   string
	}{
		{"default page", map[string]any{"id": "big"}, DefaultReadLimit, "offset=20000 for more", ""},
		{"middle page", map[string]any{"id": "big", "offset": 500000.0, "limit": 10.0}, 10, "characters 500000-500010 of 1000000", ""},
		{"last page", map[string]any{"id": "big", "offset": 999990.0}, 10, "", ""},
		{"past the end", map[string]any{"id": "big", "offset": 2000000.0}, 0, "", ""},
		{"limit capped", map[string]any{"id": "big", "limit": 1e7}, MaxReadLimit, "of 1000000", ""},
		{"negative offset", map[string]any{"id": "big", "offset": -1.0}, 0, "", "offset must be"},
		{"unknown version", map[string]any{"id": "big", "version": 9.0}, 0, "", "no stored version 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := read.Execute(ctx, tc.params)
			if tc.wantErr != "" {
				if r.Success || !strings.Contains(r.Error, tc.wantErr) {
					t.Fatalf("result %+v, want error %q", r, tc.wantErr)
				}
				return
			}
			if !r.Success || !strings.Contains(r.Data, `total_length="1000000"`) || !strings.Contains(r.Data, tc.wantNote) {
				t.Fatalf("result %.300s", r.Data)
			}
			body := r.Data[strings.Index(r.Data, ">\n")+2 : strings.Index(r.Data, "\n</artifact>")]
			if n := len([]rune(body)); n != tc.wantRunes {
				t.Fatalf("page has %d runes, want %d", n, tc.wantRunes)
			}
		})
	}
}
