package web

import (
	"compress/gzip"
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
	"sync/atomic"
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
	// MaxBytes caps the response body read, in bytes. Default 10 MiB. A longer plain body
	// is cut and Page.Truncated is set; a gzip body over the cap as sent or once
	// decompressed is refused with ErrBodyTooLarge.
	MaxBytes int64
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string
	// MaxRedirects is how many redirects are followed before giving up. Default 5.
	MaxRedirects int
	// Proxy chooses the proxy of each request, as http.Transport.Proxy does (see
	// netproxy.Resolve); nil connects directly. Unless AllowPrivate is set, a target sent
	// to a proxy is checked by name and by every address it resolves to before the
	// request is handed over (the dialer then only sees the proxy's address), and the
	// proxy's own address is not checked: a local proxy on loopback is the usual case.
	Proxy func(*http.Request) (*url.URL, error)
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

// Fetcher downloads web pages for web_fetch and converts them to text. Unless
// AllowPrivate is set, it refuses non-public addresses (see IsBlockedIP): literal IPs
// and localhost names before any connection, and every redirect target; on a direct
// connection the resolved addresses at connect time (so DNS rebinding cannot pass); through
// a proxy (FetcherConfig.Proxy) every address the target's name resolves to, before the
// request goes to the proxy. A Fetcher is safe for concurrent use.
type Fetcher struct {
	cfg    FetcherConfig
	client *http.Client
	// blocked decides which addresses the guard refuses; IsBlockedIP except in tests.
	blocked func(netip.Addr) bool
	// lookup resolves a target's name before it is sent to a proxy;
	// net.DefaultResolver.LookupNetIP except in tests.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
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
	f := &Fetcher{cfg: cfg, blocked: IsBlockedIP, lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	guarded := *plain
	dial := plain.DialContext
	if !cfg.AllowPrivate {
		guarded.ControlContext = dialControl(func(ip netip.Addr) bool { return f.blocked(ip) })
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if h, ok := ctx.Value(hopKey{}).(*hop); ok && h.proxy.Load() != nil && *h.proxy.Load() == addr {
				return plain.DialContext(ctx, network, addr) // this request's proxy; its target was checked in proxyFor
			}
			return guarded.DialContext(ctx, network, addr)
		}
	}
	var proxy func(*http.Request) (*url.URL, error)
	if cfg.Proxy != nil {
		proxy = f.proxyFor
	}
	f.client = &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			Proxy:                 proxy,
			DialContext:           dial,
			ForceAttemptHTTP2:     true,
			DisableCompression:    true, // Fetch asks for gzip itself and caps both sides of it
			MaxIdleConns:          32,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: f.checkRedirect,
	}
	return f
}

// hopKey is the context key of a fetch's *hop.
type hopKey struct{}

// hop is what the dialer must know of the request of a fetch being sent (the first one or
// a redirect's, one at a time): the address ("host:port") of the proxy it goes through, or
// nil when it goes direct. proxyFor sets it before the transport dials.
type hop struct{ proxy atomic.Pointer[string] }

// proxyFor is the transport's proxy function: FetcherConfig.Proxy's choice for req, after
// the guard has checked req's target when it goes through a proxy (the dialer then sees only
// the proxy's address): a literal address must be public, and a name must resolve, every
// address of it public (the proxy resolves it again; an answer that changes in between is
// not seen). A lookup that fails refuses the request too: what cannot be checked is not
// sent. The proxy's own address, which may well be loopback, is dialed without the check,
// for this request only.
func (f *Fetcher) proxyFor(req *http.Request) (*url.URL, error) {
	p, err := f.cfg.Proxy(req)
	h, _ := req.Context().Value(hopKey{}).(*hop)
	if err != nil || p == nil {
		if h != nil {
			h.proxy.Store(nil)
		}
		if err != nil {
			return nil, fmt.Errorf("choose proxy: %w", err)
		}
		return nil, nil
	}
	if !f.cfg.AllowPrivate {
		if err := f.checkResolved(req.Context(), req.URL.Hostname()); err != nil {
			return nil, err
		}
	}
	if h != nil {
		addr := proxyAddr(p)
		h.proxy.Store(&addr)
	}
	return p, nil
}

// checkResolved refuses host (a name or a literal address) when it is, or resolves to, an
// address the guard blocks, or when it cannot be resolved.
func (f *Fetcher) checkResolved(ctx context.Context, host string) error {
	if ip, err := netip.ParseAddr(host); err == nil {
		if f.blocked(ip) {
			return blockedError(ip)
		}
		return nil
	}
	ips, err := f.lookup(ctx, host)
	if err != nil {
		return fmt.Errorf("look up %s to check it is a public address before sending it to the proxy: %w", host, err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("look up %s to check it is a public address before sending it to the proxy: no address", host)
	}
	for _, ip := range ips {
		if f.blocked(ip) {
			return fmt.Errorf("%s resolves to %w", host, blockedError(ip))
		}
	}
	return nil
}

// proxyAddr is the "host:port" a transport dials for proxy p, its scheme's port when none
// is written (http 80, https 443, socks5 1080).
func proxyAddr(p *url.URL) string {
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[p.Scheme]
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// checkTarget validates a URL about to be requested: http or https with a host, and,
// unless private access is allowed, not a literal blocked IP (canonical or in a legacy
// spelling such as 2130706433 or 0x7f.1, see parseLegacyIPv4) nor localhost or a name
// under .localhost, with any case and trailing dots. Names are checked again on the
// address actually dialed (dialControl).
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
	if name := strings.ToLower(strings.TrimRight(host, ".")); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		// RFC 6761: always loopback. Refused by name, so "localhost." and "LOCALHOST" are
		// not sent to a DNS server that may not know them.
		return fmt.Errorf("%w %s (private network access is off; enable it in Settings or with --allow-private-network)",
			ErrBlockedAddress, host)
	}
	if ip, ok := parseLegacyIPv4(host); ok {
		if f.blocked(ip) {
			return blockedError(ip)
		}
		return fmt.Errorf("%w: host %q is an IPv4 address in a legacy spelling; write it as %s", ErrBadURL, host, ip)
	}
	return nil
}

// parseLegacyIPv4 parses the inet_aton spellings of an IPv4 address that netip rejects but
// the C resolver (and browsers) accept: one to four parts, each decimal, octal (leading 0)
// or hex (0x), the last part filling the remaining bytes, e.g. 2130706433, 0x7f000001,
// 0x7f.1, 0177.0.0.1, 127.1 and 127.0.1 (all 127.0.0.1). A trailing dot is allowed, so
// "127.0.0.1." (which netip rejects) is reported too. It reports false for anything else,
// canonical dotted quads without the dot included.
func parseLegacyIPv4(host string) (netip.Addr, bool) {
	spelled := host
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if host == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" {
			return netip.Addr{}, false
		}
		var v uint64
		for _, c := range strings.ToLower(digits) {
			d := strings.IndexRune("0123456789abcdef"[:base], c)
			if d < 0 {
				return netip.Addr{}, false
			}
			v = v*uint64(base) + uint64(d)
			if v > 0xffffffff {
				return netip.Addr{}, false
			}
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	ip := netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
	if ip.String() == spelled {
		return netip.Addr{}, false // the canonical form, which netip.ParseAddr handles
	}
	return ip, true
}

// checkRedirect is the client's CheckRedirect: it caps the redirect count and checks each
// target like the original URL.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("%w: stopped after %d redirects", ErrTooManyRedirects, f.cfg.MaxRedirects)
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
	req, err := http.NewRequestWithContext(context.WithValue(ctx, hopKey{}, &hop{}), http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %q: %w: %w", rawURL, ErrBadURL, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept-Encoding", "gzip")
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

	body, err := f.readBody(resp)
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			return Page{}, fmt.Errorf("fetch %q: %w", rawURL, err)
		}
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

// readBody reads at most MaxBytes+1 bytes of resp's body, so the caller can tell a cut
// body. A gzip body (Content-Encoding: gzip, which Fetch asks for) is decompressed here
// with the cap on both sides: more than MaxBytes as sent, or more than MaxBytes once
// decompressed, is ErrBodyTooLarge, so a compression bomb stops at the cap.
func (f *Fetcher) readBody(resp *http.Response) ([]byte, error) {
	limit := f.cfg.MaxBytes
	if !strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "gzip") {
		return io.ReadAll(io.LimitReader(resp.Body, limit+1))
	}
	raw := &io.LimitedReader{R: resp.Body, N: limit + 1}
	zr, err := gzip.NewReader(raw)
	if err != nil {
		if raw.N <= 0 {
			return nil, fmt.Errorf("%w: more than %d compressed bytes", ErrBodyTooLarge, limit)
		}
		return nil, fmt.Errorf("gzip body: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, limit+1))
	switch {
	case int64(len(body)) > limit:
		return nil, fmt.Errorf("%w: gzip body expands past %d bytes (compression bomb?)", ErrBodyTooLarge, limit)
	case raw.N <= 0:
		return nil, fmt.Errorf("%w: more than %d compressed bytes", ErrBodyTooLarge, limit)
	case err != nil:
		return nil, fmt.Errorf("gzip body: %w", err)
	}
	return body, nil
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
