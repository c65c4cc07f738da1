package plantstoretest

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// pkgDir is the directory of this package's source files, as the runtime
// names it (a module path under -trimpath).
var pkgDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

// callSite returns "file_test.go:42", the file and line of the first caller
// outside this package's own code: the test's line that called NewServer
// or Inject, or the line of a helper of the test that did. It returns "" if
// there is none. This package's tests count as callers.
func callSite() string {
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if f.File != "" && (filepath.Dir(f.File) != pkgDir || strings.HasSuffix(f.File, "_test.go")) {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// report writes msg to the test's log, and fails the test if fail is set,
// at the test's line at, a [callSite], where tb.Helper cannot reach it (from
// the server's goroutines, or the cleanup). Without tb.Output (before Go
// 1.25), tb.Logf or tb.Errorf locates msg as tb.Helper allows.
func (h *Handler) report(at string, fail bool, msg string) {
	h.cfg.tb.Helper()
	if o, ok := h.cfg.tb.(interface{ Output() io.Writer }); ok && at != "" {
		fmt.Fprintf(o.Output(), "%s: %s\n", at, msg)
		if fail {
			h.cfg.tb.Fail()
		}
		return
	}
	if fail {
		h.cfg.tb.Errorf("%s", msg)
	} else {
		h.cfg.tb.Logf("%s", msg)
	}
}

// callback calls f, which runs a callback of the test's (a [WithRule] rule
// or a [Fault.Match]), and returns what the callback panicked with, or nil.
// Under [NewServer] a panic fails the test at the test's line that gave the
// callback; without a test it goes on, with the message what returns.
func (h *Handler) callback(at string, what func() string, f func()) (panicked any) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("plantstoretest: %s: %v", what(), r)
			if h.cfg.tb == nil {
				panic(msg)
			}
			h.report(at, true, msg)
			panicked = r
		}
	}()
	f()
	return nil
}

// logRequest logs one line about a finished request to the configured
// logger and test, if any.
func (h *Handler) logRequest(r *http.Request, status int, fault string, d time.Duration) {
	if h.cfg.logger != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", d),
		}
		if fault != "" {
			attrs = append(attrs, slog.String("fault", fault))
		}
		h.cfg.logger.LogAttrs(r.Context(), slog.LevelDebug, "plantstoretest request", attrs...)
	}
	if h.cfg.logToTB {
		outcome := "no response"
		if status != 0 {
			outcome = fmt.Sprint(status)
		}
		if fault != "" {
			outcome += " (fault: " + fault + ")"
		}
		h.report(h.cfg.site, false, fmt.Sprintf("plantstoretest: %s %s -> %s in %v", r.Method, r.URL.Path, outcome, d))
	}
}
