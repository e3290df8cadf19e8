package web

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestProviders(t *testing.T) {
	ps := Providers()
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
		if p.Name == "" {
			t.Errorf("%s has no name", p.ID)
		}
		if p.NeedsKey && !strings.HasPrefix(p.KeyURL, "https://") {
			t.Errorf("%s needs a key but says nowhere where to get one", p.ID)
		}
	}
	want := []string{"duckduckgo", "wikipedia", "searxng", "tavily", "brave", "bocha", "exa"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v (default first)", ids, want)
	}
	if ps[0].ID != DefaultProvider || ps[0].NeedsKey || ps[0].NeedsURL {
		t.Errorf("the default %+v must need neither key nor server", ps[0])
	}
	ps[0].ID = "changed"
	if Providers()[0].ID != DefaultProvider {
		t.Error("Providers() returned its own slice")
	}
}

func TestNewSearcher(t *testing.T) {
	tests := []struct {
		name    string
		cfg     SearchConfig
		want    any   // the searcher's type when it succeeds
		wantErr error // or the error
		msg     []string
	}{
		{"default", SearchConfig{}, &duckDuckGo{}, nil, nil},
		{"duckduckgo", SearchConfig{Provider: "duckduckgo"}, &duckDuckGo{}, nil, nil},
		{"wikipedia", SearchConfig{Provider: "wikipedia"}, &wikipedia{}, nil, nil},
		{"wikipedia with language", SearchConfig{Provider: "wikipedia", Language: "fr"}, &wikipedia{}, nil, nil},
		{"searxng", SearchConfig{Provider: "searxng", BaseURL: "http://localhost:8888"}, &SearXNG{}, nil, nil},
		{"tavily", SearchConfig{Provider: "tavily", APIKey: "k"}, &tavily{}, nil, nil},
		{"brave", SearchConfig{Provider: "brave", APIKey: "k"}, &brave{}, nil, nil},
		{"bocha", SearchConfig{Provider: "bocha", APIKey: "k"}, &bocha{}, nil, nil},
		{"exa", SearchConfig{Provider: "exa", APIKey: "k"}, &exa{}, nil, nil},
		{"case and space", SearchConfig{Provider: "  Brave ", APIKey: " k "}, &brave{}, nil, nil},
		{"keyless ignores a key", SearchConfig{Provider: "duckduckgo", APIKey: "k"}, &duckDuckGo{}, nil, nil},
		{"tavily no key", SearchConfig{Provider: "tavily"}, nil, ErrNotConfigured, []string{"Tavily", "API key", "Settings", "https://app.tavily.com"}},
		{"brave blank key", SearchConfig{Provider: "brave", APIKey: "  "}, nil, ErrNotConfigured, []string{"Brave", "Settings"}},
		{"bocha no key", SearchConfig{Provider: "bocha"}, nil, ErrNotConfigured, []string{"Bocha", "open.bochaai.com"}},
		{"exa no key", SearchConfig{Provider: "exa"}, nil, ErrNotConfigured, []string{"Exa", "Settings"}},
		{"searxng no url", SearchConfig{Provider: "searxng"}, nil, ErrNotConfigured, []string{"SearXNG URL", "Settings"}},
		{"searxng bad url", SearchConfig{Provider: "searxng", BaseURL: "localhost:8888"}, nil, ErrBadURL, nil},
		{"bad endpoint", SearchConfig{Provider: "brave", APIKey: "k", BaseURL: "ftp://x"}, nil, ErrBadURL, []string{"brave"}},
		{"unknown", SearchConfig{Provider: "google"}, nil, ErrUnknownProvider, []string{`"google"`, "duckduckgo, wikipedia, searxng, tavily, brave, bocha, exa"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSearcher(tc.cfg)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				for _, m := range tc.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q lacks %q", err, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if reflect.TypeOf(s) != reflect.TypeOf(tc.want) {
				t.Errorf("searcher = %T, want %T", s, tc.want)
			}
		})
	}
	// The key is trimmed, kept, and sent as given.
	s, err := NewSearcher(SearchConfig{Provider: "tavily", APIKey: " tvly-abc \n", Client: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	if k := apiOf(t, s).key; k != "tvly-abc" {
		t.Errorf("key = %q", k)
	}
}

func TestResultText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain  text\n here", "plain text here"},
		{"The <strong>New</strong> <strong>York</strong> Times", "The New York Times"},
		{`<span class="searchmatch">Quantum</span> entanglement`, "Quantum entanglement"},
		{"Welcome to <b>Python</b>.org", "Welcome to Python.org"},
		{"AT&amp;T &quot;quoted&quot; &#x27;x&#x27; &#039;y&#039; caf&eacute;", `AT&T "quoted" 'x' 'y' café`},
		{"AT&T rocks", "AT&T rocks"},
		{"x < y and y > z", "x < y and y > z"},
		{"line<br>break<p>para</p>end", "line break para end"},
		{"a<script>alert(1)</script>b<style>p{}</style>c", "abc"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := resultText(tc.in); got != tc.want {
			t.Errorf("resultText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestResultList(t *testing.T) {
	l := newResultList("x", 3)
	l.add("", "https://a.example/", "s", "")
	l.add("dup", "https://a.example/", "s", "")
	l.add("ftp", "ftp://b.example/", "s", "")
	l.add("rel", "/relative", "s", "")
	l.add("js", "javascript:alert(1)", "s", "")
	l.add("no host", "https://", "s", "")
	l.add("B", " HTTP://b.example/x ", strings.Repeat("word ", 200), " 2024 ")
	l.add("C", "http://c.example/", "", "")
	l.add("D", "http://d.example/", "", "")
	if len(l.out) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(l.out), l.out)
	}
	if l.out[0].Title != "https://a.example/" {
		t.Errorf("an empty title should become the URL, got %q", l.out[0].Title)
	}
	if b := l.out[1]; b.URL != "HTTP://b.example/x" || b.PublishedDate != "2024" || []rune(b.Snippet)[len([]rune(b.Snippet))-1] != '…' || len([]rune(b.Snippet)) > maxSnippetRunes {
		t.Errorf("result B = %+v", b)
	}
	if l.out[2].URL != "http://c.example/" {
		t.Errorf("third = %+v", l.out[2])
	}
}
