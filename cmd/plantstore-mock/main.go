// Command plantstore-mock serves the fake Plant Store API of package
// plantstoretest over the network, with a control API under /__plantstore/
// on the same port, for local development and for tests not written in Go.
//
// Usage:
//
//	plantstore-mock [flags]
//	plantstore-mock conformance -url URL [flags]
//	plantstore-mock drift BEFORE AFTER
//
// The second form runs the conformance kit against the API at URL and
// prints a report; the third compares two recordings of package traffic and
// prints what moved. README.md beside this file is the full guide: each
// flag, the control API, the container image and the limits.
//
// It prints "listening on URL" on standard output once it accepts
// connections, with a URL a client on this machine can use, and logs on
// standard error as slog text (-log-level says what); a mock that cannot
// start says why in plain lines, as the flag package does. It shuts down
// gracefully on SIGINT or SIGTERM (status 0; requests still running 10s
// later are cut off, status 1; a second signal ends it at once). Bad flags
// or a bad -seed file stop it before it listens, with status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/plantstore/plantstore-go/internal/h2c"
	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// shutdownTimeout bounds how long a graceful shutdown waits for requests in
// flight.
const shutdownTimeout = 10 * time.Second

// maxHeaderBytes bounds each request's header block (net/http allows 4 KiB
// more), and so the memory the connections' and the journal's headers
// take: a client's are a few hundred bytes.
const maxHeaderBytes = 16 << 10

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // from now on a signal has its default effect: a second one ends the process
	}()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// flags are the command line, parsed.
type flags struct {
	version      bool // -version: print the version and exit
	addr         string
	token        string
	adminToken   string
	journal      int
	seed         string
	maxPlants    int
	maxStored    int // -max-stored-mib
	maxConns     int
	maxNS        int // -max-namespaces
	rate         rate
	chaos        float64
	chaosSeed    int64
	chaosSeeded  bool // -chaos-seed was given
	schedule     string
	writeTimeout time.Duration
	logLevel     slog.Level
	healthcheck  bool
	profilePath  string
	profile      *plantstoretest.Profile // read from the -profile file; nil for none
}

// parseFlags parses args, with the environment's defaults. It returns the
// exit status to stop with, or -1 to go on.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (*flags, int) {
	var f flags
	fs := flag.NewFlagSet("plantstore-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: plantstore-mock [flags]\n"+
			"       plantstore-mock conformance -url URL [flags]  (the conformance kit; -h for its flags)\n"+
			"       plantstore-mock drift BEFORE AFTER  (what moved between two recordings of package traffic)\n\n"+
			"Serves the fake Plant Store API (package plantstoretest), and its control API\n"+
			"under /__plantstore/, until SIGINT or SIGTERM.\n\n")
		fs.PrintDefaults()
	}
	fs.BoolVar(&f.version, "version", false, "print the module version and exit")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "`address` to listen on; port 0 picks a free port")
	// The token flags have no default of their own, so that -h never prints
	// a token taken from the environment.
	fs.StringVar(&f.token, "token", "", "the API's bearer `token` (default $PLANTSTORE_TOKEN, else "+plantstoretest.DefaultToken+")")
	fs.StringVar(&f.adminToken, "admin-token", "", "the control API's bearer `token` (default $PLANTSTORE_ADMIN_TOKEN); without one, the control API is open on loopback and off elsewhere")
	fs.IntVar(&f.journal, "journal", mockserver.DefaultJournal, fmt.Sprintf("keep the last `N` API requests in the journal, each body cut at %d bytes; 0 keeps none", mockserver.JournalBodyLimit))
	fs.StringVar(&f.seed, "seed", "", "start with the plants in `file`, a JSON array of {\"id\", \"name\", \"tag\"}")
	fs.IntVar(&f.maxPlants, "max-plants", plantstoretest.DefaultMaxPlants, "store at most `N` plants in each namespace; a create past it is a 400")
	fs.IntVar(&f.maxStored, "max-stored-mib", defaultMaxStoredMiB, "keep at most `N` MiB of plants, journal entries, faults and schedules, every namespace's together, "+
		"counted as their bytes and a fixed cost each; past it a create, seed, fault, schedule or API request is a 400 (code 11). "+
		"With it full, peak RSS stays within 2×N+128 MiB (measured 1.6 GiB at most for the default)")
	fs.IntVar(&f.maxNS, "max-namespaces", mockserver.DefaultMaxNamespaces, "let at most `N` namespaces (POST /__plantstore/namespaces) live at once; 0 turns them off")
	fs.IntVar(&f.maxConns, "max-conns", mockserver.DefaultMaxConns, "serve at most `N` connections, and N requests, at once; more wait their turn")
	fs.Var(&f.rate, "rate-limit", "answer API requests over `RATE` (N/s, N/m, N/h or N/duration, like 50/s or 10/1500ms) with 429 (default no limit)")
	fs.Float64Var(&f.chaos, "chaos", 0, "answer this `fraction` (0 to 1) of API requests with a random fault")
	f.logLevel = slog.LevelInfo
	fs.Var(levelFlag{&f.logLevel}, "log-level", "log at `level` and above: debug (one line per API and control request), info (start-up and shutdown), warn or error")
	fs.BoolVar(&f.healthcheck, "healthcheck", false, "check the health of the mock at -addr (GET /__plantstore/health, 1s at most) and exit: 0 healthy, 1 not; for a container's HEALTHCHECK")
	fs.StringVar(&f.profilePath, "profile", "", "answer a repeated id and refused credentials as the profile in `file` says (written by plantstore-mock conformance -profile-out), "+
		"and replay its traffic, the fault mix and latencies traffic.Recorder recorded")
	fs.StringVar(&f.schedule, "schedule", "", "place faults on the API requests by their number: `items` N:kind separated by commas, as plantstoretest.WithSchedule "+
		"and Explore write them (kinds as plantstoretest.ParseFault reads them, such as 503, drop, store-drop, delay after=250ms); PUT /__plantstore/schedule replaces it")
	fs.DurationVar(&f.writeTimeout, "write-timeout", 30*time.Second, "give up a reply not written within `duration` of its request's arrival, dropping the connection "+
		"(the journal says dropped): a delay or replayed latency longer than it is never delivered")
	fs.Int64Var(&f.chaosSeed, "chaos-seed", 0, "the `seed` of -chaos's choices and of the replay of -profile's traffic; the same seed gives the same sequence (default a random seed, printed)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if f.version {
		return &f, -1 // before any check: the version prints whatever the environment holds
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "plantstore-mock: unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return nil, 2
	}
	set := given(fs, getenv)
	if f.token == "" && !set["token"] {
		f.token = plantstoretest.DefaultToken
	}
	f.chaosSeeded = set["chaos-seed"]
	if msg := f.check(set); msg != "" {
		return nil, fail(stderr, 2, "plantstore-mock: %s", msg)
	}
	if f.profilePath != "" {
		p, err := loadProfile(f.profilePath)
		if err != nil {
			return nil, fail(stderr, 2, "plantstore-mock: %v", err)
		}
		f.profile = p
	}
	return &f, -1
}

// envDefaults names the environment variable whose value a flag takes when
// the command line leaves it out.
var envDefaults = map[string]string{
	"url":         "PLANTSTORE_URL",
	"token":       "PLANTSTORE_TOKEN",
	"admin-token": "PLANTSTORE_ADMIN_TOKEN",
}

// given returns the names of the flags fs's command line gave, and sets
// each flag of fs in [envDefaults] that it left out from the environment.
func given(fs *flag.FlagSet, getenv func(string) string) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for name, env := range envDefaults {
		if fl := fs.Lookup(name); fl != nil && !set[name] {
			_ = fl.Value.Set(getenv(env)) // a string flag takes any value
		}
	}
	return set
}

// source names where the value of -name came from, for a message: the
// flag, or its environment variable (see [given]).
func source(set map[string]bool, name string) string {
	if env := envDefaults[name]; env != "" && !set[name] {
		return "$" + env
	}
	return "-" + name
}

// fail prints a line, formatted as fmt.Printf does, to w and returns
// status: the exit status of a command that stops.
func fail(w io.Writer, status int, format string, args ...any) int {
	fmt.Fprintf(w, format+"\n", args...)
	return status
}

// check reports what is wrong with f, or "". The tokens are checked here,
// before plantstoretest.NewHandler (which panics on a bad one) and
// mockserver.New, so that a bad token stops the command before it listens
// and the message names where it came from; no message quotes a token.
func (f *flags) check(set map[string]bool) string {
	switch {
	case wire.TokenProblem(f.token) != "":
		return source(set, "token") + " " + wire.TokenProblem(f.token)
	case set["admin-token"] && f.adminToken == "":
		return "-admin-token must not be empty; leave it out for no admin token"
	case f.adminToken != "" && wire.TokenProblem(f.adminToken) != "":
		return source(set, "admin-token") + " " + wire.TokenProblem(f.adminToken)
	case f.adminToken != "" && f.adminToken == f.token:
		return "the admin token must differ from the API token: the API token must never open the control API"
	case f.journal < 0:
		return fmt.Sprintf("-journal %d: want 0 or more", f.journal)
	case f.maxPlants < 0:
		return fmt.Sprintf("-max-plants %d: want 0 or more", f.maxPlants)
	case f.maxStored < 0 || f.maxStored > maxStoredMiB:
		return fmt.Sprintf("-max-stored-mib %d: want 0 to %d", f.maxStored, maxStoredMiB)
	case f.maxNS < 0:
		return fmt.Sprintf("-max-namespaces %d: want 0 or more", f.maxNS)
	case f.maxConns < 1:
		return fmt.Sprintf("-max-conns %d: want 1 or more", f.maxConns)
	case !(f.chaos >= 0 && f.chaos <= 1): // also catches NaN
		return fmt.Sprintf("-chaos %v: want a fraction from 0 to 1", f.chaos)
	case f.writeTimeout <= 0:
		return fmt.Sprintf("-write-timeout %v: want a duration over 0", f.writeTimeout)
	}
	return ""
}

// run is the whole command; it returns the exit status. It serves until ctx
// ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "conformance" {
		return runConformance(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "drift" {
		return runDrift(args[1:], stdout, stderr)
	}
	f, status := parseFlags(args, getenv, stderr)
	if status >= 0 {
		return status
	}
	if f.version {
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, moduleVersion(info, ok))
		return 0
	}
	if f.healthcheck {
		return healthcheck(ctx, f.addr, stderr)
	}
	random := (f.chaos > 0 || f.profile != nil && f.profile.Traffic != nil) && !f.chaosSeeded
	if random {
		f.chaosSeed = time.Now().UnixNano()
	}
	logger, always := newLoggers(stderr, f.logLevel)
	opts := handlerOptions(f, logger)
	h := plantstoretest.NewHandler(opts...)
	defer h.Close()
	if f.seed != "" {
		if err := seed(h, f.seed); err != nil {
			return fail(stderr, 2, "plantstore-mock: %v", err)
		}
	}
	if err := mockserver.CheckScheduleText(f.schedule); err != nil {
		return fail(stderr, 2, "plantstore-mock: -schedule: %s", err)
	}
	if err := h.SetSchedule(f.schedule); err != nil {
		return fail(stderr, 2, "plantstore-mock: -schedule: %s", strings.TrimPrefix(err.Error(), "plantstoretest: "))
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fail(stderr, 1, "plantstore-mock: %v", err)
	}
	mock, err := mockserver.New(h, mockserver.Config{
		AdminToken: f.adminToken,
		Loopback:   mockserver.IsLoopback(ln.Addr()),
		ListenAddr: ln.Addr().String(),
		Logger:     logger,
		Namespaces: mockserver.NamespaceConfig{Max: f.maxNS, Options: opts, APIToken: f.token, MaxPlants: f.maxPlants},
	})
	if err != nil {
		ln.Close()
		return fail(stderr, 2, "plantstore-mock: %v", err)
	}

	srv := &http.Server{
		Handler:           mockserver.LimitRequests(mock, f.maxConns),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      f.writeTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(always.Handler(), slog.LevelError),
	}
	if h2c.Supported {
		h2c.Serve(srv)
		h2c.Bound(srv, maxStreams, maxStreamBuffer)
	} else {
		always.Info("serving HTTP/1.1 only: h2c needs a plantstore-mock built with Go 1.24 or later")
	}
	switch {
	case random && f.chaos > 0:
		always.Info("-chaos with a random seed; pass -chaos-seed to repeat this run", "chaos", f.chaos, "chaos_seed", f.chaosSeed)
	case random:
		always.Info("-profile's traffic with a random seed; pass -chaos-seed to repeat this run", "chaos_seed", f.chaosSeed)
	}
	if f.profile != nil {
		logProfile(always, f.profilePath, f.profile)
	}
	if s := h.Schedule(); s != "" {
		always.Info("-schedule in force", "schedule", s)
	}
	always.Info(mock.Status())
	fmt.Fprintf(stdout, "listening on %s\n", mockserver.ClientURL(ln.Addr().String()))

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(mockserver.LimitListener(ln, f.maxConns)) }()
	select {
	case err := <-serveErr:
		always.Error("serving", "err", err)
		return 1
	case <-ctx.Done():
	}

	logger.Info("shutting down")
	h.Close()
	mock.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		always.Error("shutdown: closing the remaining connections", "err", err)
		srv.Close()
		return 1
	}
	return 0
}

// An h2c connection takes at most maxStreams streams at once, and keeps at
// most maxStreamBuffer bytes of each body its handler has not read (a
// request waiting for one of -max-conns' slots, see
// mockserver.LimitRequests): 3,200 KiB a connection in all.
const (
	maxStreams      = 100
	maxStreamBuffer = 32 << 10
)

// handlerOptions configure the fakes the command serves, the default one
// and each namespace's, as f says (parseFlags checked it). They log each
// API request at debug level, and only when that level is on: a request
// log costs throughput under load.
func handlerOptions(f *flags, logger *slog.Logger) []plantstoretest.Option {
	opts := []plantstoretest.Option{
		plantstoretest.WithToken(f.token),
		plantstoretest.WithJournalLimit(f.journal),
		plantstoretest.WithJournalBodyLimit(mockserver.JournalBodyLimit),
		plantstoretest.WithMaxPlants(f.maxPlants),
		plantstoretest.WithBudget(plantstoretest.NewBudget(int64(f.maxStored) << 20)), // one, for every namespace
	}
	if logger.Enabled(context.Background(), slog.LevelDebug) {
		opts = append(opts, plantstoretest.WithLogger(logger)) // at debug level
	}
	if f.rate.n > 0 {
		opts = append(opts, plantstoretest.WithRateLimit(f.rate.n, f.rate.per))
	}
	if f.chaos > 0 {
		opts = append(opts, plantstoretest.WithChaos(f.chaos, f.chaosSeed))
	}
	if f.profile != nil {
		opts = append(opts, plantstoretest.WithProfile(*f.profile), plantstoretest.WithChaosSeed(f.chaosSeed))
	}
	return opts
}

// defaultMaxStoredMiB is -max-stored-mib's default: room for 1,000
// namespaces of test jobs that keep a few thousand plants and requests
// each. maxStoredMiB keeps its bytes within an int64.
const (
	defaultMaxStoredMiB = 1024
	maxStoredMiB        = 1 << 30
)

// seed stores the plants of the JSON file at path, all or none.
func seed(h *plantstoretest.Handler, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-seed: %w", err)
	}
	_, err = h.SeedJSON(data)
	var se *plantstoretest.SeedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.Index >= 0:
		return fmt.Errorf("-seed %s: entry %d (counting from 0): %s; nothing was served", path, se.Index, se.Body.Message)
	case errors.As(err, &se):
		return fmt.Errorf("-seed %s: %s; nothing was served", path, se.Body.Message)
	default:
		return fmt.Errorf("-seed %s: %v", path, err)
	}
}
