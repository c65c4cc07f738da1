//go:build go1.26

package bubble

// HTTP2 reports whether net/http's HTTP/2 server may run inside a bubble.
// It may from Go 1.26, whose servers each keep their own pool of channels.
const HTTP2 = true
