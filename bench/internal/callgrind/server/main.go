// Command server answers every request with the fixed Plant of package
// internal/baseline, for the callgrind client to call from another process.
// It prints "listening on http://host:port" once it accepts connections
// (with -addr 127.0.0.1:0 the port is chosen for it) and serves until
// SIGINT or SIGTERM.
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
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("callgrind server: ")
	addr := flag.String("addr", "127.0.0.1:0", "`address` to listen on; port 0 picks a free port")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: baseline.Handler()}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Printf("listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
