//go:build go1.25

package plantstoretest

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
)

// TestNewServerRefusesLoopbackInBubble checks that NewServer on a loopback
// socket inside a synctest bubble, which would hang the test once fake time
// must advance, fails the test at once with a message that names the
// option to use; and that the option, or the same call outside a bubble,
// is accepted.
func TestNewServerRefusesLoopbackInBubble(t *testing.T) {
	bubble.OneProcUnderRace(t)
	tests := []struct {
		name     string
		opts     []Option
		inBubble bool
		refused  bool
		names    string // what the refusal names
	}{
		{"loopback in a bubble", nil, true, true, "WithInMemoryNetwork"},
		{"loopback TLS in a bubble", []Option{WithTLS()}, true, true, "WithInMemoryNetwork"},
		{"in memory in a bubble", []Option{WithInMemoryNetwork()}, true, false, ""},
		{"loopback outside a bubble", nil, false, false, ""},
		// Before Go 1.26, net/http's HTTP/2 server crashes the program in a bubble.
		{"HTTP/2 in memory in a bubble", []Option{WithInMemoryNetwork(), WithTLS(), WithHTTP2()}, true, !bubble.HTTP2, "Go 1.26"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T) {
				tb := &fakeTB{}
				returned := runFatal(func() { NewServer(tb, tt.opts...) })
				tb.cleanup() // inside the bubble, so that synctest.Test finds no goroutine left
				if !tt.refused {
					if !returned || len(tb.fatals) != 0 {
						t.Errorf("NewServer: returned %v, Fatalf calls %q; want it to return", returned, tb.fatals)
					}
					return
				}
				if returned {
					t.Errorf("NewServer returned, want tb.Fatalf")
				}
				if len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], tt.names) {
					t.Errorf("Fatalf calls = %q, want one that names %s", tb.fatals, tt.names)
				}
			}
			if tt.inBubble {
				synctest.Test(t, check)
			} else {
				check(t)
			}
		})
	}
}

// TestHelperChildBubble is a misuse of TestHelperChild inside a synctest
// bubble, where tb.Helper leads the cleanup's reports into package testing:
// a fault left unused. It runs only as TestFailuresPointAtTheTest's child.
func TestHelperChildBubble(t *testing.T) {
	if os.Getenv(helperChildEnv) == "" {
		t.Skip("run by TestFailuresPointAtTheTest")
	}
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		s := NewServer(t, WithInMemoryNetwork())
		want(t)
		s.Inject(Fault{Status: http.StatusServiceUnavailable})
	})
}

// bubbleChildEnv makes TestLoopbackInBubbleChild run, in the child process
// of TestLoopbackInBubbleFailsAtOnce.
const bubbleChildEnv = "PLANTSTORETEST_BUBBLE_CHILD"

// TestLoopbackInBubbleChild is the new user's mistake: a loopback NewServer
// in a bubble and a 503 with "Retry-After: 30". It runs only as the child
// of TestLoopbackInBubbleFailsAtOnce.
func TestLoopbackInBubbleChild(t *testing.T) {
	if os.Getenv(bubbleChildEnv) == "" {
		t.Skip("run by TestLoopbackInBubbleFailsAtOnce")
	}
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		srv := NewServer(t)
		srv.Inject(Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"30"}}})
		srv.ProductionClient().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	})
}

// TestLoopbackInBubbleFailsAtOnce runs the mistake in a child process with
// a timeout of a minute (go test's default is ten): the child must fail
// with the message that names WithInMemoryNetwork, not time out.
func TestLoopbackInBubbleFailsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoopbackInBubbleChild$", "-test.v", "-test.timeout=1m")
	cmd.Env = append(os.Environ(), bubbleChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed; output:\n%s", out)
	}
	if strings.Contains(string(out), "test timed out") {
		t.Fatalf("the child hung until its timeout; output:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^\s+bubble_go125_test\.go:\d+: plantstoretest: .*WithInMemoryNetwork`).Match(out) {
		t.Errorf("the child's failure is not at its line of NewServer, or does not name WithInMemoryNetwork; output:\n%s", out)
	}
}

// TestBubbleStacks: Explore's report of a hang shows the goroutines of the
// newest bubble, the one that hung, and not those of an older one still
// running beside it.
func TestBubbleStacks(t *testing.T) {
	release, older := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		synctest.Test(t, func(*testing.T) {
			close(older)
			<-release // outside the bubble: not durably blocked
		})
	}()
	<-older
	var got string
	synctest.Test(t, func(*testing.T) {
		wait := make(chan struct{})
		go waitInNewestBubble(wait)
		synctest.Wait()
		got = bubbleStacks()
		close(wait)
	})
	close(release)
	<-done
	var bubbles []string
	for _, m := range regexp.MustCompile(`synctest bubble (\d+)\]`).FindAllStringSubmatch(got, -1) {
		bubbles = append(bubbles, m[1])
	}
	if !strings.Contains(got, "waitInNewestBubble") || len(bubbles) < 2 || strings.Count(got, "synctest bubble "+bubbles[0]+"]") != len(bubbles) {
		t.Errorf("bubbleStacks() shows bubbles %v, want the newest's goroutines only, waitInNewestBubble among them:\n%s", bubbles, got)
	}
}

func waitInNewestBubble(wait chan struct{}) { <-wait }
