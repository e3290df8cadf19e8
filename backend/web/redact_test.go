package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestAPIKeyStraddlingTheExcerptCut checks that a key an error body holds right where the
// quoted excerpt is cut (maxErrorExcerpt runes for a failed status, 80 for an answer that
// is not JSON) is redacted before the cut, so not even its first characters show.
func TestAPIKeyStraddlingTheExcerptCut(t *testing.T) {
	straddle := func(before string, at int) string {
		return before + strings.Repeat("a", at-len(before)-1) + " " + testKey + " tail"
	}
	field := straddle("", maxErrorExcerpt-8)
	envelope := []byte(`{"message":"` + field + `","error":"` + field + `","detail":{"error":"` + field + `"}}`)
	failures := map[string][]reply{
		"500 envelope": {{status: http.StatusInternalServerError, body: envelope}},
		"500 text":     {{status: http.StatusInternalServerError, body: []byte(straddle("upstream failure ", maxErrorExcerpt-8))}},
		"401 envelope": {{status: http.StatusUnauthorized, body: envelope}},
		"429 x2":       {{status: http.StatusTooManyRequests, body: envelope}},
		"not json":     {{status: http.StatusOK, body: []byte(straddle("not json ", 80-4))}},
	}
	for _, spec := range providerSpecs {
		info, _ := providerInfo(spec.id)
		if !info.NeedsKey {
			continue
		}
		for name, replies := range failures {
			t.Run(spec.id+"/"+name, func(t *testing.T) {
				ps := newProviderServer(t, replies...)
				s, _ := newSpecSearcher(t, spec, ps)
				_, err := s.Search(context.Background(), "climate", 5)
				if err == nil {
					t.Fatal("want an error")
				}
				for _, m := range errorTree(err) {
					if strings.Contains(m, testKey[:4]) {
						t.Errorf("error holds the start of the key: %q", m)
					}
				}
				// The excerpt is still quoted, up to the redaction marker (itself cut).
				if !strings.Contains(err.Error(), "aaaa "+redacted[:3]) {
					t.Errorf("error %q should quote the body up to where the key was", err)
				}
			})
		}
	}
}
