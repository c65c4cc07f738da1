package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// newLoggers returns the two loggers of a running mock, which write through
// one slog.TextHandler on w, so that everything it says once its flags are
// read is one kind of line: log drops the records below level (-log-level),
// and always drops none, for the lines that print at every level: the
// start-up lines, which say how the mock runs, and errors.
func newLoggers(w io.Writer, level slog.Level) (log, always *slog.Logger) {
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: min(level, slog.LevelInfo)})
	return slog.New(atLeast{h, level}), slog.New(h)
}

// atLeast is a slog.Handler that drops the records below a level.
type atLeast struct {
	slog.Handler
	level slog.Level
}

func (h atLeast) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= h.level && h.Handler.Enabled(ctx, level)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(attrs), h.level}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.level}
}

// logProfile logs the start-up line of -profile: the file, where the
// profile says it was observed (its Source) and the replies it sets, so
// that a run says which profile is in force. A Source that is a URL is
// shown without its password, query and fragment, where a profile written
// by hand might keep a secret; and, as any Source, cut at
// maxSourceShown bytes. The replies themselves are not shown.
func logProfile(log *slog.Logger, path string, p *plantstoretest.Profile) {
	source := p.Source
	if u, err := url.Parse(source); err == nil && u.Scheme != "" && u.Host != "" {
		u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
		source = u.Redacted()
	}
	if len(source) > maxSourceShown {
		source = source[:maxSourceShown] + "…"
	}
	var replies []string
	set := func(name string, reply *plantstoretest.ProfileReply) {
		if reply != nil {
			replies = append(replies, name)
		}
	}
	set("duplicate_id", p.DuplicateID)
	set("auth_missing", p.AuthMissing)
	set("auth_malformed", p.AuthMalformed)
	set("auth_invalid", p.AuthInvalid)
	attrs := []any{"profile", path, "source", source, "replies", strings.Join(replies, " ")}
	if t := p.Traffic; t != nil {
		var failures []string
		for _, o := range t.Outcomes {
			if o.Kind.Failure() {
				name := string(o.Kind)
				if o.Status != 0 && o.Kind != "429" {
					name += fmt.Sprintf(" %d", o.Status)
				}
				failures = append(failures, fmt.Sprintf("%s %.3g%%", name, 100*float64(o.Count)/float64(t.Attempts)))
			}
		}
		attrs = append(attrs, "traffic_attempts", t.Attempts, "traffic_failures", strings.Join(failures, ", "))
	}
	log.Info("-profile in force", attrs...)
}

// maxSourceShown bounds the Source the -profile start-up line shows.
const maxSourceShown = 200

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

// Set takes a level as slog.Level's UnmarshalText does, and says what a
// level is in the flag's terms, not slog's.
func (f levelFlag) Set(s string) error {
	if f.level.UnmarshalText([]byte(s)) != nil {
		return errors.New("want debug, info, warn or error")
	}
	return nil
}
