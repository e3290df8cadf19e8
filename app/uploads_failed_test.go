package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestFailedUploadLeavesNothing drops a file over the upload limit with no conversation
// open: the upload fails with the limit in its error, and neither the conversation made
// for it nor an original in blobs/ is left behind.
func TestFailedUploadLeavesNothing(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	arts, convs := &ArtifactService{core}, &ConversationService{core}
	big := make([]byte, (config.DefaultMaxUploadMB<<20)+1)
	res, err := arts.Upload("", []UploadFile{{Name: "big.txt", Data: big}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !strings.Contains(res[0].Error, "upload limit") || res[0].ConversationID != "" {
		t.Fatalf("results = %+v, want one failure naming the limit and no conversation", res)
	}
	list, err := convs.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("a failed upload left conversations: %+v", list)
	}
	if left, _ := os.ReadDir(filepath.Join(core.DataDir(), config.BlobsDir)); len(left) != 0 {
		t.Errorf("a failed upload left originals: %v", left)
	}
}
