package web

import (
	"context"
	"fmt"
	"net/netip"
	"syscall"
)

// extraBlocked lists ranges that netip.Addr's Is* methods do not cover but that must not
// be reachable from a page fetch.
var extraBlocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network" (RFC 1122); 0.x reaches the local host on Linux
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT shared space (RFC 6598), also Tailscale
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, including the limited broadcast 255.255.255.255
	netip.MustParsePrefix("::/96"),          // IPv4-compatible IPv6 (deprecated, RFC 4291)
	netip.MustParsePrefix("fec0::/10"),      // site-local IPv6 (deprecated, RFC 3879), private in practice
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215)
}

// nat64 is the well-known NAT64 prefix (RFC 6052): the last 32 bits are an IPv4 address,
// judged like that address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// IsBlockedIP reports whether web_fetch must refuse to connect to ip when private network
// access is not allowed: loopback, private (RFC 1918, fc00::/7), link-local unicast
// (169.254.0.0/16 including the cloud metadata address 169.254.169.254, fe80::/10),
// multicast, unspecified, 0.0.0.0/8, 100.64.0.0/10 (CGNAT), 240.0.0.0/4, deprecated
// IPv4-compatible and site-local IPv6, and local-use NAT64. IPv4-mapped (::ffff:a.b.c.d)
// and well-known NAT64 (64:ff9b::a.b.c.d) addresses are judged by their IPv4 address. An
// invalid (zero) Addr is blocked. 198.18.0.0/15 is deliberately allowed: "fake-IP" proxies
// resolve every public name into it.
func IsBlockedIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	ip = ip.Unmap().WithZone("") // Prefix.Contains never matches a zoned address
	if nat64.Contains(ip) {
		b := ip.As16()
		return IsBlockedIP(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range extraBlocked {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// blockedError wraps ErrBlockedAddress with the address and what the user can do.
func blockedError(ip netip.Addr) error {
	return fmt.Errorf("%w %s (private network access is off; enable it in Settings or with --allow-private-network)",
		ErrBlockedAddress, ip)
}

// dialControl returns a net.Dialer.ControlContext hook that refuses, before the connect
// system call, any address for which blocked is true. It sees the address after DNS
// resolution, for every address tried, so DNS rebinding cannot slip past it.
func dialControl(blocked func(netip.Addr) bool) func(ctx context.Context, network, address string, c syscall.RawConn) error {
	return func(_ context.Context, _, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot parse dial address %q: %w", ErrBlockedAddress, address, err)
		}
		if blocked(ap.Addr()) {
			return blockedError(ap.Addr())
		}
		return nil
	}
}
