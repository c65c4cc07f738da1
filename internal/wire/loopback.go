package wire

import (
	"net"
	"strings"
)

// IsLoopbackHost reports whether host, a URL's Hostname() (no port, no
// brackets), names this machine: "localhost" in any case, or a loopback IP
// (127.0.0.0/8, ::1, or 127.x mapped into IPv6). The client uses it to allow
// plain http there, and the conformance kit to tell a local target from a
// deployment.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
