//go:build go1.25

package conformance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// TestNewServerInFakeTime runs the whole kit, control checks included,
// inside a synctest bubble against a fake on its in-memory network, as a
// consumer's fake-time test would: the same answers as on loopback, and
// the kit's timeouts and the faults' Retry-After cost no real time.
func TestNewServerInFakeTime(t *testing.T) {
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		// Run's subtests cannot start inside a bubble (t.Run panics
		// there), so a fake-time test takes the report and checks it.
		rep, err := conformance.RunReport(context.Background(), conformance.Target{
			URL:    srv.URL,
			Token:  plantstoretest.DefaultToken,
			Client: srv.HTTPClient(),
			Fake:   srv,
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAgreesWithFake(t, rep)
		for _, id := range []string{"retry-after-429", "retry-after-503", "control-stored"} {
			if c := rep.Check(id); c.Outcome == conformance.Skipped {
				t.Errorf("check %s skipped: %s", id, c.Problem)
			}
		}
	})
}

// bubbleChildEnv makes TestRunInBubbleChild run, in the child process of
// TestRunInBubbleFails.
const bubbleChildEnv = "CONFORMANCE_BUBBLE_CHILD"

// TestRunInBubbleChild is a consumer's mistake: Run inside a synctest
// bubble, where t.Run panics. It runs only as TestRunInBubbleFails's child.
func TestRunInBubbleChild(t *testing.T) {
	if os.Getenv(bubbleChildEnv) != "1" {
		t.Skip("runs only as TestRunInBubbleFails's child")
	}
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		_, file, line, _ := runtime.Caller(0)
		fmt.Printf("RUN AT %s:%d\n", filepath.Base(file), line+2) // the line of Run
		conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Client: srv.HTTPClient(), Fake: srv})
		fmt.Println("RUN RETURNED")
	})
}

// TestRunInBubbleFails checks that Run inside a synctest bubble fails the
// test at once, at the test's line that called it, naming RunReport, the
// function to use there; not with the testing package's panic, nor after
// a run of the checks.
func TestRunInBubbleFails(t *testing.T) {
	t.Parallel()
	out := runFailingChild(t, "TestRunInBubbleChild", bubbleChildEnv)
	if strings.Contains(out, "panic:") || strings.Contains(out, "RUN RETURNED") {
		t.Errorf("the child panicked or Run returned; output:\n%s", out)
	}
	at := regexp.MustCompile(`(?m)^RUN AT (\S+)$`).FindStringSubmatch(out)
	if at == nil {
		t.Fatalf("the child did not say where it calls Run:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(at[1]) + `: conformance: .*synctest bubble.*RunReport`).MatchString(out) {
		t.Errorf("no failure at %s that names RunReport; output:\n%s", at[1], out)
	}
}
