package plantstoretest

// WithHTTP2 makes [NewServer] serve HTTP/2 beside HTTP/1.1, on the same
// address, and the clients the Server hands out speak HTTP/2, as a
// deployment and the default plantstore client do: with [WithTLS], h2
// negotiated by ALPN; without, h2c with prior knowledge (no Upgrade), which
// needs Go 1.24 or later. It works on the in-memory network too, and in a
// testing/synctest bubble from Go 1.26. The fake answers the same on both
// protocols; what differs is the connection under the requests (see
// [Fault]'s Drop and GoAway).
func WithHTTP2() Option {
	return func(c *config) {
		c.http2 = true
		c.serverOnly = append(c.serverOnly, "WithHTTP2")
	}
}

// errH2CNeedsGo124 is why NewServer refuses WithHTTP2 without WithTLS
// before Go 1.24.
const errH2CNeedsGo124 = "plantstoretest: WithHTTP2 without WithTLS serves h2c, which needs Go 1.24 or later (http.Protocols); " +
	"add WithTLS for HTTP/2 over TLS"
