package wiretest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// A fault is what the server does to a request once it has read its whole
// body.
type fault int

const (
	answer               fault = iota // 201 with the plant
	resetProtocol                     // RST_STREAM(PROTOCOL_ERROR)
	resetInternal                     // RST_STREAM(INTERNAL_ERROR)
	resetCancel                       // RST_STREAM(CANCEL)
	refuse                            // RST_STREAM(REFUSED_STREAM)
	goAwayBelow                       // GOAWAY with a last-stream-id below the stream, then close
	goAwayAt                          // GOAWAY with the stream's own id, then close without answering
	goAwayAtQuoting                   // goAwayAt, with INTERNAL_ERROR and debug data that quotes net/http's "not processed" GOAWAY text
	goAwayAtQuotingRetry              // goAwayAt, with INTERNAL_ERROR and debug data that quotes net/http's "cannot retry" text of a refused stream
	goAwayCalm                        // GOAWAY with last-stream-id 0 and ENHANCE_YOUR_CALM, then close: the connection's first stream was not processed
	brokenBody                        // 201 headers, half the body, then close
	closeAfterBody                    // HTTP/1.1: close the connection without answering
)

// plantJSON is the answer to a create.
const plantJSON = `{"id":7,"name":"Monstera","tag":"indoor"}`

// A received request is what the server read of one request: the header
// the client numbers its attempts by.
type received struct {
	retryCount string
	requestID  string
}

// wireServer is a server that applies plan[i] to the i-th request it reads
// (the last fault of plan to every later one) and records every request.
type wireServer struct {
	URL  string
	plan []fault

	mu    sync.Mutex
	reqs  []received
	conns map[net.Conn]bool
	ln    net.Listener
	wg    sync.WaitGroup
}

// received returns the requests the server has read so far.
func (s *wireServer) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.reqs...)
}

// record notes a request and returns the fault to apply to it.
func (s *wireServer) record(r received) fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	return s.plan[min(len(s.reqs), len(s.plan))-1]
}

func (s *wireServer) track(c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.conns == nil {
			return false // closed
		}
		s.conns[c] = true
	} else {
		delete(s.conns, c)
	}
	return true
}

// close stops the server, closes its connections and waits for them.
func (s *wireServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.conns = nil
	s.mu.Unlock()
	s.wg.Wait()
}

// startH2 starts a frame-level HTTP/2 server on loopback, over TLS (ALPN
// h2) when tlsConf is not nil, else as h2c with prior knowledge.
func startH2(t *testing.T, tlsConf *tls.Config, plan ...fault) *wireServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &wireServer{plan: plan, ln: ln, conns: map[net.Conn]bool{}}
	scheme := "http"
	if tlsConf != nil {
		scheme = "https"
	}
	s.URL = scheme + "://" + ln.Addr().String()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if tlsConf != nil {
				c = tls.Server(c, tlsConf)
			}
			if !s.track(c, true) {
				c.Close()
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.track(c, false)
				defer c.Close()
				err := s.serveH2(c)
				if errors.Is(err, errClose) {
					// Close gently: a close with the client's frames unread
					// would reset the connection, and the client could lose
					// the last frames to the reset.
					if cw, ok := c.(interface{ CloseWrite() error }); ok {
						cw.CloseWrite()
					}
					io.Copy(io.Discard, c)
					return
				}
				if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					t.Logf("h2 server: %v", err)
				}
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

// serveH2 serves one HTTP/2 connection, a frame at a time.
func (s *wireServer) serveH2(c net.Conn) error {
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a stuck test ends
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return err
	}
	if string(preface) != http2.ClientPreface {
		return errors.New("bad preface")
	}
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if err := fr.WriteSettings(); err != nil {
		return err
	}
	var (
		hbuf    bytes.Buffer
		enc     = hpack.NewEncoder(&hbuf)
		streams = map[uint32]received{}
		goneAt  = uint32(1<<31 - 1) // streams above this are ignored after a GOAWAY
	)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := fr.WriteSettingsAck(); err != nil {
					return err
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				if err := fr.WritePing(true, f.Data); err != nil {
					return err
				}
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID > goneAt {
				continue
			}
			streams[f.StreamID] = received{
				retryCount: headerValue(f, "x-retry-count"),
				requestID:  headerValue(f, "x-request-id"),
			}
			if f.StreamEnded() {
				if err := s.apply(fr, enc, &hbuf, f.StreamID, streams, &goneAt); err != nil {
					return err
				}
			}
		case *http2.DataFrame:
			if f.StreamID > goneAt {
				continue
			}
			if n := len(f.Data()); n > 0 {
				// Give the window back, so that no body stalls.
				if err := fr.WriteWindowUpdate(0, uint32(n)); err != nil {
					return err
				}
			}
			if f.StreamEnded() {
				if err := s.apply(fr, enc, &hbuf, f.StreamID, streams, &goneAt); err != nil {
					return err
				}
			}
		}
	}
}

func headerValue(f *http2.MetaHeadersFrame, name string) string {
	for _, hf := range f.RegularFields() {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}

// errClose ends a connection the server means to close.
var errClose = errors.New("closed by the server")

// apply records the request on stream id, whose body the server has read,
// and does to it what the plan says.
func (s *wireServer) apply(fr *http2.Framer, enc *hpack.Encoder, hbuf *bytes.Buffer, id uint32, streams map[uint32]received, goneAt *uint32) error {
	r := streams[id]
	delete(streams, id)
	switch f := s.record(r); f {
	case resetProtocol:
		return fr.WriteRSTStream(id, http2.ErrCodeProtocol)
	case resetInternal:
		return fr.WriteRSTStream(id, http2.ErrCodeInternal)
	case resetCancel:
		return fr.WriteRSTStream(id, http2.ErrCodeCancel)
	case refuse:
		return fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
	case goAwayBelow:
		*goneAt = max(id, 2) - 2
		// The client closes the connection once its streams are done.
		return fr.WriteGoAway(*goneAt, http2.ErrCodeNo, nil)
	case goAwayCalm:
		*goneAt = 0
		if err := fr.WriteGoAway(0, http2.ErrCodeEnhanceYourCalm, nil); err != nil {
			return err
		}
		return errClose
	case goAwayAt, goAwayAtQuoting, goAwayAtQuotingRetry:
		*goneAt = id
		code, debug := http2.ErrCodeNo, []byte(nil)
		switch f {
		case goAwayAtQuoting:
			code, debug = http2.ErrCodeInternal, []byte("http2: Transport received Server's graceful shutdown GOAWAY")
		case goAwayAtQuotingRetry:
			code, debug = http2.ErrCodeInternal, []byte("http2: Transport: cannot retry err [stream error: stream ID 1; REFUSED_STREAM; received from peer]")
		}
		if err := fr.WriteGoAway(id, code, debug); err != nil {
			return err
		}
		return errClose
	case closeAfterBody:
		return errClose
	case brokenBody:
		if err := writeHeaders(fr, enc, hbuf, id, len(plantJSON)); err != nil {
			return err
		}
		if err := fr.WriteData(id, false, []byte(plantJSON[:len(plantJSON)/2])); err != nil {
			return err
		}
		return errClose
	default:
		if err := writeHeaders(fr, enc, hbuf, id, len(plantJSON)); err != nil {
			return err
		}
		return fr.WriteData(id, true, []byte(plantJSON))
	}
}

func writeHeaders(fr *http2.Framer, enc *hpack.Encoder, hbuf *bytes.Buffer, id uint32, n int) error {
	hbuf.Reset()
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "201"})
	enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	enc.WriteField(hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(n)})
	return fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hbuf.Bytes(), EndHeaders: true})
}

// startH1 starts an HTTP/1.1 server on loopback that applies the plan as
// startH2's does; of the faults, it knows answer, closeAfterBody and
// brokenBody.
func startH1(t *testing.T, plan ...fault) *wireServer {
	t.Helper()
	s := &wireServer{plan: plan}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		f := s.record(received{retryCount: r.Header.Get("X-Retry-Count"), requestID: r.Header.Get("X-Request-Id")})
		switch f {
		case closeAfterBody, brokenBody:
			conn, bw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			if f == brokenBody {
				bw.WriteString("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: " +
					strconv.Itoa(len(plantJSON)) + "\r\n\r\n" + plantJSON[:len(plantJSON)/2])
				bw.Flush()
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, plantJSON)
		}
	}))
	s.URL = srv.URL
	t.Cleanup(srv.Close)
	return s
}
