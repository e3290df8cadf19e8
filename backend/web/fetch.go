package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Fetcher defaults (FetcherConfig zero values).
const (
	// DefaultFetchTimeout bounds one whole fetch (FetcherConfig.Timeout).
	DefaultFetchTimeout = 20 * time.Second
	// DefaultMaxBytes caps the body read, 10 MiB (FetcherConfig.MaxBytes).
	DefaultMaxBytes = 10 << 20
	// DefaultMaxRedirects is how many redirects are followed (FetcherConfig.MaxRedirects).
	DefaultMaxRedirects = 5
	// DefaultUserAgent is the User-Agent header sent (FetcherConfig.UserAgent).
	DefaultUserAgent = "Mozilla/5.0 (compatible; ArtifactFlow/1.0; +local research assistant)"
)

// FetcherConfig configures a Fetcher. Zero values take the defaults above.
type FetcherConfig struct {
	// AllowPrivate turns the SSRF guard off, so loopback, private and link-local
	// addresses may be fetched (--allow-private-network).
	AllowPrivate bool
	// Timeout bounds one whole fetch: connect, redirects, headers and body. Default 20 s.
	Timeout time.Duration
	// MaxBytes caps the response body read, in bytes (after transfer decompression).
	// Default 10 MiB. A longer body is cut and Page.Truncated is set.
	MaxBytes int64
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string
	// MaxRedirects is how many redirects are followed before giving up. Default 5.
	MaxRedirects int
}

// Page is a fetched document turned into text.
type Page struct {
	URL         string // final URL, after redirects
	Title       string // page or PDF title, "" when there is none
	Content     string // Markdown for HTML, plain text for PDF and text types
	ContentType string // media type without parameters, e.g. "text/html"
	Bytes       int64  // body bytes read (at most MaxBytes)
	Truncated   bool   // the body was longer than MaxBytes and was cut
}

// Fetcher downloads web pages for web_fetch (seed 001, crawl_agent) and converts them to
// text. Unless AllowPrivate is set, it refuses non-public addresses (see IsBlockedIP):
// literal IPs before any connection, resolved addresses at connect time (so DNS rebinding
// cannot pass), and every redirect target. Environment proxies are never used, so they
// cannot bypass the guard. A Fetcher is safe for concurrent use.
type Fetcher struct {
	cfg    FetcherConfig
	client *http.Client
	// blocked decides which addresses the guard refuses; IsBlockedIP except in tests.
	blocked func(netip.Addr) bool
}

// NewFetcher returns a Fetcher for cfg, filling in defaults.
func NewFetcher(cfg FetcherConfig) *Fetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultFetchTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	f := &Fetcher{cfg: cfg, blocked: IsBlockedIP}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		dialer.ControlContext = dialControl(func(ip netip.Addr) bool { return f.blocked(ip) })
	}
	f.client = &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			Proxy:                 nil, // an environment proxy would connect on our behalf, unguarded
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          32,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: f.checkRedirect,
	}
	return f
}

// checkTarget validates a URL about to be requested: http or https with a host, and,
// unless private access is allowed, not a literal blocked IP.
func (f *Fetcher) checkTarget(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q is not allowed, only http and https", ErrBadURL, u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: no host", ErrBadURL)
	}
	if f.cfg.AllowPrivate {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && f.blocked(ip) {
		return blockedError(ip)
	}
	return nil
}

// checkRedirect is the client's CheckRedirect: it caps the redirect count and checks each
// target like the original URL.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", f.cfg.MaxRedirects)
	}
	if err := f.checkTarget(req.URL); err != nil {
		return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
	}
	return nil
}

// Fetch downloads rawURL (an absolute http or https URL) and converts the body by content
// type: HTML and XHTML to Markdown of the main content (links absolute, see htmlToPage),
// PDF to plain text with blank lines between pages, and text types (text/*, JSON, XML) to
// UTF-8 text as is. At most MaxBytes are read; a longer body is cut and Truncated set.
//
// Errors name the URL and wrap: ErrBadURL (malformed, no host, scheme not http/https,
// also for redirects), ErrBlockedAddress (non-public target while private access is off),
// ErrHTTPStatus (non-2xx, the code in the message), ErrUnsupportedContent (images, audio,
// video, archives, octet-stream and other binaries), ErrTimeout (Timeout ran out while
// connecting, waiting for headers or reading the body), context errors, or a conversion
// error for a broken PDF.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return Page{}, fmt.Errorf("fetch %q: %w: %w", rawURL, ErrBadURL, err)
	}
	if err := f.checkTarget(u); err != nil {
		return Page{}, fmt.Errorf("fetch %q: %w", rawURL, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %q: %w: %w", rawURL, ErrBadURL, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/*;q=0.8,*/*;q=0.5")

	resp, err := f.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its message repeats the method and URL, which are named below
		}
		return Page{}, f.fetchError(ctx, rawURL, "", err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, fmt.Errorf("fetch %q: %w %s", rawURL, ErrHTTPStatus, resp.Status)
	}

	header := resp.Header.Get("Content-Type")
	mediaType := parseMediaType(header)
	if mediaType != "" && kindOf(mediaType) == kindUnsupported {
		return Page{}, fmt.Errorf("fetch %q: %w %q", rawURL, ErrUnsupportedContent, mediaType)
	}

	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return Page{}, f.fetchError(ctx, rawURL, "read body: ", err)
	}
	page := Page{URL: final.String()}
	if int64(len(body)) > f.cfg.MaxBytes {
		body, page.Truncated = body[:f.cfg.MaxBytes], true
	}
	page.Bytes = int64(len(body))

	if mediaType == "" { // no Content-Type: sniff, and trust no charset from the guess
		mediaType, header = parseMediaType(http.DetectContentType(body)), ""
	}
	page.ContentType = mediaType
	switch kindOf(mediaType) {
	case kindHTML:
		page.Title, page.Content, err = convertHTML(ctx, body, header, final)
	case kindPDF:
		page.Title, page.Content, err = PDFToText(ctx, body)
		if err != nil && page.Truncated {
			err = fmt.Errorf("%w (the file is larger than the %d-byte size cap)", err, f.cfg.MaxBytes)
		}
	case kindText:
		page.Content = decodeText(body, header)
	default:
		err = fmt.Errorf("%w %q", ErrUnsupportedContent, mediaType)
	}
	if err != nil {
		return Page{}, fmt.Errorf("fetch %q: %w", rawURL, err)
	}
	return page, nil
}

// fetchError wraps a transport error of the fetch of rawURL. When the fetcher's own
// Timeout ran out (not the caller's context), it is ErrTimeout with the limit and what to
// do next, still wrapping the transport error.
func (f *Fetcher) fetchError(ctx context.Context, rawURL, what string, err error) error {
	var nerr net.Error
	if ctx.Err() == nil && (errors.As(err, &nerr) && nerr.Timeout() || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Errorf("fetch %q: %s%w after %v: the server did not send the page in time; try another source (%w)",
			rawURL, what, ErrTimeout, f.cfg.Timeout, err)
	}
	return fmt.Errorf("fetch %q: %s%w", rawURL, what, err)
}

// contentKind is how a media type is converted.
type contentKind int

const (
	kindUnsupported contentKind = iota
	kindHTML
	kindPDF
	kindText
)

// parseMediaType returns the lower-case media type of a Content-Type value without its
// parameters, or "" when there is none.
func parseMediaType(header string) string {
	if mt, _, err := mime.ParseMediaType(header); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(header, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// kindOf classifies a media type: HTML and XHTML; PDF; text (text/*, which includes
// text/plain, text/markdown and text/csv, plus JSON, XML and application/*+json or +xml);
// everything else, images/audio/video/archives/octet-stream included, is unsupported.
func kindOf(mediaType string) contentKind {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return kindHTML
	case mediaType == "application/pdf" || mediaType == "application/x-pdf":
		return kindPDF
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json", mediaType == "application/xml",
		strings.HasPrefix(mediaType, "application/") &&
			(strings.HasSuffix(mediaType, "+json") || strings.HasSuffix(mediaType, "+xml")):
		return kindText
	default:
		return kindUnsupported
	}
}
