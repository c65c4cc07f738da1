// Command plantstore-mock serves the fake Plant Store API of package
// plantstoretest over the network, for local development and for clients
// not written in Go.
//
// Usage:
//
//	plantstore-mock [-addr host:port] [-token token]
//
// It prints "listening on http://host:port" on standard output once it
// accepts connections (with -addr 127.0.0.1:0 the port is chosen for it),
// logs one line per request on standard error (method, path, status and
// duration; never the token), and shuts down gracefully on SIGINT or
// SIGTERM, exiting with status 0. Requests still running 10s later are cut
// off and the status is 1; a second signal ends it at once. The token
// defaults to $PLANTSTORE_TOKEN,
// or to plantstoretest.DefaultToken when that is unset. The stored plants
// live in memory and are lost when the command exits; requests are not
// recorded, so memory grows only with the plants stored.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// shutdownTimeout bounds how long a graceful shutdown waits for requests in
// flight.
const shutdownTimeout = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // from now on a signal has its default effect: a second one ends the process
	}()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole command; it returns the exit status. It serves until ctx
// ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plantstore-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: plantstore-mock [-addr host:port] [-token token]\n\n"+
			"Serves the fake Plant Store API (package plantstoretest) until SIGINT or SIGTERM.\n\n")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	// The flag has no default of its own, so that -h never prints a token
	// taken from the environment.
	token := fs.String("token", "", "the bearer `token` to accept (default $PLANTSTORE_TOKEN, else "+plantstoretest.DefaultToken+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if !isSet(fs, "token") {
		*token = getenv("PLANTSTORE_TOKEN")
		if *token == "" {
			*token = plantstoretest.DefaultToken
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "plantstore-mock: unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	h, err := newHandler(*token, logger)
	if err != nil {
		fmt.Fprintf(stderr, "plantstore-mock: %v\n", err)
		return 2
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(stderr, "plantstore-mock: ", 0),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "plantstore-mock: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		fmt.Fprintf(stderr, "plantstore-mock: %v\n", err)
		return 1
	case <-ctx.Done():
	}

	logger.Info("shutting down")
	h.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		fmt.Fprintf(stderr, "plantstore-mock: shutdown: %v; closing the remaining connections\n", err)
		srv.Close()
		return 1
	}
	return 0
}

// isSet reports whether the flag called name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// newHandler is the fake the command serves. It records no requests: nobody
// can read them, and a long-running mock would keep every body. The panic
// plantstoretest.NewHandler reports invalid options with (a bad -token)
// becomes an error.
func newHandler(token string, logger *slog.Logger) (h *plantstoretest.Handler, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return plantstoretest.NewHandler(
		plantstoretest.WithToken(token),
		plantstoretest.WithLogger(logger),
		plantstoretest.WithRequestLimit(0),
	), nil
}
