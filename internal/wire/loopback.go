package wire

import (
	"net/netip"
	"strings"
)

// IsLoopbackHost reports whether host, a URL's or a Host header's
// Hostname() (no port, no brackets), names this machine's loopback:
// "localhost" in any case, or a loopback IP without a zone (127.0.0.0/8,
// ::1, or 127.x mapped into IPv6). It is the one rule for "this machine"
// that the client (plain http there), the conformance kit (a local target)
// and the mock (its control API's guard against DNS rebinding, and whether
// it listens on loopback only) all follow.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// DialHost returns the host a client on this machine dials to reach a
// listener bound to host (no port, no brackets): host itself, or, for a
// listener on every interface, a loopback one. An empty host or 0.0.0.0
// (also as ::ffff:0.0.0.0, on which Go listens everywhere too) becomes
// 127.0.0.1, which such a listener always serves; :: becomes localhost,
// which resolves to ::1 and 127.0.0.1, so that it works whether the IPv6
// listener is dual-stack or not.
func DialHost(host string) string {
	ip, err := netip.ParseAddr(host)
	ip = ip.Unmap()
	switch {
	case host == "" || (err == nil && ip.Is4() && ip.IsUnspecified()):
		return "127.0.0.1"
	case err == nil && ip.IsUnspecified():
		return "localhost"
	}
	return host
}
