// Package netcause tells what kind of network failure ended a request: the name could not
// be resolved (offline, or a wrong name), nothing listens at the address, the network
// cannot reach it, it did not answer in time, or the TLS handshake failed. Settings and
// the search and model clients use it to say the cause first and in a few words
// ("cannot resolve html.duckduckgo.com: you may be offline") instead of quoting a whole
// Go error chain with the request's URL, and the dialog words each kind in the UI's
// language.
package netcause

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"syscall"
)

// Kinds of network failure (Of).
const (
	// Offline: the host name could not be resolved (no network, no DNS, or a wrong name).
	Offline = "offline"
	// Refused: the address was reached but nothing listens on that port.
	Refused = "refused"
	// Unreachable: the network or host cannot be reached (no route, network down).
	Unreachable = "unreachable"
	// Timeout: no answer in time.
	Timeout = "timeout"
	// TLS: the secure connection could not be set up (certificate, handshake).
	TLS = "tls"
)

// Of returns the kind of network failure err is (one of the constants above, "" for
// anything else, such as an HTTP status) and the host concerned: the name that did not
// resolve, or the address ("host:port") that refused or could not be reached; "" when
// unknown. err may be wrapped any number of times.
func Of(err error) (kind, host string) {
	if err == nil {
		return "", ""
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsTimeout {
			return Timeout, dns.Name
		}
		return Offline, dns.Name
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		host = op.Addr.String()
	}
	switch {
	case refused(err):
		return Refused, host
	case unreachable(err):
		return Unreachable, host
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return Timeout, host
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
		record           tls.RecordHeaderError
	)
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verify) || errors.As(err, &record) {
		return TLS, host
	}
	return "", host
}

// Describe returns the few words for err's failure, cause first, naming the host: "cannot
// resolve html.duckduckgo.com (you may be offline)", "connection refused by 127.0.0.1:8888
// (nothing is listening there)", "127.0.0.1:8888 is unreachable (you may be offline)",
// "no answer in time from 127.0.0.1:8888", "TLS failed with 127.0.0.1:8888: <reason>".
// For any other error it is err's text without a *url.Error's method and URL (which
// repeat what the caller already names and can be long enough to push the cause out of a
// clipped message).
func Describe(err error) string {
	if err == nil {
		return ""
	}
	kind, host := Of(err)
	at := func(prep string) string {
		if host == "" {
			return ""
		}
		return " " + prep + " " + host
	}
	switch kind {
	case Offline:
		return "cannot resolve " + host + " (you may be offline, or the name is wrong)"
	case Refused:
		return "connection refused" + at("by") + " (nothing is listening there)"
	case Unreachable:
		if host == "" {
			return "network unreachable (you may be offline)"
		}
		return host + " is unreachable (you may be offline)"
	case Timeout:
		return "no answer in time" + at("from")
	case TLS:
		return "TLS failed" + at("with") + ": " + inner(err).Error()
	}
	return inner(err).Error()
}

// inner is the error a *url.Error in err's chain wraps, or err.
func inner(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// errnoIs reports whether err holds a syscall.Errno equal to one of errs.
func errnoIs(err error, errs ...syscall.Errno) bool {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return false
	}
	for _, e := range errs {
		if en == e {
			return true
		}
	}
	return false
}
