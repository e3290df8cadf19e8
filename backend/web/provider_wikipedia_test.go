package web

import (
	"context"
	"strings"
	"testing"
)

func TestLanguageForQuery(t *testing.T) {
	tests := []struct{ q, want string }{
		{"quantum entanglement", "en"},
		{"Quantenverschränkung", "en"}, // Latin script: English unless configured
		{"量子纠缠", "zh"},
		{"量子糾纏是什麼", "zh"},
		{"Python 的历史", "en"},          // 3 Han vs 6 Latin: still more Latin
		{"Python 的历史与发展是什么", "zh"},    // 9 Han vs 6 Latin
		{"東京 weather forecast", "en"}, // a place name in an English question
		{"量子もつれとは", "ja"},
		{"カタカナ", "ja"},
		{"양자 얽힘", "ko"},
		{"квантовая запутанность", "ru"},
		{"التشابك الكمومي", "ar"},
		{"κβαντική διεμπλοκή", "el"},
		{"שזירה קוונטית", "he"},
		{"ความพัวพันเชิงควอนตัม", "th"},
		{"क्वांटम उलझाव", "hi"},
		{"", "en"},
		{"123 456 !?", "en"},
	}
	for _, tc := range tests {
		if got := languageForQuery(tc.q); got != tc.want {
			t.Errorf("languageForQuery(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestWikipediaLanguageChoice(t *testing.T) {
	tests := []struct {
		setting, query, wantPath, wantHost string
	}{
		{"", "quantum entanglement", "/en/w/api.php", "https://en.wikipedia.org/wiki/"},
		{"", "量子纠缠", "/zh/w/api.php", "https://zh.wikipedia.org/wiki/"},
		{"", "量子もつれ", "/ja/w/api.php", "https://ja.wikipedia.org/wiki/"},
		{"", "квантовая запутанность", "/ru/w/api.php", "https://ru.wikipedia.org/wiki/"},
		{"de", "quantum entanglement", "/de/w/api.php", "https://de.wikipedia.org/wiki/"},
		{" DE ", "量子纠缠", "/de/w/api.php", "https://de.wikipedia.org/wiki/"}, // the setting wins
		{"zh-yue", "x", "/zh-yue/w/api.php", "https://zh-yue.wikipedia.org/wiki/"},
	}
	for _, tc := range tests {
		t.Run(tc.setting+"_"+tc.query, func(t *testing.T) {
			ps := newProviderServer(t, reply{body: fixture(t, "wikipedia.json")})
			s, err := NewSearcher(SearchConfig{Provider: ProviderWikipedia, Language: tc.setting, BaseURL: ps.url + "/{lang}/w/api.php", Client: ps.client})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Search(context.Background(), tc.query, 2)
			if err != nil {
				t.Fatal(err)
			}
			if p := ps.requests()[0].path; p != tc.wantPath {
				t.Errorf("request path = %q, want %q", p, tc.wantPath)
			}
			if q := ps.requests()[0].query.Get("srsearch"); q != strings.TrimSpace(tc.query) {
				t.Errorf("srsearch = %q", q)
			}
			if len(got) != 2 || !strings.HasPrefix(got[0].URL, tc.wantHost) {
				t.Errorf("results = %+v, want 2 on %s", got, tc.wantHost)
			}
		})
	}
}

func TestWikipediaBadLanguage(t *testing.T) {
	for _, lang := range []string{"e", "en/../x", "evil.com#", "-en", "en-", "ünï", strings.Repeat("a", 21)} {
		if _, err := NewSearcher(SearchConfig{Provider: ProviderWikipedia, Language: lang}); err == nil || !strings.HasPrefix(err.Error(), "wikipedia search: language") {
			t.Errorf("language %q: err = %v, want a clear error", lang, err)
		}
	}
}

func TestWikipediaAPIError(t *testing.T) {
	ps := newProviderServer(t, reply{body: fixture(t, "wikipedia_error.json")})
	s, err := NewSearcher(SearchConfig{Provider: ProviderWikipedia, BaseURL: ps.url + "/{lang}/w/api.php", Client: ps.client})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Search(context.Background(), "x", 3)
	if err == nil {
		t.Fatal("want the API's error")
	}
	for _, want := range []string{"wikipedia search: ", "nosrsearch", `The "srsearch" parameter must be set.`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestWikiArticleURL(t *testing.T) {
	tests := []struct{ lang, title, want string }{
		{"en", "Quantum entanglement", "https://en.wikipedia.org/wiki/Quantum_entanglement"},
		{"en", "C++", "https://en.wikipedia.org/wiki/C++"},
		{"en", "What Is Life?", "https://en.wikipedia.org/wiki/What_Is_Life%3F"},
		{"en", "AC/DC", "https://en.wikipedia.org/wiki/AC/DC"},
		{"en", "100% (album)", "https://en.wikipedia.org/wiki/100%25_%28album%29"},
		{"zh", "量子纠缠", "https://zh.wikipedia.org/wiki/%E9%87%8F%E5%AD%90%E7%BA%A0%E7%BC%A0"},
	}
	for _, tc := range tests {
		if got := wikiArticleURL(tc.lang, tc.title); got != tc.want {
			t.Errorf("wikiArticleURL(%q, %q) = %q, want %q", tc.lang, tc.title, got, tc.want)
		}
	}
}
