//go:build !go1.26

package bubble

// HTTP2 reports whether net/http's HTTP/2 server may run inside a bubble.
// Before Go 1.26 its servers share one pool of channels, and one made
// outside the bubble crashes the program when a handler in it writes
// ("fatal error: select on synctest channel from outside bubble").
const HTTP2 = false
