//go:build !go1.24

package h2c

import "net/http"

// Supported reports whether this Go has h2c.
const Supported = false

// Serve, Speak and Bound must not be called without h2c (see [Supported]).
func Serve(*http.Server)           { panic("h2c needs Go 1.24 or later") }
func Speak(*http.Transport)        { panic("h2c needs Go 1.24 or later") }
func Bound(*http.Server, int, int) { panic("h2c needs Go 1.24 or later") }
