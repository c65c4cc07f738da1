//go:build go1.24

package h2c_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/internal/h2c"
)

// TestHostAsHTTP1: a request whose Host holds any one byte gets the same
// answer over h2c as over HTTP/1.1, where net/http refuses a Host that no
// URI holds (RFC 9110, section 7.2) with "400 Bad Request: malformed Host
// header" before any handler runs: a name in another script included, which
// clients send as its punycode. A byte HTTP/2 forbids in any field (a
// control character) or in :authority ('@') resets the stream before a
// handler runs, where HTTP/1.1 answers 400.
func TestHostAsHTTP1(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served "+r.Host)
	}))
	h2c.Serve(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	hosts := []string{"example.com", "example.com:8080", "[::1]:80", "ä.example", "\u202e.example", "a\xffb"}
	for b := 0; b < 256; b++ {
		if b != '\r' && b != '\n' { // they end an HTTP/1.1 header line
			hosts = append(hosts, "a"+string([]byte{byte(b)})+"b")
		}
	}
	for _, host := range hosts {
		h1 := answerH1(t, addr, host)
		h2 := answerH2C(t, addr, host)
		if strings.HasPrefix(h2, "RST_STREAM") && strings.HasPrefix(h1, "400 ") {
			continue
		}
		if h1 != h2 {
			t.Errorf("GET / with Host %q: over HTTP/1.1 %q, over h2c %q; want the same", host, h1, h2)
		}
	}
}

// answerH1 sends GET / with Host host over HTTP/1.1 and returns the
// status and the body.
func answerH1(t *testing.T, addr, host string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("HTTP/1.1 GET / with Host %q: %v", host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("HTTP/1.1 GET / with Host %q: %v", host, err)
	}
	return strconv.Itoa(resp.StatusCode) + " " + string(body)
}

// answerH2C sends GET / with :authority host over h2c, in frames written
// by hand (net/http's client refuses such a Host before sending), and
// returns the status and the body, or how the stream ended without them.
func answerH2C(t *testing.T, addr, host string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const (
		data, headers, rstStream, settings, goAway = 0x0, 0x1, 0x3, 0x4, 0x7
		endStream, endHeaders, ack                 = 0x1, 0x4, 0x1
	)
	frame := func(kind, flags byte, stream uint32, payload []byte) []byte {
		f := binary.BigEndian.AppendUint32(nil, uint32(len(payload))<<8|uint32(kind))
		f = append(f, flags)
		f = binary.BigEndian.AppendUint32(f, stream)
		return append(f, payload...)
	}
	var block []byte
	for _, field := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", host}, {":path", "/"}} {
		// A literal without indexing, a new name, no Huffman code.
		block = append(block, 0, byte(len(field[0])))
		block = append(block, field[0]...)
		block = append(block, byte(len(field[1])))
		block = append(block, field[1]...)
	}
	out := []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	out = append(out, frame(settings, 0, 0, nil)...)
	out = append(out, frame(headers, endHeaders|endStream, 1, block)...)
	if _, err := conn.Write(out); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	var status, body string
	for {
		var head [9]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return fmt.Sprintf("connection ended: %v", err)
		}
		payload := make([]byte, binary.BigEndian.Uint32(head[:4])>>8)
		if _, err := io.ReadFull(r, payload); err != nil {
			return fmt.Sprintf("connection ended: %v", err)
		}
		kind, flags, stream := head[3], head[4], binary.BigEndian.Uint32(head[5:])&(1<<31-1)
		switch {
		case kind == settings && flags&ack == 0:
			conn.Write(frame(settings, ack, 0, nil))
		case kind == goAway:
			return fmt.Sprintf("GOAWAY %x", payload)
		case stream != 1:
		case kind == rstStream:
			return fmt.Sprintf("RST_STREAM %x", payload)
		case kind == headers:
			status = statusOf(payload)
		case kind == data:
			body += string(payload)
		}
		if stream == 1 && (kind == headers || kind == data) && flags&endStream != 0 {
			return status + " " + body
		}
	}
}

// statusOf reads :status from the start of a response's header block, as
// net/http's server writes it: an entry of HPACK's static table (RFC 7541,
// appendix A), or a literal with its name from there.
func statusOf(block []byte) string {
	static := map[byte]string{8: "200", 9: "204", 10: "206", 11: "304", 12: "400", 13: "404", 14: "500"}
	switch b := block[0]; {
	case b&0x80 != 0:
		return static[b&0x7f]
	case b&0xc0 == 0x40 && len(block) > 2 && block[1]&0x80 == 0:
		return string(block[2 : 2+block[1]])
	}
	return fmt.Sprintf("(a header block starting %x)", block[:1])
}
