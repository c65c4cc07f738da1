package plantstore_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// FuzzRoundTrip sends plants through the client to the fake: every plant the
// client accepts must be stored exactly as sent and echoed as a Plant, and
// every plant it refuses must be refused locally with a *ValidationError.
func FuzzRoundTrip(f *testing.F) {
	f.Add(int64(7), "Monstera", "indoor")
	f.Add(int64(math.MaxInt64), "Ficus \"lyrata\"", "")
	f.Add(int64(math.MinInt64), "Fern\x00\n\t\\", "tag\u2028<&>")
	f.Add(int64(0), "植物 🌱", "é")
	f.Add(int64(-1), "", "no name")
	f.Add(int64(1), "bad \xff utf-8", "")
	f.Add(int64(2), "\ufffd", "\U0010FFFF")

	srv := plantstoretest.NewServer(f, plantstoretest.WithAllowDuplicateIDs())
	client := srv.Client(plantstore.WithMaxRetries(0))
	f.Fuzz(func(t *testing.T, id int64, name, tag string) {
		in := plantstore.NewPlant{ID: id, Name: name, Tag: tag}
		srv.Reset()
		got, err := client.CreatePlant(context.Background(), in)
		if name == "" || !utf8.ValidString(name) || !utf8.ValidString(tag) {
			var invalid *plantstore.ValidationError
			if !errors.As(err, &invalid) {
				t.Fatalf("CreatePlant(%+v) error = %v, want a *ValidationError", in, err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("CreatePlant(%+v) sent %d requests, want 0", in, n)
			}
			return
		}
		if err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", in, err)
		}
		if diff := cmp.Diff(&plantstore.Plant{Name: name, Tag: tag}, got); diff != "" {
			t.Errorf("CreatePlant(%+v) returned plant mismatch (-want +got):\n%s", in, diff)
		}
		if diff := cmp.Diff([]plantstore.NewPlant{in}, srv.Plants()); diff != "" {
			t.Errorf("CreatePlant(%+v) stored plants mismatch (-want +got):\n%s", in, diff)
		}
	})
}
