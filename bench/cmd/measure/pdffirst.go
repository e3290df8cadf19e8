package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// pdfFirstFiles are the two PDFs pdfFirst reads, one after the other: different files, so
// the second read is not served from anything the first stored.
var pdfFirstFiles = []string{"backend/web/testdata/pdf/dafx-twocolumn.pdf", "backend/web/testdata/pdf/shared-mime-info-spec.pdf"}

// pdfFirst measures the first PDF read after a fresh install: bin serve with empty XDG
// folders (no compiled PDF reader in the cache), idle for wait, then two PDFs uploaded one
// after the other through browser mode's ArtifactService.Upload; the wall time of each
// call in seconds (an upload reads the PDF's text before it returns).
func pdfFirst(bin string, wait time.Duration) (first, second float64, err error) {
	env, cleanup, err := isolatedEnv()
	if err != nil {
		return 0, 0, err
	}
	defer cleanup()
	start := time.Now()
	raw, stopServe, err := startServe(bin, env)
	if err != nil {
		return 0, 0, err
	}
	defer stopServe()
	u, err := url.Parse(raw)
	if err != nil {
		return 0, 0, fmt.Errorf("serve's URL %q: %w", raw, err)
	}
	token := u.Query().Get("token")
	base := u.Scheme + "://" + u.Host
	time.Sleep(time.Until(start.Add(wait)))
	var took [2]float64
	for i, f := range pdfFirstFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, 0, fmt.Errorf("read %s: %w", f, err)
		}
		args, err := json.Marshal([]any{"", []map[string]any{{"name": filepath.Base(f), "data": data}}})
		if err != nil {
			return 0, 0, fmt.Errorf("encode the upload: %w", err)
		}
		req, err := http.NewRequest(http.MethodPost, base+"/api/bind/ArtifactService/Upload", bytes.NewReader(args))
		if err != nil {
			return 0, 0, fmt.Errorf("upload request: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-ArtifactFlow-Token", token)
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0, fmt.Errorf("upload %s: %w", f, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took[i] = time.Since(t0).Seconds()
		if resp.StatusCode != http.StatusOK || bytes.Contains(body, []byte(`"error":"`)) {
			return 0, 0, fmt.Errorf("upload %s (%.1f s after the start, took %.2f s): %s: %s", f, t0.Sub(start).Seconds(), took[i], resp.Status, oneLine(string(body), 300))
		}
	}
	return took[0], took[1], nil
}
