package plantstoretest

import "testing"

// TestExploreReports: Explore's last line counts schedules and faults in
// words that agree with the count, one included, and says that a crash's
// plain WithSchedule line needs the code run again after each restart.
func TestExploreReports(t *testing.T) {
	t.Parallel()
	one := schedule{{at: 2, fault: mustFault("store-drop")}}
	crash := schedule{{at: 3, to: 3, fault: mustFault("crash")}}
	three := schedule{{at: 1, fault: mustFault("503")}, {at: 2, fault: mustFault("store-drop")}, {at: 4, fault: mustFault("delay")}}
	tests := []struct {
		name           string
		ran            int
		first, minimal schedule
		passed         bool
		want           string
	}{
		{"one run passed", 1, nil, nil, true, "plantstoretest: Explore: 1 schedule, no failure; runs that reached each outcome: stored 0, ErrAlreadyExists 0, refused 0, ErrMaybeCreated 0, ErrRetryBudgetExhausted 0, a deadline 0, a restart 0"},
		{"runs passed", 1000, nil, nil, true, "plantstoretest: Explore: 1000 schedules, no failure; runs that reached each outcome: stored 0, ErrAlreadyExists 0, refused 0, ErrMaybeCreated 0, ErrRetryBudgetExhausted 0, a deadline 0, a restart 0"},
		{"no fault failed", 1, nil, nil, false, `plantstoretest: Explore: the scenario fails under the schedule "" (0 faults, shrunk from 0, after 1 schedule); ` +
			`reproduce it in fake time with plantstoretest.ExploreOnly("") among this Explore's options, or with NewServer(t, plantstoretest.WithSchedule("")), whose waits take 0s of real time`},
		{"one fault", 9, one, one, false, `plantstoretest: Explore: the scenario fails under the schedule "2:store-drop" (1 fault, shrunk from 1, after 9 schedules); ` +
			`reproduce it in fake time with plantstoretest.ExploreOnly("2:store-drop") among this Explore's options, or with NewServer(t, plantstoretest.WithSchedule("2:store-drop")), whose waits take 0s of real time`},
		{"shrunk to one", 40, three, one, false, `plantstoretest: Explore: the scenario fails under the schedule "2:store-drop" (1 fault, shrunk from 3, after 40 schedules); ` +
			`reproduce it in fake time with plantstoretest.ExploreOnly("2:store-drop") among this Explore's options, or with NewServer(t, plantstoretest.WithSchedule("2:store-drop")), whose waits take 0s of real time`},
		{"a crash", 12, crash, crash, false, `plantstoretest: Explore: the scenario fails under the schedule "3:crash" (1 fault, shrunk from 1, after 12 schedules); ` +
			`reproduce it in fake time with plantstoretest.ExploreOnly("3:crash") among this Explore's options, or with NewServer(t, plantstoretest.WithSchedule("3:crash")) ` +
			`(your code run again while srv.Restart()), whose waits take 0s of real time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := explorer{ran: tt.ran}
			got := e.passed()
			if !tt.passed {
				got = e.failed(tt.first, tt.minimal)
			}
			if got != tt.want {
				t.Errorf("Explore's report after %d schedules:\n got %s\nwant %s", tt.ran, got, tt.want)
			}
		})
	}
}
