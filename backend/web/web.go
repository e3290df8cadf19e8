// Package web is the web layer behind the web_search and web_fetch tools (search_agent and
// crawl_agent). It holds the search providers (NewSearcher), a page fetcher that turns
// HTML, PDF and text into Markdown or plain text behind an SSRF guard, and Truncate for
// the tools' length limits.
package web

import "errors"

// Sentinel errors callers branch on. Every error returned by this package that has one of
// these causes wraps it, so errors.Is works; the message around it names the URL or query.
var (
	// ErrNotConfigured means the chosen search provider lacks what it needs: an API key, or
	// SearXNG's URL. The wrapping message says what to set and where.
	ErrNotConfigured = errors.New("web search is not configured")
	// ErrEmptyQuery means the search query is empty or only white space.
	ErrEmptyQuery = errors.New("empty search query")
	// ErrBadURL means a URL is malformed, has no host, or its scheme is not http or https.
	ErrBadURL = errors.New("bad URL")
	// ErrBlockedAddress means the target resolves to a loopback, private, link-local or
	// otherwise non-public address and private network access is not allowed.
	ErrBlockedAddress = errors.New("blocked non-public address")
	// ErrHTTPStatus means the server answered with a status outside 2xx; the message
	// carries the code.
	ErrHTTPStatus = errors.New("unexpected HTTP status")
	// ErrUnsupportedContent means the response is a content type that cannot be turned
	// into text (images, audio, video, archives, other binaries); the message names it.
	ErrUnsupportedContent = errors.New("unsupported content type")
	// ErrTimeout means the fetch took longer than the fetcher's Timeout; the message
	// gives the limit. A caller's own context deadline gives the context error instead.
	ErrTimeout = errors.New("timed out")
	// ErrTooManyRedirects means the server redirected more than the fetcher's
	// MaxRedirects times; the message gives the limit.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrBodyTooLarge means a compressed (Content-Encoding: gzip) response went over the
	// fetcher's MaxBytes, either as sent or once decompressed (a compression bomb); the
	// message gives the cap. An uncompressed body over the cap is cut instead (Page.Truncated).
	ErrBodyTooLarge = errors.New("response body over the size cap")
)

// Truncate cuts s to at most max runes (not bytes), always at a rune boundary, and reports
// whether anything was cut. It implements web_fetch's max_content_length. A max of 0 or
// less yields "" (and true when s was not empty).
func Truncate(s string, max int) (string, bool) {
	if max <= 0 {
		return "", s != ""
	}
	if len(s) <= max { // at most len(s) runes: nothing to cut
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}
