// Command server answers every request with the fixed Plant of package
// internal/baseline, for the callgrind client to call from another process.
// It serves HTTP/1.1 on one port and, where the Go version has h2c (1.24+),
// h2c on another, and prints "listening h2c on http://host:port", then
// "listening on http://host:port" for HTTP/1.1, once it accepts connections
// (with -addr 127.0.0.1:0 the ports are chosen for it). Each port answers a
// request that came over the other protocol with 505, so that a client
// that fell back to the wrong protocol fails instead of being measured. It
// serves until SIGINT or SIGTERM.
//
// Usage:
//
//	server [-addr host:port]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/plantstore/plantstore-go/bench/internal/baseline"
	"github.com/plantstore/plantstore-go/internal/h2c"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("callgrind server: ")
	addr := flag.String("addr", "127.0.0.1:0", "`address` of the HTTP/1.1 port; port 0 picks a free port (the h2c port, on the same host, is always picked)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 2)
	serve := func(addr, label string, major int) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			log.Fatal(err)
		}
		srv := &http.Server{Handler: onlyProto(major, baseline.Handler())}
		if major == 2 {
			h2c.Serve(srv)
		}
		go func() {
			<-ctx.Done()
			srv.Close()
		}()
		fmt.Printf("listening%s on http://%s\n", label, ln.Addr())
		go func() { errc <- srv.Serve(ln) }()
	}
	if h2c.Supported { // first: bench.sh reads both ports once the HTTP/1.1 one is printed
		serve(net.JoinHostPort(host, "0"), " h2c", 2)
	}
	serve(*addr, "", 1)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// onlyProto answers requests over HTTP/major with h, and others with 505.
func onlyProto(major int, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != major {
			http.Error(w, fmt.Sprintf("this port serves HTTP/%d only, not %s", major, r.Proto), http.StatusHTTPVersionNotSupported)
			return
		}
		h.ServeHTTP(w, r)
	})
}
