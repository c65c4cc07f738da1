package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	h2cpkg "github.com/plantstore/plantstore-go/internal/h2c"
	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// procStatus is field (such as "VmHWM", the peak resident set size, or
// "VmRSS", the resident set size now) of process pid, from
// /proc/PID/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the mock's /proc status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("parsing %s %q: %v", field, line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// fill returns size bytes: head, then unit repeated, then tail.
func fill(size int, head, unit, tail string) []byte {
	n := (size - len(head) - len(tail)) / len(unit)
	var b bytes.Buffer
	b.Grow(len(head) + n*len(unit) + len(tail))
	b.WriteString(head)
	for i := 0; i < n; i++ {
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// manyNames is a fault of size bytes whose headers have as many distinct
// names as fit.
func manyNames(size int) []byte {
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(`{"status":503,"headers":{"h":""`)
	for i := 0; ; i++ {
		field := fmt.Sprintf(`,"h%d":""`, i)
		if b.Len()+len(field)+2 > size {
			break
		}
		b.WriteString(field)
	}
	b.WriteString("}}")
	return b.Bytes()
}

// tinyPlants is a seed of the most plants that fit in size bytes, the
// shortest plants there are, and then last as its final element.
func tinyPlants(size int, last string) []byte {
	var b bytes.Buffer
	b.Grow(size)
	b.WriteByte('[')
	for i := 0; ; i++ {
		elem := fmt.Sprintf(`{"id":%d,"name":"a"},`, i)
		if b.Len()+len(elem)+len(last)+1 > size {
			break
		}
		b.WriteString(elem)
	}
	b.WriteString(last)
	b.WriteByte(']')
	return b.Bytes()
}

// TestControlBodyMemory sends each control endpoint the largest body it
// accepts, in the shapes that cost a decoder most, to the built binary, and
// measures the process's peak resident memory from outside (VmHWM): it may
// rise by at most 3× the body, and 1 MiB of runtime slack. A seed or fault
// that is stored may in addition keep what it costs in the store: a fault
// its body, a plant perPlant bytes and its name. Each shape gets a fresh process, as
// VmHWM only grows. Linux only.
func TestControlBodyMemory(t *testing.T) {
	testenv.Long(t)
	if runtime.GOOS != "linux" {
		t.Skip("skipping: reads /proc/PID/status")
	}
	exe := buildPlainMock(t)
	const seedMax, faultMax = mockserver.MaxSeedBody, mockserver.MaxFaultBody
	const scheduleMax = 65536 + 15 // the longest text PUT /__plantstore/schedule takes, in its JSON
	// perPlant bounds what the store keeps per stored plant beyond its name
	// and tag: BenchmarkPlantMemory's bar (bench/BENCHMARKS.md).
	const perPlant = 100
	// runtimeSlack is what serving any request may add to the peak whatever
	// its body (the connection's buffers, the GC's metadata, pages the heap
	// maps as it grows): about 0.9 MiB measured, which only a 1 MiB body
	// notices. The seeds pass without it.
	const runtimeSlack = 1 << 20
	name1MiB := strings.Repeat("n", 1<<20-64)
	var longNames bytes.Buffer
	longNames.WriteByte('[')
	for i := 0; longNames.Len()+len(name1MiB)+64 < seedMax; i++ {
		if i > 0 {
			longNames.WriteByte(',')
		}
		fmt.Fprintf(&longNames, `{"id":%d,"name":"%s"}`, i, name1MiB)
	}
	longNames.WriteByte(']')
	stored := tinyPlants(seedMax, `{"id":-1,"name":"a"}`)
	tests := []struct {
		name       string
		path       string
		body       []byte
		wantStatus int
		keeps      int64 // what the store keeps (perPlant a plant, and its name), or a string held decoded
	}{
		{"seed of tiny elements", "/__plantstore/plants", fill(seedMax, "[", "0,", "0]"), 400, 0},
		{"seed nested deeply", "/__plantstore/plants", fill(seedMax, "", "[", ""), 400, 0}, // 16 Mi brackets, all open
		{"seed of one long string", "/__plantstore/plants", fill(seedMax, `[{"id":1,"name":"`, "x", `"}]`), 400, 0},
		{"seed of tiny plants, the last bad", "/__plantstore/plants", tinyPlants(seedMax, `{"id":-1,"name":""}`), 400, 0},
		{"seed of tiny plants, stored", "/__plantstore/plants", stored, 201, int64(bytes.Count(stored, []byte(`"id"`))) * (perPlant + 1)},
		{"seed of long names, stored", "/__plantstore/plants", longNames.Bytes(), 201, int64(bytes.Count(longNames.Bytes(), []byte(`"id"`))) * (perPlant + int64(len(name1MiB)))},
		{"fault with a long body", "/__plantstore/faults", fill(faultMax, `{"status":503,"body":"`, "x", `"}`), 201, faultMax},
		{"fault of tiny header values", "/__plantstore/faults", fill(faultMax, `{"status":503,"headers":{"X-A":[`, `"a",`, `"a"]}}`), 400, 0},
		{"fault of many header names", "/__plantstore/faults", manyNames(faultMax), 400, 0},
		{"fault nested deeply", "/__plantstore/faults", fill(faultMax, `{"status":503,"headers":{"X-A":`, "[", ""), 400, 0},
		// A fault of one long string holds it decoded, as encoding/json
		// copies it, while it is refused: as if it kept it (3.8-3.9x).
		{"fault of one long kind", "/__plantstore/faults", fill(faultMax, `{"kind":"`, "x", `"}`), 400, faultMax},
		{"fault of one long modifier", "/__plantstore/faults", fill(faultMax, `{"kind":"503 after=`, "x", `"}`), 400, faultMax},
		{"fault of one long delay", "/__plantstore/faults", fill(faultMax, `{"delay":"`, "x", `"}`), 400, faultMax},
		{"schedule of empty items", "/__plantstore/schedule", fill(scheduleMax, `{"schedule":"`, ",", `"}`), 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.body) > seedMax || (strings.HasSuffix(tt.path, "faults") && len(tt.body) > faultMax) {
				t.Fatalf("body of %d bytes is over the endpoint's limit", len(tt.body))
			}
			m := startMock(t, exe, "-max-plants", "10000000")
			pid := m.cmd.Process.Pid
			// A first small call, so that the baseline includes what any
			// control call costs.
			if status := post(t, m.url+"/__plantstore/reset", nil); status != 204 {
				t.Fatalf("reset = %d, want 204", status)
			}
			before := procStatus(t, pid, "VmHWM")
			method := http.MethodPost
			if strings.HasSuffix(tt.path, "schedule") {
				method = http.MethodPut
			}
			if status := send(t, method, m.url+tt.path, tt.body); status != tt.wantStatus {
				t.Fatalf("%s %s = %d, want %d; stderr:\n%s", method, tt.path, status, tt.wantStatus, m.stderr.String())
			}
			rise := procStatus(t, pid, "VmHWM") - before
			limit := 3*int64(len(tt.body)) + tt.keeps + runtimeSlack
			t.Logf("%d-byte body: peak RSS %d KiB before, +%d KiB (%.2f× the body; limit %d KiB)",
				len(tt.body), before>>10, rise>>10, float64(rise)/float64(len(tt.body)), limit>>10)
			if rise > limit {
				t.Errorf("peak RSS rose by %d KiB for a %d KiB body, want at most %d KiB", rise>>10, len(tt.body)>>10, limit>>10)
			}
		})
	}
}

// post sends body as JSON to url and returns the status.
func post(t *testing.T, url string, body []byte) int {
	t.Helper()
	return send(t, http.MethodPost, url, body)
}

// send sends body as JSON to url with method and returns the status.
func send(t *testing.T, method, url string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestProfiledReplyMemory starts the built binary with a -profile whose
// duplicate_id body puts the plant's name in, creates a plant, sends the
// same create again, and measures the process's peak resident memory from
// outside (VmHWM) across the repeated create: however many {name}
// placeholders the body holds, it may rise by at most 4× the request and
// twice the runtime slack of TestControlBodyMemory, and a reply that would be
// over the 1 MiB a Profile allows is the fake's own 400. Each case gets
// a fresh process, as VmHWM only grows. Linux only.
func TestProfiledReplyMemory(t *testing.T) {
	testenv.Long(t)
	if runtime.GOOS != "linux" {
		t.Skip("skipping: reads /proc/PID/status")
	}
	exe := buildPlainMock(t)
	const runtimeSlack = 1 << 20
	const echo = `{"error":1009,"message":"{name} is taken"}`
	// fits is the longest name echo puts in a reply of 1 MiB, the most a Profile allows.
	fits := 1<<20 - len(echo) + len(plantstoretest.NamePlaceholder)
	tests := []struct {
		name       string
		body       string // the profile's duplicate_id body
		plantName  string // sent as it is: nothing in it needs escaping
		wantStatus int
		wantBody   string // a prefix of the repeated create's reply
	}{
		// The case: 16,380 bytes of placeholders and a 50 KB name
		// made a 130 MiB reply.
		{"2,730 names, a 50 KB name", strings.Repeat(plantstoretest.NamePlaceholder, 2730), strings.Repeat("n", 50_000), 400,
			`{"error":5,"message":"plant 1 already exists; the profile's duplicate_id reply`},
		// 398 bytes received, a reply of 1 MB were it built: 16 KiB and the name twice at most.
		{"2,730 names, a 380-byte name", strings.Repeat(plantstoretest.NamePlaceholder, 2730), strings.Repeat("n", 380), 400,
			`{"error":5,"message":"plant 1 already exists; the profile's duplicate_id reply`},
		{"one name, the longest that fits", echo, strings.Repeat("n", fits), 409, `{"error":1009,"message":"nnnn`},
		{"one name, escaped to twice its bytes", echo, strings.Repeat("\u2028", fits/3), 400,
			`{"error":5,"message":"plant 1 already exists; the profile's duplicate_id reply`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profile := filepath.Join(t.TempDir(), "profile.json")
			data, err := json.Marshal(plantstoretest.Profile{DuplicateID: &plantstoretest.ProfileReply{Status: 409, Body: tt.body}})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(profile, data, 0o644); err != nil {
				t.Fatal(err)
			}
			m := startMock(t, exe, "-profile", profile)
			pid := m.cmd.Process.Pid
			// As JSON, but with U+2028 sent as it is, where encoding/json
			// escapes it.
			create := []byte(`{"id":1,"name":"` + tt.plantName + `"}`)
			if len(create) > wire.MaxBodyBytes {
				t.Fatalf("create of %d bytes is over the fake's limit", len(create))
			}
			if status, body := createRaw(t, m.url, create); status != 200 {
				t.Fatalf("first create = %d %.200s, want 200; stderr:\n%s", status, body, m.stderr.String())
			}
			before := procStatus(t, pid, "VmHWM")
			status, body := createRaw(t, m.url, create)
			rise := procStatus(t, pid, "VmHWM") - before
			if status != tt.wantStatus || !strings.HasPrefix(body, tt.wantBody) {
				t.Errorf("repeated create = %d %.300s…, want %d %s…", status, body, tt.wantStatus, tt.wantBody)
			}
			// The create is read, decoded and journaled, and a reply over
			// the bound is found out by escaping the name a piece at a
			// time: garbage the collector takes when the heap has grown,
			// by as much as the live heap again. Measured: +0.3 to 4.5 MiB
			// for the 1 MiB create escaped to twice its bytes.
			limit := 4*int64(len(create)) + 2*runtimeSlack
			t.Logf("%d-byte create, %d-byte reply: peak RSS %d KiB before, +%d KiB (limit %d KiB)",
				len(create), len(body), before>>10, rise>>10, limit>>10)
			if rise > limit {
				t.Errorf("peak RSS rose by %d KiB for a %d KiB create, want at most %d KiB", rise>>10, len(create)>>10, limit>>10)
			}
		})
	}
}

// createRaw sends body to url's POST /plants with the default token, and
// returns the status and the reply's body.
func createRaw(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/plants", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /plants: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the reply: %v", err)
	}
	return resp.StatusCode, string(b)
}

// TestRequestsInFlightMemory checks that -max-conns bounds the requests in
// flight whatever the protocol: one h2c connection carrying 48 streams of 1
// MiB − 1 byte that never end raises the mock's peak RSS (VmHWM, from
// /proc) by what two such requests hold, as two HTTP/1.1 connections would,
// not by what 48 do (70 MiB before the bound). The streams beyond the bound
// wait for a slot, and the connection's flow-control window bounds what
// they send meanwhile.
// It measures once the peak has not moved for a second.
// Linux only.
func TestRequestsInFlightMemory(t *testing.T) {
	testenv.Long(t)
	if runtime.GOOS != "linux" {
		t.Skip("skipping: reads /proc/PID/status")
	}
	if !h2cpkg.Supported {
		t.Skip("h2c needs Go 1.24 or later")
	}
	const streams, maxConns, size = 48, 2, 1<<20 - 1
	m := startMock(t, buildPlainMock(t), "-token", "T", "-max-conns", strconv.Itoa(maxConns))
	pid := m.cmd.Process.Pid
	if status := post(t, m.url+"/__plantstore/reset", nil); status != 204 {
		t.Fatalf("reset = %d, want 204", status)
	}
	before := procStatus(t, pid, "VmHWM")

	tr := &http.Transport{}
	h2cpkg.Speak(tr)
	defer tr.CloseIdleConnections()
	stall := make(chan struct{})
	var sent atomic.Int64
	var done sync.WaitGroup
	defer func() { close(stall); done.Wait() }()
	for i := range streams {
		body := fmt.Sprintf(`{"id":%d,"name":"%s`, i, strings.Repeat("n", size))[:size]
		req, err := http.NewRequest(http.MethodPost, m.url+"/plants", &stallingReader{r: strings.NewReader(body), n: &sent, stall: stall})
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = size + 1 // one byte that never comes
		req.Header.Set("Authorization", "Bearer T")
		req.Header.Set("Content-Type", "application/json")
		done.Add(1)
		go func() {
			defer done.Done()
			if resp, err := tr.RoundTrip(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	// Once two streams' bodies are on their way, the peak settles where the
	// bound holds it: measure once it has not moved for a second.
	deadline := time.Now().Add(20 * time.Second)
	for sent.Load() < maxConns*size && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for last, still := int64(-1), 0; still < 10 && time.Now().Before(deadline); {
		if hwm := procStatus(t, pid, "VmHWM"); hwm != last {
			last, still = hwm, 0
		} else {
			still++
		}
		time.Sleep(100 * time.Millisecond)
	}
	rise := procStatus(t, pid, "VmHWM") - before
	// Two requests' bodies as the handler reads them (a buffer that doubles,
	// so up to twice each), the connection's window for the streams that
	// wait, and twice the runtime slack of TestControlBodyMemory.
	limit := int64(maxConns*2*size + maxStreams*maxStreamBuffer + 2<<20)
	t.Logf("%d h2c streams of %d bytes, -max-conns %d: %d KiB sent, peak RSS +%d KiB (limit %d KiB)",
		streams, size, maxConns, sent.Load()>>10, rise>>10, limit>>10)
	if rise > limit {
		t.Errorf("peak RSS rose by %d KiB with %d stalled h2c streams and -max-conns %d, want at most %d KiB",
			rise>>10, streams, maxConns, limit>>10)
	}
}

// stallingReader reads r, counting the bytes in n, then blocks until stall
// is closed.
type stallingReader struct {
	r     io.Reader
	n     *atomic.Int64
	stall chan struct{}
}

func (s *stallingReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n.Add(int64(n))
	if err == io.EOF {
		<-s.stall
		return 0, io.ErrUnexpectedEOF
	}
	return n, err
}

// TestScheduleMemory is issue 41's measure of schedules against
// -max-stored-mib, from outside the built mock: 300 namespaces each sent
// the longest schedule PUT /__plantstore/schedule takes (65,536
// characters, some 7,400 faults) under -max-stored-mib 1. Those the budget
// has room for are kept, the others refused with 400 and code 11 naming
// the flag, and the peak RSS (VmHWM) rises by at most twice the budget and
// 8 MiB of runtime slack. Before schedules were counted, all 300 were kept
// and the peak rose by 113 MiB. Linux only.
func TestScheduleMemory(t *testing.T) {
	testenv.Long(t)
	if runtime.GOOS != "linux" {
		t.Skip("skipping: reads /proc/PID/status")
	}
	const n, budget, slack = 300, 1 << 20, 8 << 20
	m := startMock(t, buildPlainMock(t), "-token", "mem-token", "-max-stored-mib", "1")
	pid := m.cmd.Process.Pid
	var text strings.Builder // faults on requests 1, 2, ..., then spaces
	for i := 1; ; i++ {
		item := fmt.Sprintf("%d:503", i)
		if i > 1 {
			item = "," + item
		}
		if text.Len()+len(item) > 65536 {
			break
		}
		text.WriteString(item)
	}
	text.WriteString(strings.Repeat(" ", 65536-text.Len()))
	body, err := json.Marshal(map[string]string{"schedule": text.String()})
	if err != nil {
		t.Fatal(err)
	}
	c := newNSClient()
	spaces := make([]nsCreated, n)
	for i := range spaces {
		spaces[i] = c.create(t, m.url, "")
	}
	before, rssBefore := procStatus(t, pid, "VmHWM"), procStatus(t, pid, "VmRSS")
	kept := 0
	for _, ns := range spaces {
		status, b, err := c.do("PUT", ns.BaseURL+"/__plantstore/schedule", string(body), ns.Token)
		switch {
		case err != nil:
			t.Fatalf("PUT schedule: %v", err)
		case status == http.StatusNoContent:
			kept++
		case status != 400 || !bytes.Contains(b, []byte(fmt.Sprintf(`"error":%d,`, plantstoretest.CodeStoreFull))) || !bytes.Contains(b, []byte("-max-stored-mib")):
			t.Fatalf("PUT schedule = %d %.300s, want 204 or the refusal of a full budget", status, b)
		}
	}
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("%d namespaces × a schedule of 65,536 characters, -max-stored-mib 1: %d kept; VmHWM %.1f → %.1f MiB, VmRSS %.1f → %.1f MiB",
		n, kept, mib(before), mib(peak), mib(rssBefore), mib(procStatus(t, pid, "VmRSS")))
	if kept == 0 || kept == n {
		t.Errorf("kept %d schedules of %d, want some, and a refusal once the budget is full", kept, n)
	}
	if peak-before > 2*budget+slack {
		t.Errorf("VmHWM rose by %.1f MiB, want at most %.0f", mib(peak-before), mib(2*budget+slack))
	}
}
