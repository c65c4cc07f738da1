package plantstore_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/plantstore/plantstore-go"
)

// A seeded jitter source replays the waits between retries: log the seed,
// and the same seed gives the same timeline again, in an incident review or
// in a test in fake time (testing/synctest).
func ExampleWithRetryJitterSource() {
	const seed = 42 // in production, a random seed that is logged
	client, err := plantstore.NewClient("https://plants.example.com",
		plantstore.WithToken("secret-token"),
		plantstore.WithRetryJitterSource(rand.NewPCG(seed, 0)))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = client // its retries wait the same times for the same failures
	fmt.Println("ready")
	// Output: ready
}
