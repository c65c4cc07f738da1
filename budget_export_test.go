package plantstore

import "time"

// SetRetryBudgetClock gives c's retry budget the clock now, the time since
// an arbitrary start, so that the external tests can move the budget's
// window without waiting. Call it before c's first call.
func SetRetryBudgetClock(c *Client, now func() time.Duration) {
	if c.budget != nil {
		c.budget.now = now
	}
}
