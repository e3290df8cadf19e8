package localapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPost200 measures one POST of 200 links (a new conversation's worth: the
// quota) through the HTTP handler, auth, parsing and the declared store on SQLite. The
// store is emptied (DELETE each) outside the timer so every POST creates 200.
func BenchmarkPost200(b *testing.B) {
	h := newHarness(b, func(o *Options) { o.Rate, o.Burst = 1e9, 1<<30 })
	items := make([]map[string]any, 200)
	for i := range items {
		items[i] = map[string]any{"title": fmt.Sprintf("Dataset %d", i), "url": fmt.Sprintf("https://data.example.org/d/%d", i)}
	}
	body, _ := json.Marshal(map[string]any{"artifacts": items, "clientId": "bench"})
	for b.Loop() {
		r := h.call("POST", "/session/"+testConv+"/artifacts", nil, string(body))
		if r.status != 200 {
			b.Fatalf("POST: %d %s", r.status, r.body)
		}
		b.StopTimer()
		list, err := h.svc.List(h.ctx, testConv)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range list {
			if _, err := h.svc.Remove(h.ctx, testConv, a.ID, ""); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
}

// BenchmarkList200Refresh measures GET /session/:id/artifacts of 200 workspace files, each
// due for its status refresh (stat, containment and realpath check): before every request
// the stored time of the last check is cleared, outside the timer.
func BenchmarkList200Refresh(b *testing.B) {
	h := newHarness(b, func(o *Options) { o.Rate, o.Burst = 1e9, 1<<30 })
	ws := filepath.Join(h.dir, "workspaces", testConv)
	if err := os.MkdirAll(ws, 0o700); err != nil {
		b.Fatal(err)
	}
	items := make([]map[string]any, 200)
	for i := range items {
		name := fmt.Sprintf("out/file%03d.csv", i)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte("a,b\n1,2\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		items[i] = map[string]any{"title": fmt.Sprintf("File %d", i), "workspacePath": name}
	}
	body, _ := json.Marshal(map[string]any{"artifacts": items})
	if r := h.call("POST", "/session/"+testConv+"/artifacts", nil, string(body)); r.status != 200 {
		b.Fatalf("POST: %d %s", r.status, r.body)
	}
	for b.Loop() {
		b.StopTimer()
		if _, err := h.db.SQL().ExecContext(h.ctx, `UPDATE declared_artifacts SET last_stat_at = NULL`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r := h.call("GET", "/session/"+testConv+"/artifacts", nil, "")
		if r.status != 200 || len(r.body) < 200*50 {
			b.Fatalf("GET: %d %.200s", r.status, r.body)
		}
	}
}
