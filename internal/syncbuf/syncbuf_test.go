package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestBufferConcurrentWrites writes from many goroutines at once (the race
// detector checks the locking) and checks that every write arrived whole.
func TestBufferConcurrentWrites(t *testing.T) {
	const writers, line = 8, "0123456789\n"
	var b Buffer
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n, err := b.Write([]byte(line)); n != len(line) || err != nil {
				t.Errorf("Write(%q) = %d, %v; want %d, nil", line, n, err, len(line))
			}
		}()
	}
	wg.Wait()
	if got, want := b.String(), strings.Repeat(line, writers); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
