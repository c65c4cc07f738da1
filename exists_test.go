package plantstore_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestAlreadyExists checks which answers match ErrAlreadyExists: a
// repeated id answered as the client's rule says, and nothing else.
func TestAlreadyExists(t *testing.T) {
	t.Parallel()
	profile := plantstoretest.Profile{DuplicateID: &plantstoretest.ProfileReply{
		Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":"id {id} is taken"}`}}
	tooShort := plantstoretest.WithRule(func(p plantstore.NewPlant) *plantstoretest.ErrorBody {
		if len(p.Name) < 3 {
			return &plantstoretest.ErrorBody{Code: plantstoretest.CodeInvalidPlant, Message: "name too short"}
		}
		return nil
	})
	tests := []struct {
		name   string
		server []plantstoretest.Option
		client func(*plantstoretest.Server) *plantstore.Client
		plant  plantstore.NewPlant // sent after {ID: 1, Name: "Fern"}
		want   bool
	}{
		{"the fake's clients know its answer", nil, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"another 400 is not it", []plantstoretest.Option{tooShort}, serverClient, plantstore.NewPlant{ID: 2, Name: "Iv"}, false},
		{"a profile's answer", []plantstoretest.Option{plantstoretest.WithProfile(profile)}, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"a profile's answer without an Error body", []plantstoretest.Option{plantstoretest.WithProfile(plantstoretest.Profile{
			DuplicateID: &plantstoretest.ProfileReply{Status: 409, ContentType: "text/html", Body: "<h1>taken</h1>"}})}, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"a profile's empty answer", []plantstoretest.Option{plantstoretest.WithProfile(plantstoretest.Profile{
			DuplicateID: &plantstoretest.ProfileReply{Status: 409}})}, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"a profile's answer with a code and no message", []plantstoretest.Option{plantstoretest.WithProfile(plantstoretest.Profile{
			DuplicateID: &plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009}`}})}, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"a profile's answer with a null message", []plantstoretest.Option{plantstoretest.WithProfile(plantstoretest.Profile{
			DuplicateID: &plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":null}`}})}, serverClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, true},
		{"another answer with the profile's status is not it", []plantstoretest.Option{plantstoretest.WithProfile(plantstoretest.Profile{
			DuplicateID: &plantstoretest.ProfileReply{Status: 400, ContentType: "text/html", Body: "<h1>taken</h1>"}}), tooShort}, serverClient, plantstore.NewPlant{ID: 2, Name: "Iv"}, false},
		{"a client without the rule", nil, bareClient, plantstore.NewPlant{ID: 1, Name: "Fern"}, false},
		{"a rule with another code", nil, func(s *plantstoretest.Server) *plantstore.Client {
			return s.Client(plantstore.WithAlreadyExists(http.StatusBadRequest, plantstoretest.CodeDuplicateID+1))
		}, plantstore.NewPlant{ID: 1, Name: "Fern"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t, tt.server...)
			c := tt.client(srv)
			if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
				t.Fatal(err)
			}
			_, err := c.CreatePlant(context.Background(), tt.plant)
			if err == nil {
				t.Fatal("the second create succeeded, want a refusal")
			}
			if got := errors.Is(err, plantstore.ErrAlreadyExists); got != tt.want {
				t.Errorf("errors.Is(%v, ErrAlreadyExists) = %v, want %v", err, got, tt.want)
			}
			if errors.Is(err, plantstore.ErrMaybeCreated) {
				t.Errorf("a refusal of the first attempt matches ErrMaybeCreated: %v", err)
			}
		})
	}
}

func serverClient(s *plantstoretest.Server) *plantstore.Client { return s.Client() }

func bareClient(s *plantstoretest.Server) *plantstore.Client {
	c, err := plantstore.NewClient(s.URL, plantstore.WithToken(plantstoretest.DefaultToken), plantstore.WithHTTPClient(s.HTTPClient()))
	if err != nil {
		panic(err)
	}
	return c
}

func TestWithAlreadyExistsRefusesAStatusNotRefusing(t *testing.T) {
	t.Parallel()
	for _, status := range []int{0, 200, 399, 500} {
		_, err := plantstore.NewClient("https://plants.example.com", plantstore.WithToken("t0ken-t0ken"), plantstore.WithAlreadyExists(status, 5))
		if err == nil || !strings.Contains(err.Error(), "want 400 to 499") {
			t.Errorf("WithAlreadyExists(%d, 5): NewClient error %v, want one about 400 to 499", status, err)
		}
	}
}

// TestEnsurePlant checks the settle decision on each way a create can end:
// stored once, or an error that says why not or that it is not known.
func TestEnsurePlant(t *testing.T) {
	t.Parallel()
	storeThenDrop := plantstoretest.Fault{Store: true, Drop: true}
	tests := []struct {
		name       string
		faults     []plantstoretest.Fault
		retries    int
		wantStored int
		wantErr    error // nil: EnsurePlant returns nil
		wantCalls  int   // requests sent
	}{
		{"answered at once", nil, 2, 1, nil, 1},
		{"stored, answer lost, the retry refused as a repeat", []plantstoretest.Fault{storeThenDrop}, 2, 1, nil, 2},
		{"stored, every answer of the call lost, settled by a second call", []plantstoretest.Fault{{Store: true, Drop: true, Times: 3}}, 2, 1, nil, 4},
		{"stored, answer lost, no retries", []plantstoretest.Fault{storeThenDrop}, 0, 1, nil, 2},
		{"never answered: still unknown after three settles", []plantstoretest.Fault{{Drop: true, Times: 4}}, 0, 0, plantstore.ErrMaybeCreated, 4},
		{"503 until settled", []plantstoretest.Fault{{Status: 503, Times: 2}}, 0, 1, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
			for _, f := range tt.faults {
				srv.Inject(f)
			}
			c := srv.Client(plantstore.WithMaxRetries(tt.retries))
			err := c.EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("EnsurePlant: %v, want nil", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("EnsurePlant: %v, want an error matching %v", err, tt.wantErr)
			}
			if got := len(srv.Plants()); got != tt.wantStored {
				t.Errorf("stored %d plants, want %d", got, tt.wantStored)
			}
			if got := len(srv.Requests()); got != tt.wantCalls {
				t.Errorf("sent %d requests, want %d", got, tt.wantCalls)
			}
		})
	}
	t.Run("a 400 the plant earned", func(t *testing.T) {
		t.Parallel()
		srv := plantstoretest.NewServer(t, plantstoretest.WithRule(func(plantstore.NewPlant) *plantstoretest.ErrorBody {
			return &plantstoretest.ErrorBody{Code: plantstoretest.CodeInvalidPlant, Message: "no ferns"}
		}))
		err := srv.Client().EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		var apiErr *plantstore.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != plantstoretest.CodeInvalidPlant || errors.Is(err, plantstore.ErrAlreadyExists) {
			t.Errorf("EnsurePlant: %v, want the 400 with CodeInvalidPlant", err)
		}
	})
	t.Run("a client without the rule", func(t *testing.T) {
		t.Parallel()
		srv := plantstoretest.NewServer(t)
		err := bareClient(srv).EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		if err == nil || !strings.Contains(err.Error(), "WithAlreadyExists") || len(srv.Requests()) != 0 {
			t.Errorf("EnsurePlant without WithAlreadyExists: %v after %d requests, want an error naming the option and none sent", err, len(srv.Requests()))
		}
	})
	t.Run("a cancelled context ends the settling", func(t *testing.T) {
		t.Parallel()
		srv := plantstoretest.NewServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		srv.Inject(plantstoretest.Fault{Drop: true, Times: 4, Match: func(plantstoretest.Request) bool { cancel(); return true }})
		err := srv.Client(plantstore.WithMaxRetries(0)).EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		if !errors.Is(err, plantstore.ErrMaybeCreated) || len(srv.Requests()) != 1 {
			t.Errorf("EnsurePlant with its context cancelled during the first create: %v after %d requests, want ErrMaybeCreated after 1", err, len(srv.Requests()))
		}
		srv.ClearFaults()
	})
}

// TestEnsurePlantKeepsAnUnknownOutcome checks issue 41's first defect:
// once an attempt may have stored the plant, EnsurePlant returns nil or an
// error that matches ErrMaybeCreated, however the last settle ends.
func TestEnsurePlantKeepsAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	storeThenDrop := plantstoretest.Fault{Store: true, Drop: true}
	tests := []struct {
		name   string
		faults []plantstoretest.Fault // after the first create's store-drop
		refuse bool                   // every dial after the first is refused
		budget bool                   // a retry budget that refuses every retry
	}{
		{"the last settle answered 429", []plantstoretest.Fault{{Status: 503, Times: 2}, {Status: 429}}, false, false},
		{"a settle answered 401", []plantstoretest.Fault{{Status: 401}}, false, false},
		{"a settle answered 400 for the plant", []plantstoretest.Fault{{Status: 400}}, false, false},
		{"a settle's connection refused", nil, true, false},
		{"a settle's retry refused by the budget", []plantstoretest.Fault{{Status: 429}}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t)
			srv.Inject(storeThenDrop)
			for _, f := range tt.faults {
				srv.Inject(f)
			}
			opts := []plantstore.Option{plantstore.WithMaxRetries(0)}
			if tt.refuse {
				opts = append(opts, plantstore.WithHTTPClient(refusingAfterFirstDial(srv)))
			}
			if tt.budget {
				opts = []plantstore.Option{plantstore.WithMaxRetries(1), plantstore.WithRetryBudget(0.001, 0)}
			}
			err := srv.Client(opts...).EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
			if len(srv.Plants()) != 1 {
				t.Fatalf("%d plants stored, want the first create's", len(srv.Plants()))
			}
			// Every case's last settle fails: the error must say the
			// plant may be stored.
			if !errors.Is(err, plantstore.ErrMaybeCreated) {
				t.Errorf("EnsurePlant of a stored plant whose last settle failed: %v, want an error matching ErrMaybeCreated", err)
			}
			if err != nil && !strings.HasSuffix(err.Error(), "(the plant may have been created)") {
				t.Errorf("EnsurePlant's error %q does not say the plant may have been created", err)
			}
		})
	}
}

// refusingAfterFirstDial returns an HTTP client of srv's whose every dial
// after the first is refused, as a server's port is once it went down.
func refusingAfterFirstDial(srv *plantstoretest.Server) *http.Client {
	base := srv.HTTPClient().Transport.(*http.Transport).Clone()
	dial := base.DialContext
	var dials atomic.Int32
	base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) > 1 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		if dial == nil {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		return dial(ctx, network, addr)
	}
	return &http.Client{Transport: base}
}

// TestEnsurePlantOnASpentContext checks that EnsurePlant on a context that
// has ended, which sends nothing and so learns nothing, never reads as
// "not stored": it cannot tell a first call from a settle of a plant an
// earlier call stored, so its error matches ErrMaybeCreated.
func TestEnsurePlantOnASpentContext(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithSchedule("1:store-delay"))
	c := srv.Client(plantstore.WithMaxRetries(0))
	p := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	first := c.EnsurePlant(ctx, p)
	<-ctx.Done()
	settle := c.EnsurePlant(ctx, p) // sends nothing
	if !errors.Is(first, plantstore.ErrMaybeCreated) || !errors.Is(settle, plantstore.ErrMaybeCreated) {
		t.Errorf("EnsurePlant = %v, then on the spent context %v; want both to match ErrMaybeCreated: the plant is stored", first, settle)
	}
	if !errors.Is(settle, context.DeadlineExceeded) {
		t.Errorf("the settle's error %v does not say the context ended", settle)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the fake, want 1: the settle on a spent context sends nothing", n)
	}
	if n := len(srv.Plants()); n != 1 {
		t.Errorf("%d plants stored, want 1", n)
	}
}

// TestEnsurePlantSendsNothingItCannot: a call that could not send p for a
// reason of its own (a nil context, an invalid plant, a nil call option)
// returns that reason, as CreatePlant does, and no unknown outcome, even on
// an ended context: no call ever sent such a p, and a nil context is no
// cause for a panic.
func TestEnsurePlantSendsNothingItCannot(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	var nilCtx context.Context // a variable, so that vet does not object
	fern := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"}
	tests := []struct {
		name string
		ctx  context.Context
		p    plantstore.NewPlant
		opts []plantstore.CallOption
		want string
	}{
		{"nil context", nilCtx, fern, nil, "plantstore: create plant: nil context"},
		{"invalid plant, ended context", ended, plantstore.NewPlant{ID: 1}, nil, "plantstore: invalid plant: name is required"},
		{"nil call option, ended context", ended, fern, []plantstore.CallOption{nil}, "plantstore: nil call option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t)
			err := srv.Client().EnsurePlant(tt.ctx, tt.p, tt.opts...)
			if err == nil || err.Error() != tt.want {
				t.Errorf("EnsurePlant error = %v, want %q", err, tt.want)
			}
			if errors.Is(err, plantstore.ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false: no call could send this plant", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("EnsurePlant sent %d requests, want 0", n)
			}
		})
	}
}
