//go:build !go1.24

package mockserver

import "net/http"

// ServeH2C would make srv serve h2c beside HTTP/1.1, but this Go has no
// h2c server (it needs Go 1.24): it leaves srv serving HTTP/1.1 only and
// returns false.
func ServeH2C(*http.Server) bool { return false }
