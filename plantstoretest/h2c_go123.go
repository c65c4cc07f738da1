//go:build !go1.24

package plantstoretest

import "net/http"

// h2cSupported reports whether this Go serves h2c: http.Protocols came
// with Go 1.24.
const h2cSupported = false

// serveH2C and speakH2C are never called: config.check refuses h2c here.
func serveH2C(*http.Server)    { panic(errH2CNeedsGo124) }
func speakH2C(*http.Transport) { panic(errH2CNeedsGo124) }
