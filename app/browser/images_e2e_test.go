package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"artifactflow/app/internal/apptest"
)

// TestBrowserE2ERemoteImages runs the real frontend in headless Chromium against browser
// mode (frontend/e2e/remote-images.mjs): an answer holding a remote image makes no request
// to the image's server until "Load images" is clicked, and one after. The page runs with
// its CSP bypassed, as in the desktop window, which has none. Needs AF_E2E=1 and a built
// frontend, like TestBrowserE2E.
func TestBrowserE2ERemoteImages(t *testing.T) {
	dist := apptest.E2EFrontend(t)
	var hits atomic.Int64
	gif := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/count" {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprint(w, hits.Load())
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "image/gif")
		_, _ = w.Write(gif)
	}))
	t.Cleanup(images.Close)
	_, srv, hs := newBrowserServer(t, apptest.EchoWorld(t), dist)

	if err := runScript(t, 2*time.Minute, "remote-images.mjs", hs.URL+"/?token="+srv.Token(), nil, "AF_IMAGE_URL="+images.URL+"/chart.gif", "AF_IMAGE_COUNT_URL="+images.URL+"/count"); err != nil {
		t.Fatalf("browser end-to-end failed: %v", err)
	}
	if hits.Load() == 0 {
		t.Fatal("the image server had no request after Load images")
	}
}
