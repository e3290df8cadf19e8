package main

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// firstScreenJSBudget is the most JavaScript, in raw (uncompressed) bytes, that the page
// may load before its first screen: the entry chunk index.html names and every chunk it
// imports statically, transitively. Raw bytes, because parsing and evaluating them is what
// the launch waits for (the assets are read from the binary, not a network). Set from the
// measurement after the Markdown renderer, the Wails model classes and later UI left the
// entry chunk and the UI moved from react-dom to preact/compat (docs/ARCHITECTURE.md,
// "Start-up"; 419,558 bytes then, 628,864 on React, 813,354 before any of it), with about
// 8% of headroom: a feature that needs more on the first screen loads it with import() or
// lazy instead.
const firstScreenJSBudget = 455_000

var (
	entryScript  = regexp.MustCompile(`<script[^>]+type="module"[^>]+src="/?([^"]+\.js)"`)
	preloadLink  = regexp.MustCompile(`<link[^>]+rel="modulepreload"[^>]+href="/?([^"]+\.js)"`)
	staticImport = regexp.MustCompile(`(?:\bfrom|\bimport)\s*["'](\./[^"']+\.js)["']`)
)

// firstScreenJS returns the chunks the page loads before its first screen in dist (a built
// frontend/dist), with their raw sizes: the entry script, the chunks index.html preloads,
// and whatever those import statically (import … from "./x.js"; import("./x.js") is on
// demand and not counted).
func firstScreenJS(dist fs.FS) (map[string]int, error) {
	html, err := fs.ReadFile(dist, "index.html")
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, re := range []*regexp.Regexp{entryScript, preloadLink} {
		for _, m := range re.FindAllStringSubmatch(string(html), -1) {
			todo = append(todo, m[1])
		}
	}
	sizes := map[string]int{}
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if _, ok := sizes[name]; ok {
			continue
		}
		b, err := fs.ReadFile(dist, name)
		if err != nil {
			return nil, err
		}
		sizes[name] = len(b)
		for _, m := range staticImport.FindAllStringSubmatch(string(b), -1) {
			todo = append(todo, path.Join(path.Dir(name), m[1]))
		}
	}
	return sizes, nil
}

// TestFirstScreenJSSize: the JavaScript loaded before the first screen (firstScreenJS) stays
// within firstScreenJSBudget, so a later feature cannot quietly put back on the launch
// what was split off. `make test` builds the frontend first; without a build the test is
// skipped, except in CI (CI=true), where a missing build is a failure.
func TestFirstScreenJSSize(t *testing.T) {
	dist := os.DirFS("frontend/dist")
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("frontend/dist is not built: make test builds it before the Go tests")
		}
		t.Skip("frontend/dist is not built (make frontend)")
	}
	sizes, err := firstScreenJS(dist)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	var parts []string
	for name, n := range sizes {
		total += n
		parts = append(parts, name)
	}
	if len(sizes) == 0 || !strings.HasPrefix(parts[0], "assets/") {
		t.Fatalf("no entry chunk found in frontend/dist/index.html (found %v)", parts)
	}
	t.Logf("first screen's JavaScript: %d bytes raw in %d chunks %v", total, len(sizes), sizes)
	if total > firstScreenJSBudget {
		t.Errorf("the first screen loads %d bytes of JavaScript (raw), over its budget of %d: %v; load what the first screen does not show on demand (import(), React.lazy)", total, firstScreenJSBudget, sizes)
	}
}
