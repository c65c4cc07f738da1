package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
)

// TestMemListener checks the in-memory listener on its own, in real time:
// a dial meets an Accept and the two ends talk with the network's
// addresses; a dial that nobody accepts ends with its context; and once
// closed, Accept and dial fail, and a connection still open is dropped.
func TestMemListener(t *testing.T) {
	t.Parallel()
	l := Listen()
	if got := l.Addr(); got.Network() != "memory" || got.String() != Addr {
		t.Errorf("Addr() = %s %s, want memory %s", got.Network(), got, Addr)
	}

	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Errorf("Accept: %v", err)
		}
		accepted <- c
	}()
	client, err := l.Dial(context.Background(), "tcp", Addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	server := <-accepted
	if client.RemoteAddr().String() != Addr || server.LocalAddr().String() != Addr ||
		client.LocalAddr().String() != "memory-client" || server.RemoteAddr().String() != "memory-client" {
		t.Errorf("addresses: client %v -> %v, server %v <- %v", client.LocalAddr(), client.RemoteAddr(), server.LocalAddr(), server.RemoteAddr())
	}
	go func() {
		client.Write([]byte("ping"))
		client.Close()
	}()
	if got, err := io.ReadAll(server); err != nil || string(got) != "ping" {
		t.Errorf("server read %q, %v; want ping", got, err)
	}
	server.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var opErr *net.OpError
	if _, err := l.Dial(ctx, "tcp", Addr); !errors.Is(err, context.Canceled) || !errors.As(err, &opErr) || opErr.Op != "dial" {
		t.Errorf("dial with a cancelled context, nobody accepting: %v, want a dial *net.OpError wrapping context.Canceled", err)
	}

	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Errorf("Accept: %v", err)
		}
		accepted <- c
	}()
	open, err := l.Dial(context.Background(), "tcp", Addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer open.Close()
	defer (<-accepted).Close()
	l.Close()
	if n, err := open.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read of a connection open when the listener closed: %d, %v; want 0, EOF", n, err)
	}
	l.Close() // a second Close is harmless
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
	if _, err := l.Dial(context.Background(), "tcp", Addr); !errors.Is(err, ErrRefused) {
		t.Errorf("dial after Close: %v, want %v", err, ErrRefused)
	}
}
