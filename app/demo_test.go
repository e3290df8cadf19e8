package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoData fills the data directory named by AF_DEMO_DIR with a finished research run,
// a user edit of its report (so there are two versions to compare) and an uploaded file,
// for screenshots of the real window (`artifactflow --data-dir $AF_DEMO_DIR`). Skipped
// unless AF_DEMO_DIR is set.
func TestDemoData(t *testing.T) {
	dir := os.Getenv("AF_DEMO_DIR")
	if dir == "" {
		t.Skip("set AF_DEMO_DIR to a new directory to create demo data in it")
	}
	w := newWorld(t, "native", nil)
	w.dataDir, _ = filepath.Abs(dir)
	if code, _, stderr := w.ask(context.Background(), "--allow-private-network", question); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	core, err := NewCore(context.Background(), Options{DataDir: w.dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close(context.Background())
	convs, err := (&ConversationService{core}).List()
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations = %+v, %v", convs, err)
	}
	conv := convs[0].ID
	svc := &ArtifactService{core}
	cur, err := svc.Get(conv, "research_report")
	if err != nil {
		t.Fatal(err)
	}
	edited := cur.Content + "\n\n## Why it varies\n\nThe orbit is elliptical: about 363,300 km at perigee and 405,500 km at apogee.\n"
	if _, err := svc.Save(conv, "research_report", cur.Version, edited); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Upload(conv, []UploadFile{{Name: "my notes.md", Data: []byte("# My notes\n\n- Check the Apollo retroreflector data\n- Compare with NASA's figure\n")}})
	if err != nil || res[0].Error != "" {
		t.Fatalf("upload = %+v, %v", res, err)
	}
}
