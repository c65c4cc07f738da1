package baseline

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// sent is what a test server saw of one request.
type sent struct {
	Method, Path string
	Header       http.Header // the headers the test checks, without X-Request-Id
	RequestID    string
	Plant        plantstore.NewPlant
}

// recordingServer answers every request with status and body after
// recording it; its requests function returns what arrived so far.
func recordingServer(t *testing.T, status int, body string) (url string, requests func() []sent) {
	t.Helper()
	var (
		mu  sync.Mutex
		got []sent
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := sent{Method: r.Method, Path: r.URL.Path, Header: http.Header{}, RequestID: r.Header.Get("X-Request-Id")}
		for _, k := range []string{"Authorization", "Content-Type", "Accept", "User-Agent", "X-Retry-Count"} {
			if v := r.Header.Values(k); v != nil {
				s.Header[k] = v
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&s.Plant); err != nil {
			t.Errorf("server: decode body: %v", err)
		}
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body) //nolint:errcheck // the test checks what the client got
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []sent {
		mu.Lock()
		defer mu.Unlock()
		return append([]sent(nil), got...)
	}
}

// newTestCreate is NewCreate for a test, releasing idle connections at the
// end.
func newTestCreate(t *testing.T, impl, url string) Create {
	t.Helper()
	create, closeIdle, err := NewCreate(impl, url)
	if err != nil {
		t.Fatalf("NewCreate(%q, %q) error: %v", impl, url, err)
	}
	t.Cleanup(closeIdle)
	return create
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestNewCreateWire checks that each baseline sends what BENCHMARKS.md says
// it sends: the same request with four headers (raw) or the six the SDK
// will send (rawsix, oapi), a fresh 128-bit id on every call.
func TestNewCreateWire(t *testing.T) {
	t.Parallel()
	four := http.Header{
		"Authorization": {"Bearer " + Token},
		"Content-Type":  {"application/json"},
		"Accept":        {"application/json"},
		"User-Agent":    {UserAgent},
	}
	six := four.Clone()
	six["X-Retry-Count"] = []string{"0"}
	for _, tc := range []struct {
		impl       string
		wantHeader http.Header
		wantID     bool
	}{
		{impl: "raw", wantHeader: four},
		{impl: "rawsix", wantHeader: six, wantID: true},
		{impl: "oapi", wantHeader: six, wantID: true},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			t.Parallel()
			url, requests := recordingServer(t, http.StatusOK, PlantBody)
			create := newTestCreate(t, tc.impl, url)
			for id := int64(1); id <= 2; id++ {
				if err := create(context.Background(), Plant(id)); err != nil {
					t.Fatalf("%s create(Plant(%d)) error: %v", tc.impl, id, err)
				}
			}
			got := requests()
			var want []sent
			for i := range got {
				want = append(want, sent{Method: http.MethodPost, Path: "/plants", Header: tc.wantHeader,
					RequestID: got[i].RequestID, Plant: Plant(int64(i + 1))})
			}
			if diff := cmp.Diff(want, got); len(got) != 2 || diff != "" {
				t.Fatalf("%s: %d requests arrived, want 2; mismatch (-want +got):\n%s", tc.impl, len(got), diff)
			}
			for _, s := range got {
				if tc.wantID != hexID.MatchString(s.RequestID) || !tc.wantID && s.RequestID != "" {
					t.Errorf("%s sent X-Request-Id %q; want 32 hex digits: %t", tc.impl, s.RequestID, tc.wantID)
				}
			}
			if tc.wantID && got[0].RequestID == got[1].RequestID {
				t.Errorf("%s sent X-Request-Id %q on two calls, want a fresh one per call", tc.impl, got[0].RequestID)
			}
		})
	}
}

// TestNewCreateStatus checks that every baseline fails on a status other
// than 200, with a *StatusError.
func TestNewCreateStatus(t *testing.T) {
	t.Parallel()
	url, _ := recordingServer(t, http.StatusServiceUnavailable, `{"error":9,"message":"try again later"}`)
	for _, impl := range []string{"raw", "rawsix", "oapi"} {
		t.Run(impl, func(t *testing.T) {
			t.Parallel()
			err := newTestCreate(t, impl, url)(context.Background(), Plant(1))
			var se *StatusError
			if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("%s create against a 503 = %v, want a *StatusError with 503", impl, err)
			}
		})
	}
}

// TestCreatePlantCap checks that the hand-written calls stop reading a 200
// response at 1 MiB, as the SDK does.
func TestCreatePlantCap(t *testing.T) {
	t.Parallel()
	url, _ := recordingServer(t, http.StatusOK, `{"name":"`+strings.Repeat("a", maxResponseBytes)+`"}`)
	for name, create := range map[string]func(context.Context, *http.Client, string, plantstore.NewPlant) (*plantstore.Plant, error){
		"CreatePlant":           CreatePlant,
		"CreatePlantSixHeaders": CreatePlantSixHeaders,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			hc := NewHTTPClient()
			t.Cleanup(hc.CloseIdleConnections)
			if p, err := create(context.Background(), hc, url+"/plants", Plant(1)); err == nil {
				t.Errorf("%s with a response over 1 MiB = a plant with a %d-byte name, want an error", name, len(p.Name))
			}
		})
	}
}

func TestNewCreateUnknown(t *testing.T) {
	t.Parallel()
	if _, _, err := NewCreate("fast", "http://127.0.0.1:1"); err == nil {
		t.Errorf(`NewCreate("fast", …) error = nil, want an error naming the implementations`)
	}
}

func TestNewRequestID(t *testing.T) {
	t.Parallel()
	seen := make(map[string]bool)
	for i := 0; i < 1000; i++ {
		id, err := NewRequestID()
		if err != nil {
			t.Fatalf("NewRequestID() error: %v", err)
		}
		if !hexID.MatchString(id) || seen[id] {
			t.Fatalf("NewRequestID() = %q on call %d; want 32 hex digits, not seen before", id, i)
		}
		seen[id] = true
	}
}
