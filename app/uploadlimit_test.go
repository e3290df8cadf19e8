package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
)

// TestUploadLimitOneBound: the dialog is told the largest upload limit Save accepts
// (SettingsView.MaxUploadMBLimit, which its hint and check use), and Save refuses exactly
// past that bound, naming it, so the hint and the refusal cannot disagree.
func TestUploadLimitOneBound(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}
	v, err := svc.Get()
	if err != nil {
		t.Fatal(err)
	}
	limit := v.MaxUploadMBLimit
	if limit != config.MaxUploadMBLimit {
		t.Fatalf("the view's upload limit bound = %d, want config.MaxUploadMBLimit (%d)", limit, config.MaxUploadMBLimit)
	}
	if v, err := svc.Save(SettingsInput{MaxUploadMB: limit}); err != nil || v.MaxUploadMB != limit {
		t.Fatalf("Save at the bound (%d MB) = %d, %v", limit, v.MaxUploadMB, err)
	}
	_, err = svc.Save(SettingsInput{MaxUploadMB: limit + 1})
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("outside 1–%d", limit)) {
		t.Fatalf("Save past the bound = %v, want it refused naming 1–%d", err, limit)
	}
}
