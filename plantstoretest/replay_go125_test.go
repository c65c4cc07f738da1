//go:build go1.25

package plantstoretest

// The tests in this file measure the replay of a profile's traffic in a
// testing/synctest bubble, on the in-memory network, where the recorded
// latencies and Retry-After waits are fake time: 10,000 calls take about
// a second of wall time, and the fake's own time is none.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/traffic"
)

// runCalls makes calls creates, one at a time, with a production client
// against a fake in the bubble with opts and faults injected, records them
// as a service would, with a traffic.Recorder through the client's hooks,
// and returns the recording as WriteTo writes it and the fake's journal.
func runCalls(t *testing.T, calls int, faults []Fault, opts ...Option) ([]byte, []Request) {
	t.Helper()
	return runMixCalls(t, mix{}, calls, faults, opts...)
}

// runMixCalls is runCalls, with the calls m.refused says send a plant
// the service refuses.
func runMixCalls(t *testing.T, m mix, calls int, faults []Fault, opts ...Option) ([]byte, []Request) {
	t.Helper()
	s := NewServer(t, append(opts, WithInMemoryNetwork())...)
	for _, f := range faults {
		s.Inject(f)
	}
	rec := traffic.NewRecorder()
	client := s.ProductionClient(plantstore.WithHooks(rec.Hooks()))
	for i := range calls {
		p := plantstore.NewPlant{ID: int64(i + 1), Name: "Fern"}
		if i > 0 && m.refused(i) {
			p.ID = 1 // stored by the first call: a 400 for a repeated id
		}
		_, _ = client.CreatePlant(context.Background(), p)
	}
	if len(s.Faults()) == 0 && len(faults) > 0 {
		t.Fatalf("the calls used up all %d scripted faults: script more", len(faults))
	}
	s.ClearFaults()
	var doc bytes.Buffer
	if _, err := rec.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Bytes(), s.Requests()
}

// parse loads a recording as a consumer does: the document, as it is,
// through ParseProfile.
func parse(t *testing.T, doc []byte) Profile {
	t.Helper()
	p, err := ParseProfile(doc)
	if err != nil {
		t.Fatalf("ParseProfile of the Recorder's document: %v", err)
	}
	return p
}

// ownTime returns the most time the fake added to the delays it was given,
// the i-th request's in delays[i]: its own time, which the bubble makes
// none.
func ownTime(journal []Request, delays []time.Duration) time.Duration {
	var own time.Duration
	for i, r := range journal {
		own = max(own, r.Duration-delays[i])
	}
	return own
}

// replayDelays returns the delays that a replay of rec with seed gives its
// first n requests.
func replayDelays(rec *traffic.Recording, seed int64, n int) []time.Duration {
	r := newReplay(rec, seed)
	out := make([]time.Duration, n)
	for i := range out {
		if f, _ := r.place(nil, Request{}); f != nil {
			out[i] = f.Delay
		}
	}
	return out
}

// quantile reads the q-quantile of a histogram, log-linearly within its
// bucket.
func quantile(buckets []traffic.Bucket, q float64) time.Duration {
	var total int64
	for _, b := range buckets {
		total += b.Count
	}
	rank := q * float64(total)
	var seen float64
	for _, b := range buckets {
		if seen+float64(b.Count) >= rank {
			f := (rank - seen) / float64(b.Count)
			return micros(b.FromUS * math.Pow(b.ToUS/b.FromUS, f))
		}
		seen += float64(b.Count)
	}
	return 0
}

// outcomeName names an outcome in messages: "5xx 503".
func outcomeName(o traffic.Outcome) string {
	if o.Status != 0 {
		return fmt.Sprintf("%s %d", o.Kind, o.Status)
	}
	return string(o.Kind)
}

// fidelity compares a replay's recording with the recording it replayed,
// by issue 29's bars, and returns what missed them and the relative
// differences of the 2xx latency's p50, p95 and p99 and of the mean
// failure run, with every figure in the log. traffic.Compare reporting
// anything is a miss too.
func fidelity(t *testing.T, prod, replayed *traffic.Recording) (misses []string, diffs [4]float64) {
	t.Helper()
	count := func(r *traffic.Recording) map[string]int64 {
		m := map[string]int64{}
		for _, o := range r.Outcomes {
			m[outcomeName(o)] += o.Count
		}
		return m
	}
	a, b := count(prod), count(replayed)
	na, nb := float64(prod.Attempts), float64(replayed.Attempts)
	names := map[string]bool{}
	for n := range a {
		names[n] = true
	}
	for n := range b {
		names[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		pa, pb := float64(a[n])/na, float64(b[n])/nb
		p := float64(a[n]+b[n]) / (na + nb)
		// The 99.9 % interval of the difference of two rates of that size.
		bound := 3.2905 * math.Sqrt(p*(1-p)*(1/na+1/nb))
		t.Logf("rate %-22s recorded %.4f%%  replayed %.4f%%  diff %+.4f pp, 99.9%% interval ±%.4f pp", n, 100*pa, 100*pb, 100*(pb-pa), 100*bound)
		if math.Abs(pb-pa) > bound {
			misses = append(misses, fmt.Sprintf("rate of %s", n))
		}
	}
	lat := func(r *traffic.Recording) []traffic.Bucket {
		for _, o := range r.Outcomes {
			if o.Kind == traffic.KindOK {
				return o.Latency
			}
		}
		return nil
	}
	for i, q := range []float64{0.50, 0.95, 0.99} {
		qa, qb := quantile(lat(prod), q), quantile(lat(replayed), q)
		diff := float64(qb-qa) / float64(qa)
		diffs[i] = diff
		t.Logf("2xx latency p%.0f  recorded %v  replayed %v  diff %+.1f%% (bar ±10%%)", 100*q, qa.Round(10*time.Microsecond), qb.Round(10*time.Microsecond), 100*diff)
		if math.Abs(diff) > 0.10 {
			misses = append(misses, fmt.Sprintf("2xx p%.0f", 100*q))
		}
	}
	ma, mb := meanRun(prod.FailureRuns), meanRun(replayed.FailureRuns)
	t.Logf("mean failure run  recorded %.2f (%d runs)  replayed %.2f (%d runs)  diff %+.1f%% (bar ±20%%)",
		ma, prod.FailureRuns.Runs, mb, replayed.FailureRuns.Runs, 100*(mb-ma)/ma)
	diffs[3] = (mb - ma) / ma
	if math.Abs(diffs[3]) > 0.20 {
		misses = append(misses, "mean failure run")
	}
	// The share of breaks after sending that stored the plant, as the
	// answers after them show: the replay stores in the recorded share.
	storedShare := func(r *traffic.Recording) (float64, int64) {
		if ab := r.AfterBreaks; ab != nil && ab.OK+ab.Refused > 0 {
			return float64(ab.Refused) / float64(ab.OK+ab.Refused), ab.OK + ab.Refused
		}
		return 0, 0
	}
	if sa, na := storedShare(prod); na >= 30 {
		sb, nb := storedShare(replayed)
		t.Logf("breaks that stored  recorded %.2f (%d answers after them)  replayed %.2f (%d)  (bar ±0.15)", sa, na, sb, nb)
		if math.Abs(sb-sa) > 0.15 {
			misses = append(misses, "stored share of breaks")
		}
	}
	for _, c := range traffic.Compare(prod, replayed) {
		t.Logf("drift: %v", c)
		misses = append(misses, "drift: "+c.Subject)
	}
	return misses, diffs
}

// meanRun is the mean length of runs.
func meanRun(runs traffic.Runs) float64 {
	var sum int64
	for _, l := range runs.Lengths {
		sum += int64(l.Length) * l.Count
	}
	return float64(sum) / float64(runs.Runs)
}

// recordAndReplay is issue 29's loop in a bubble: calls creates recorded
// with a traffic.Recorder against a fake scripted with m (from
// mixSeed), the Recorder's document loaded as it is with ParseProfile,
// and calls more recorded against a fake that replays it with replaySeed.
// It fails the test if the fake's own time, measured in each run as its
// journal's durations less the delays it was given, is not zero, and
// returns both recordings.
func recordAndReplay(t *testing.T, m mix, calls int, mixSeed uint64, replaySeed int64) (prod, replayed *traffic.Recording) {
	t.Helper()
	faults := m.faults(calls*11/10, mixSeed)
	doc, journal := runMixCalls(t, m, calls, faults)
	delays := make([]time.Duration, len(journal))
	for i := range delays {
		delays[i] = faults[i].Delay
	}
	if own := ownTime(journal, delays); own != 0 {
		t.Errorf("recording: the fake's own time is up to %v in a bubble, want none", own)
	}
	prod = parse(t, doc).Traffic
	doc, journal = runMixCalls(t, m, calls, nil, WithProfile(parse(t, doc)), WithChaosSeed(replaySeed))
	if own := ownTime(journal, replayDelays(prod, replaySeed, len(journal))); own != 0 {
		t.Errorf("replay: the fake's own time is up to %v in a bubble, want none", own)
	}
	return prod, parse(t, doc).Traffic
}

// TestReplayFidelity is issue 29's fidelity measure, end to end: 10,000
// calls of a production client recorded by a traffic.Recorder against a
// fake scripted with a known mix, its document loaded by ParseProfile as
// it is, then 10,000 calls recorded by another Recorder against a fake
// that replays it. Every outcome's rate must be within its 99.9 % sampling
// interval, the 2xx latency's p50, p95 and p99 within ±10 % (the fake's
// own time, measured, is none in the bubble), the mean failure run within
// ±20 %, and traffic.Compare must see no drift. It does so for knownMix,
// and for knownMix with 1.9 % of calls sending a plant the service
// refuses, 4xx that are half the failures: before v0.4.0 those cut the
// replayed runs to 1.6 from 3.9 (issue 33); and for a mix where 2 % of
// attempts break after sending, half after storing the plant: the replay
// stores in the share the recording's AfterBreaks shows, where it stored
// in every break and doubled the duplicate 400s.
func TestReplayFidelity(t *testing.T) {
	testenv.Long(t) // 10,000 calls each way: a measurement, about 20 s under -race
	t.Parallel()
	bubble.OneProcUnderRace(t)
	const calls = 10_000
	for _, tt := range []struct {
		name string
		mix  mix
	}{
		{"known mix", knownMix},
		{"4xx half the failures", mix4xx},
		{"2 % breaks, half stored", mixBreaks},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var prod, replayed *traffic.Recording
			start := time.Now()
			synctest.Test(t, func(t *testing.T) {
				prod, replayed = recordAndReplay(t, tt.mix, calls, 29, 29)
			})
			t.Logf("%d calls: %d attempts recorded, %d replayed, in %v of wall time", calls, prod.Attempts, replayed.Attempts, time.Since(start).Round(time.Millisecond))
			if misses, _ := fidelity(t, prod, replayed); len(misses) > 0 {
				t.Errorf("the replay missed the bars for %v (figures in the log)", misses)
			}
		})
	}
}

// TestReplayFidelitySeeds runs TestReplayFidelity's measure with ten other
// seeds (a long test). At 10,000 calls the bars for p99 and the mean run
// are near the sampling error of the two recordings themselves (about 7 %
// for p99, whose tail holds 100 attempts, and 19 % for a mean of some 45
// runs), so single seeds may miss them; the test asks that no rate miss its
// 99.9 % interval more than once in the ten, that traffic.Compare see no
// drift in any, and that the mean absolute difference over the seeds be
// within the bars.
func TestReplayFidelitySeeds(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	bubble.OneProcUnderRace(t)
	const calls, seeds = 10_000, 10
	rateMisses, drifts := 0, 0
	var sum [4]float64
	for seed := range uint64(seeds) {
		var misses []string
		var diffs [4]float64
		synctest.Test(t, func(t *testing.T) {
			prod, replayed := recordAndReplay(t, knownMix, calls, 100+seed, int64(seed))
			misses, diffs = fidelity(t, prod, replayed)
		})
		for _, m := range misses {
			switch {
			case strings.HasPrefix(m, "rate"):
				rateMisses++
			case strings.HasPrefix(m, "drift"):
				drifts++
			}
		}
		for i, d := range diffs {
			sum[i] += math.Abs(d)
		}
		t.Logf("seed %d: misses %v; p50 %+.1f%% p95 %+.1f%% p99 %+.1f%% run %+.1f%%", seed, misses, 100*diffs[0], 100*diffs[1], 100*diffs[2], 100*diffs[3])
	}
	t.Logf("over %d seeds: mean |diff| p50 %.1f%% p95 %.1f%% p99 %.1f%% run %.1f%%; %d rates outside their 99.9%% interval; %d drifts",
		seeds, 100*sum[0]/seeds, 100*sum[1]/seeds, 100*sum[2]/seeds, 100*sum[3]/seeds, rateMisses, drifts)
	if rateMisses > 1 || drifts > 0 || sum[2]/seeds > 0.10 || sum[3]/seeds > 0.20 {
		t.Errorf("the replay is further from the recordings than sampling explains (figures in the log)")
	}
}

// TestReplayIsItsFaults checks that 10,000 calls against a replay and the
// same calls against its decisions injected as Faults get the same
// replies, at the same fake times; it logs the wall time of each, which
// BenchmarkReplay measures.
func TestReplayIsItsFaults(t *testing.T) {
	testenv.Long(t) // 10,000 calls each way: a measurement, about 20 s under -race
	t.Parallel()
	bubble.OneProcUnderRace(t)
	rec := testRecording(t)
	const calls = 10_000
	var replayed, scripted []Request
	start := time.Now()
	synctest.Test(t, func(t *testing.T) {
		_, replayed = runCalls(t, calls, nil, WithProfile(Profile{Traffic: rec}), WithChaosSeed(5))
	})
	replayWall := time.Since(start)
	start = time.Now()
	synctest.Test(t, func(t *testing.T) {
		r := newReplay(rec, 5)
		faults := make([]Fault, calls*11/10)
		for i := range faults {
			if f, _ := r.place(nil, Request{}); f != nil {
				faults[i] = *f
			} else {
				faults[i] = Fault{Delay: 0, Header: map[string][]string{"X-Replay": {"none"}}}
			}
		}
		_, scripted = runCalls(t, calls, faults)
	})
	t.Logf("%d calls, %d requests: wall %v replayed, %v scripted as Faults", calls, len(replayed), replayWall.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	{
		type seen struct {
			Status   int
			Outcome  Outcome
			Duration time.Duration
		}
		view := func(rs []Request) []seen {
			out := make([]seen, len(rs))
			for i, r := range rs {
				out[i] = seen{r.Status, r.Outcome, r.Duration}
			}
			return out
		}
		if diff := gocmp.Diff(view(scripted), view(replayed)); diff != "" {
			t.Errorf("the replay and its decisions as Faults (-faults +replay):\n%s", diff)
		}
	}
}

var updateTraffic = flag.Bool("update", false, "rewrite testdata/traffic.json from a traffic.Recorder")

// TestTrafficTestdata checks that testdata/traffic.json, the recording
// ExampleProfile_traffic replays, is what a traffic.Recorder writes for
// 10,000 calls against a fake scripted with knownMix (seed 1), byte for
// byte; -update rewrites it.
func TestTrafficTestdata(t *testing.T) {
	testenv.Long(t) // 10,000 calls: about 11 s under -race
	t.Parallel()
	bubble.OneProcUnderRace(t)
	var doc []byte
	synctest.Test(t, func(t *testing.T) {
		doc, _ = runCalls(t, 10_000, knownMix.faults(11_000, 1))
	})
	const file = "testdata/traffic.json"
	if *updateTraffic {
		if err := os.WriteFile(file, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(string(doc), string(got)); diff != "" {
		t.Errorf("%s is not what the Recorder writes (-recorder +file); go test -run TestTrafficTestdata -update rewrites it:\n%s", file, diff)
	}
}
