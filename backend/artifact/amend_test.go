package artifact

import (
	"context"
	"strings"
	"testing"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// TestAmendJoinsTheRunsVersion: Amend changes only the artifacts the run changed, and its
// change lands in the run's one version with the version number and update type the run's
// edits gave it, recorded as the part after the common prefix.
func TestAmendJoinsTheRunsVersion(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	first := NewManager(db, "conv", "msg")
	for _, id := range []string{"report", "untouched"} {
		if _, err := first.Create(ctx, id, "markdown", id, "Intro é.\n"); err != nil {
			t.Fatal(err)
		}
	}
	if failed := first.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}

	m := NewManager(db, "conv", "msg")
	if _, err := m.Update(ctx, "report", "Intro é.", "Intro é, now longer."); err != nil {
		t.Fatal(err)
	}
	var seen []string
	changed := m.Amend(func(s events.ArtifactSnapshot) (string, bool) {
		seen = append(seen, s.ID)
		return s.Content + "\n## Sources\n", true
	})
	if strings.Join(seen, ",") != "report" || len(changed) != 1 || changed[0].Version != 2 ||
		changed[0].Content != "Intro é, now longer.\n\n## Sources\n" {
		t.Fatalf("amend saw %v, changed %+v", seen, changed)
	}
	if m.Amend(func(s events.ArtifactSnapshot) (string, bool) { return s.Content, true }) != nil {
		t.Error("an amendment that changes nothing is reported")
	}
	if failed := m.Flush(ctx); failed != nil {
		t.Fatal(failed)
	}
	v, err := db.GetVersion(ctx, "conv", "report", 2)
	if err != nil {
		t.Fatal(err)
	}
	if v.Content != "Intro é, now longer.\n\n## Sources\n" || v.UpdateType != store.UpdateUpdate || len(v.Changes) != 2 ||
		v.Changes[1] != (store.Change{Old: "", New: "\n## Sources\n"}) {
		t.Errorf("stored version = %+v", v)
	}
	if vs, _ := db.ListVersions(ctx, "conv", "untouched"); len(vs) != 1 {
		t.Errorf("untouched artifact has %d versions", len(vs))
	}
}
