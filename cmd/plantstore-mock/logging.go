package main

import (
	"log/slog"
	"strings"
)

// levelFlag is the value of -log-level: a slog.Level, shown as the flag
// takes it and the README writes it, "info", where flag.TextVar would show
// slog's "INFO". The zero levelFlag shows "", so that -h prints the
// default.
type levelFlag struct{ level *slog.Level }

func (f levelFlag) String() string {
	if f.level == nil {
		return ""
	}
	return strings.ToLower(f.level.String())
}

func (f levelFlag) Set(s string) error {
	return f.level.UnmarshalText([]byte(s))
}
