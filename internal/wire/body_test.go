package wire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadBody(t *testing.T) {
	t.Parallel()
	errBroken := errors.New("connection reset")
	tests := []struct {
		name    string
		r       io.Reader
		wantLen int
		wantErr error
	}{
		{"empty", strings.NewReader(""), 0, nil},
		{"small", strings.NewReader(`{"name":"Monstera"}`), 19, nil},
		{"one byte per read", iotest.OneByteReader(strings.NewReader(strings.Repeat("x", 3000))), 3000, nil},
		{"data with EOF", iotest.DataErrReader(strings.NewReader("abc")), 3, nil},
		{"exactly the cap", bytes.NewReader(make([]byte, MaxBodyBytes)), MaxBodyBytes, nil},
		{"one byte over the cap", bytes.NewReader(make([]byte, MaxBodyBytes+1)), MaxBodyBytes, ErrBodyTooLarge},
		{"endless", &endless{}, MaxBodyBytes, ErrBodyTooLarge},
		{"error after data", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errBroken)), 3, errBroken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadBody(nil, tt.r)
			if len(got) != tt.wantLen || !errors.Is(err, tt.wantErr) {
				t.Errorf("ReadBody(nil, %s) = %d bytes, %v; want %d bytes, %v", tt.name, len(got), err, tt.wantLen, tt.wantErr)
			}
			// Made to measure: append's growth would round the buffer up
			// past the byte after the cap (to 1.8 MiB for an endless body).
			if limit := min(max(2*len(got), FirstBufferSize), MaxBodyBytes+1); cap(got) > limit {
				t.Errorf("ReadBody(nil, %s) returned %d bytes in a buffer of %d, want at most %d", tt.name, len(got), cap(got), limit)
			}
		})
	}
}

// endless is a body that never ends, and counts what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	e.read += len(p)
	return len(p), nil
}

func TestReadBodyStopsAtTheCap(t *testing.T) {
	t.Parallel()
	e := &endless{}
	if _, err := ReadBody(nil, e); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("ReadBody(endless) error = %v, want ErrBodyTooLarge", err)
	}
	if e.read != MaxBodyBytes+1 {
		t.Errorf("ReadBody(endless) read %d bytes, want %d (the cap and one more)", e.read, MaxBodyBytes+1)
	}
}

func TestReadBodyReusesBuffer(t *testing.T) {
	buf := make([]byte, 0, 4096)
	body := []byte(`{"error":3,"message":"name is required"}`)
	r := bytes.NewReader(body)
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(body)
		got, err := ReadBody(buf, r)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("ReadBody = %q, %v; want %q, nil", got, err, body)
		}
	})
	if allocs != 0 {
		t.Errorf("ReadBody into a large enough buffer allocated %v times, want 0", allocs)
	}
}

// TestReadBodyWithMaxBytesReader shows the fake's use: behind
// http.MaxBytesReader, an oversized request is that reader's error, and the
// response is marked to close the connection.
func TestReadBodyWithMaxBytesReader(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	r := http.MaxBytesReader(w, io.NopCloser(&endless{}), MaxBodyBytes)
	got, err := ReadBody(nil, r)
	var mbe *http.MaxBytesError
	if !errors.As(err, &mbe) || mbe.Limit != MaxBodyBytes {
		t.Fatalf("ReadBody(MaxBytesReader) error = %v, want *http.MaxBytesError with limit %d", err, MaxBodyBytes)
	}
	if len(got) != MaxBodyBytes {
		t.Errorf("ReadBody(MaxBytesReader) = %d bytes, want %d", len(got), MaxBodyBytes)
	}
}

func TestReadBodyAtMost(t *testing.T) {
	t.Parallel()
	const limit = 4 << 20 // past MaxBodyBytes: the mock's seed cap is larger
	tests := []struct {
		name     string
		r        io.Reader
		wantLen  int
		wantOver bool
	}{
		{"empty", strings.NewReader(""), 0, false},
		{"exactly the cap", bytes.NewReader(make([]byte, limit)), limit, false},
		{"one byte over the cap", bytes.NewReader(make([]byte, limit+1)), limit, true},
		{"endless", &endless{}, limit, true},
		{"behind MaxBytesReader", http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(&endless{}), limit), limit, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadBodyAtMost(nil, tt.r, limit)
			var mbe *http.MaxBytesError
			if over := errors.As(err, &mbe) && mbe.Limit == limit; len(got) != tt.wantLen || over != tt.wantOver || (!over && err != nil) {
				t.Errorf("ReadBodyAtMost(nil, %s, %d) = %d bytes, %v; want %d bytes, over the cap %t", tt.name, limit, len(got), err, tt.wantLen, tt.wantOver)
			}
			if bound := min(max(2*len(got), FirstBufferSize), limit+1); cap(got) > bound {
				t.Errorf("ReadBodyAtMost(nil, %s, %d) returned %d bytes in a buffer of %d, want at most %d", tt.name, limit, len(got), cap(got), bound)
			}
		})
	}
}
