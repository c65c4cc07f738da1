package plantstoretest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/latency"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/traffic"
)

var testProfile = plantstoretest.Profile{
	Source:        "https://plants.example.com",
	DuplicateID:   &plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":"id {id} ({name}) is taken"}`},
	AuthMissing:   &plantstoretest.ProfileReply{Status: 401, Body: "no credentials", Challenge: "Bearer"},
	AuthMalformed: &plantstoretest.ProfileReply{Status: 400, ContentType: "text/plain", Body: "bad header"},
	AuthInvalid:   &plantstoretest.ProfileReply{Status: 403, ContentType: "application/json", Body: `{"error":403,"message":"forbidden"}`},
}

// reply is a response as the profile tests compare it.
type reply struct {
	Status      int
	ContentType []string
	Challenge   string
	Body        string
}

func send(t *testing.T, url, auth, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/plants", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header.Values("Content-Type"), resp.Header.Get("WWW-Authenticate"), string(b)}
}

func TestWithProfile(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithProfile(testProfile))
	ok := "Bearer " + plantstoretest.DefaultToken
	plant := `{"id":42,"name":"Fern \"the\" Great"}`
	tests := []struct {
		name, auth, body string
		want             reply
	}{
		{"created", ok, plant, reply{200, []string{"application/json"}, "", `{"name":"Fern \"the\" Great"}`}},
		{"duplicate id", ok, plant, reply{409, []string{"application/json"}, "", `{"error":1009,"message":"id 42 (Fern \"the\" Great) is taken"}`}},
		{"no credentials", "", plant, reply{401, nil, "Bearer", "no credentials"}},
		{"another scheme", "Basic eDp5", plant, reply{400, []string{"text/plain"}, "", "bad header"}},
		{"wrong token", "Bearer nope", plant, reply{403, []string{"application/json"}, "", `{"error":403,"message":"forbidden"}`}},
		// What the profile does not name stays the fake's own.
		{"invalid plant", ok, `{"id":43}`, reply{400, []string{"application/json"}, "", `{"error":2,"message":"name is required"}`}},
	}
	for _, tt := range tests { // in order: the duplicate needs the create
		if diff := cmp.Diff(tt.want, send(t, srv.URL, tt.auth, tt.body)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The journal keeps the fake's own reason.
	reqs := srv.Requests()
	if got := reqs[2].Invalid; got == nil || got.Code != plantstoretest.CodeUnauthorized {
		t.Errorf("journal of the request without credentials: Invalid = %+v, want CodeUnauthorized", got)
	}
	if got := len(srv.Plants()); got != 1 {
		t.Errorf("%d plants stored, want 1", got)
	}
}

// The client sees a profiled duplicate as the deployment's: a *APIError
// with the profile's status and code.
func TestWithProfileClient(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithProfile(testProfile))
	c := srv.Client()
	p := plantstore.NewPlant{ID: 7, Name: "Fern"}
	if _, err := c.CreatePlant(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreatePlant(context.Background(), p)
	status, code, ok := testProfile.DuplicateIDError()
	var apiErr *plantstore.APIError
	if !ok || !errors.As(err, &apiErr) || apiErr.StatusCode != status || apiErr.Code != code {
		t.Errorf("repeated create: %v; want an APIError with status %d and code %d", err, status, code)
	}
}

func TestWithProfileCopies(t *testing.T) {
	t.Parallel()
	p := plantstoretest.Profile{DuplicateID: &plantstoretest.ProfileReply{Status: 409, Body: "taken"}}
	opt := plantstoretest.WithProfile(p)
	p.DuplicateID.Body = "changed later"
	srv := plantstoretest.NewServer(t, opt)
	ok := "Bearer " + plantstoretest.DefaultToken
	send(t, srv.URL, ok, `{"id":1,"name":"a"}`)
	if got := send(t, srv.URL, ok, `{"id":1,"name":"a"}`).Body; got != "taken" {
		t.Errorf("duplicate body %q, want the profile as it was given", got)
	}
}

func TestParseProfile(t *testing.T) {
	t.Parallel()
	good := `{"source":"x","duplicate_id":{"status":409,"body":"taken"}}`
	p, err := plantstoretest.ParseProfile([]byte(good))
	if err != nil || p.DuplicateID == nil || p.DuplicateID.Status != 409 {
		t.Fatalf("ParseProfile(%s) = %+v, %v", good, p, err)
	}
	for _, tt := range []struct{ name, json, want string }{
		{"unknown field", `{"duplicate":{}}`, `unknown field "duplicate"`},
		{"status not 4xx", `{"auth_missing":{"status":500,"body":""}}`, "auth_missing: status 500: want 400 to 499"},
		{"control character", `{"auth_invalid":{"status":401,"body":"","challenge":"a\nb"}}`, "auth_invalid: challenge holds a control character"},
		{"body too long", `{"duplicate_id":{"status":409,"body":"` + strings.Repeat("x", plantstoretest.MaxProfileBody+1) + `"}}`, "body is 16385 bytes"},
		{"trailing data", good + `{}`, "invalid JSON: data after the value (at byte 59)"},
		{"trailing brace", good + `}`, "invalid JSON: data after the value (at byte 59)"},
		{"not JSON", `{"source":x}`, "invalid character 'x' looking for beginning of value (at byte 10)"},
		{"too large", strings.Repeat(" ", plantstoretest.MaxProfileSize+1), "more than the"},
		// Told in JSON's terms, for plantstore-mock -profile's users: no Go
		// struct or type names.
		{"wrong type", `{"duplicate_id":{"status":"409","body":""}}`, `field "duplicate_id.status": want an integer, got JSON string`},
		{"fraction", `{"duplicate_id":{"status":409.5,"body":""}}`, `field "duplicate_id.status": want an integer, got JSON number 409.5`},
		{"body a number", `{"duplicate_id":{"status":409,"body":1}}`, `field "duplicate_id.body": want a string, got JSON number`},
		{"reply a string", `{"auth_missing":"401"}`, `field "auth_missing": want an object, got JSON string`},
		{"an array", `[]`, "want an object, got JSON array"},
		{"null", ` null`, "want an object, got JSON null"},
		{"empty", " ", "no JSON value; want an object"},
		{"cut short", `{"source":`, "invalid JSON: cut short (at byte 10)"},
		{"not UTF-8", "{\"source\":\"\xff\"}", "not valid UTF-8 (at byte 11)"},
		// One JSON rule for every body the project reads (internal/strictjson).
		{"repeated field", `{"duplicate_id":{"status":409,"status":410,"body":""}}`, `field "status" appears more than once (at byte 30)`},
		// encoding/json merged the second into the first: 410, text/plain, "second".
		{"repeated reply", `{"duplicate_id":{"status":409,"content_type":"text/plain","body":"first"},"duplicate_id":{"status":410,"body":"second"}}`,
			`field "duplicate_id" appears more than once (at byte 74)`},
		{"repeated through an escape", `{"source":"a","sourc\u0065":"b"}`, `field "source" appears more than once (at byte 14)`},
		{"an unpaired surrogate", `{"source":"a\ud800"}`, `string contains the unpaired surrogate escape \ud800, which is not a character (at byte 10)`},
		{"another case", `{"Duplicate_ID":{"status":409,"body":""}}`, `unknown field "Duplicate_ID" (at byte 1)`},
		{"another case, nested", `{"duplicate_id":{"Status":409,"body":""}}`, `unknown field "Status" (at byte 17)`},
	} {
		_, err := plantstoretest.ParseProfile([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "plantstoretest: ") ||
			strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestWithProfileInvalidPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "duplicate_id: status 200") {
			t.Errorf("NewHandler with an invalid profile: recovered %v, want a panic naming the reply", r)
		}
	}()
	plantstoretest.NewHandler(plantstoretest.WithProfile(plantstoretest.Profile{DuplicateID: &plantstoretest.ProfileReply{Status: 200}}))
}

func TestDuplicateIDError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body       string
		wantStatus int
		wantCode   int32
		wantOK     bool
	}{
		{`{"error":1009,"message":"x"}`, 409, 1009, true},
		{`{"error":1009}`, 409, 1009, true},
		{`{"error":1009,"message":null}`, 409, 1009, true},
		{`{"error":1009,"id":{id},"name":"{name}"}`, 409, 1009, true},
		{`{"message":"x"}`, 409, 0, true},
		{`{"error":1.5}`, 409, 0, true},
		{`{"error":99999999999}`, 409, 0, true},
		{`<h1>taken</h1>`, 409, 0, true},
		{``, 409, 0, true},
	} {
		p := plantstoretest.Profile{DuplicateID: &plantstoretest.ProfileReply{Status: 409, Body: tt.body}}
		status, code, ok := p.DuplicateIDError()
		if status != tt.wantStatus || code != tt.wantCode || ok != tt.wantOK {
			t.Errorf("body %s: DuplicateIDError() = %d, %d, %v; want %d, %d, %v", tt.body, status, code, ok, tt.wantStatus, tt.wantCode, tt.wantOK)
		}
	}
	var none plantstoretest.Profile
	if _, _, ok := none.DuplicateIDError(); ok {
		t.Errorf("an empty profile has a DuplicateIDError")
	}
}

// A profile written by plantstore-mock conformance -profile-out makes the
// fake refuse a repeated id as the deployment does, and tells the code that
// settles a maybe-created plant which status and code to look for.
func ExampleWithProfile() {
	profile, err := plantstoretest.ParseProfile([]byte(`{
		"source": "https://plants.example.com",
		"duplicate_id": {"status": 409, "content_type": "application/json",
		                 "body": "{\"error\":1009,\"message\":\"id {id} is taken\"}"}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	status, code, _ := profile.DuplicateIDError()
	fmt.Println("a repeated id is refused with", status, "and code", code)

	h := plantstoretest.NewHandler(plantstoretest.WithProfile(profile))
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	c, err := plantstore.NewClient(srv.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	p := plantstore.NewPlant{ID: 7, Name: "Fern"}
	_, _ = c.CreatePlant(context.Background(), p)
	_, err = c.CreatePlant(context.Background(), p)
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == status && apiErr.Code == code {
		fmt.Println("the second create:", apiErr.Message)
	}
	// Output:
	// a repeated id is refused with 409 and code 1009
	// the second create: id 7 is taken
}

// A DuplicateID reply is at most MaxProfileReply bytes with the id and
// name put in; a longer one is the fake's own 400, which says why.
func TestWithProfileReplyBound(t *testing.T) {
	t.Parallel()
	const max, body = plantstoretest.MaxProfileReply, plantstoretest.MaxProfileBody
	over := func(id int) string {
		return fmt.Sprintf(`{"error":5,"message":"plant %d already exists; the profile's duplicate_id reply, with the id and name put in, would be `, id)
	}
	long := "aaaaa" + strings.Repeat("é\u2028<\x01", 3000) // pieces cut in a character
	quoted := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	tests := []struct {
		name      string
		body      string // the profile's duplicate_id body
		plantName string
		want      string // the reply's body, or a prefix of it ending in "would be "
	}{
		{"placeholders kept apart from other braces", "{{id}}{nam{name}{", "a\"b<", `{1}{nam` + `a\"b\u003c{`},
		// Escaped a piece at a time, cut inside a character: as a whole.
		{"a long name escaped", "{name}", long, quoted(long)},
		{"a short name many times", "{id}" + strings.Repeat("{name}", 2730), "Fern", "1" + strings.Repeat("Fern", 2730)},
		// A name of 0.2 MiB, 1 MiB escaped: 1 + 6·174,762 + 3 bytes.
		{"at the bound", "{id}{name}", strings.Repeat("<", 174_762) + "nnn", "1" + strings.Repeat(`\u003c`, 174_762) + "nnn"},
		{"just over", "{id}{name}", strings.Repeat("<", 174_762) + "nnnn", over(1)},
		// 16 KiB and twice the id ("1") and the name: a long name three times is too much.
		{"a long name three times, within", "{name}{name}{name}", strings.Repeat("n", body-2), strings.Repeat("n", 3*(body-2))},
		{"a long name three times, over", "{name}{name}{name}", strings.Repeat("n", body+3), over(1)},
		// 523 bytes received would make a reply of 1 MB.
		{"many placeholders", strings.Repeat("{name}", 2730), strings.Repeat("n", 380), over(1)},
		{"many placeholders, a longer name", strings.Repeat("{name}", 2730), strings.Repeat("n", 50_000), over(1)},
		// The name fits as it is, not escaped: \u003c is 6 bytes.
		{"over once escaped", "{name}", strings.Repeat("<", max/2), over(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t, plantstoretest.WithProfile(plantstoretest.Profile{
				DuplicateID: &plantstoretest.ProfileReply{Status: 409, Body: tt.body},
			}))
			ok := "Bearer " + plantstoretest.DefaultToken
			// The name as it is, where JSON allows: a "<" is 1 byte.
			var plant strings.Builder
			enc := json.NewEncoder(&plant)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(plantstore.NewPlant{ID: 1, Name: tt.plantName}); err != nil {
				t.Fatal(err)
			}
			if got := send(t, srv.URL, ok, plant.String()); got.Status != 200 {
				t.Fatalf("first create: %d %.200s", got.Status, got.Body)
			}
			got := send(t, srv.URL, ok, plant.String())
			wantStatus := 409
			if strings.HasSuffix(tt.want, "would be ") {
				wantStatus = 400
				if !strings.HasPrefix(got.Body, tt.want) || !strings.Contains(got.Body, " bytes or more, over the ") {
					t.Errorf("repeated create: body %.300s, want the fake's own, saying why", got.Body)
				}
			} else if got.Body != tt.want {
				t.Errorf("repeated create: body %.300s (%d bytes), want %.300s (%d bytes)", got.Body, len(got.Body), tt.want, len(tt.want))
			}
			if got.Status != wantStatus {
				t.Errorf("repeated create: status %d, want %d", got.Status, wantStatus)
			}
			if n := len(srv.Plants()); n != 1 {
				t.Errorf("%d plants stored, want 1", n)
			}
		})
	}
}

// TestProfileLargestLoads writes the largest profile Check accepts, every
// byte one that encoding/json escapes to 6 (a control character; markup,
// which a header may hold, when HTML is escaped), with the largest traffic,
// as it writes it, and checks that ParseProfile reads it back, and
// traffic.Read (plantstore-mock drift) its traffic: any profile Check
// accepts, a report's or a recording's included, loads in both.
func TestProfileLargestLoads(t *testing.T) {
	testenv.Long(t) // documents of the largest size: 6 s under -race
	t.Parallel()
	reply := func() *plantstoretest.ProfileReply {
		return &plantstoretest.ProfileReply{
			Status:      499,
			ContentType: strings.Repeat(">", plantstoretest.MaxProfileField),
			Body:        strings.Repeat("\x01", plantstoretest.MaxProfileBody),
			Challenge:   strings.Repeat("<", plantstoretest.MaxProfileField),
		}
	}
	largest := plantstoretest.Profile{
		Source:      strings.Repeat("\x01", plantstoretest.MaxProfileField),
		DuplicateID: reply(), AuthMissing: reply(), AuthMalformed: reply(), AuthInvalid: reply(),
		Traffic: largestTraffic(),
	}
	if err := largest.Check(); err != nil {
		t.Fatalf("the largest profile: %v", err)
	}
	encoded := func(html bool, indent string) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		enc.SetIndent("", indent)
		if err := enc.Encode(largest); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"compact", encoded(true, "")},
		{"indented", encoded(true, "  ")},
		{"indented, HTML not escaped", encoded(false, "  ")},
	} {
		t.Logf("%s: %d bytes", tt.name, len(tt.data))
		if _, err := plantstoretest.ParseProfile(tt.data); err != nil {
			t.Errorf("%s, %d bytes: %v", tt.name, len(tt.data), err)
		}
		if _, err := traffic.Read(bytes.NewReader(tt.data)); err != nil {
			t.Errorf("%s, %d bytes: traffic.Read: %v", tt.name, len(tt.data), err)
		}
	}
	// Each limit holds: a byte more is refused, and so is text JSON cannot
	// hold.
	for _, tt := range []struct {
		name string
		grow func(p *plantstoretest.Profile)
		want string
	}{
		{"source a byte over", func(p *plantstoretest.Profile) { p.Source += "x" }, "profile: source is 1025 bytes, more than the 1024 allowed"},
		{"content_type a byte over", func(p *plantstoretest.Profile) { p.AuthMissing.ContentType += "x" }, "auth_missing: content_type is 1025 bytes"},
		{"challenge a byte over", func(p *plantstoretest.Profile) { p.AuthInvalid.Challenge += "x" }, "auth_invalid: challenge is 1025 bytes"},
		{"body a byte over", func(p *plantstoretest.Profile) { p.DuplicateID.Body += "x" }, "duplicate_id: body is 16385 bytes"},
		// JSON holds only UTF-8: "\xff" would load as U+FFFD, 3 bytes.
		{"source not UTF-8", func(p *plantstoretest.Profile) { p.Source = "\xff" }, "profile: source is not UTF-8"},
		{"body not UTF-8", func(p *plantstoretest.Profile) { p.DuplicateID.Body = "\xff" }, "duplicate_id: body is not UTF-8"},
		{"content_type not UTF-8", func(p *plantstoretest.Profile) { p.AuthMissing.ContentType = "\xff" }, "auth_missing: content_type is not UTF-8"},
		{"challenge not UTF-8", func(p *plantstoretest.Profile) { p.AuthInvalid.Challenge = "\xff" }, "auth_invalid: challenge is not UTF-8"},
	} {
		p := plantstoretest.Profile{Source: largest.Source, DuplicateID: reply(), AuthMissing: reply(), AuthInvalid: reply()}
		tt.grow(&p)
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Check() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// traffic's bounds, as traffic.Recording's doc states them.
const (
	maxOutcomes          = 32
	maxRetryAfters       = 64
	maxRetryAfterSeconds = 86400
	maxRunLength         = 1000
	maxCount             = 1 << 53
)

// largestTraffic returns the largest traffic Check accepts: every outcome
// (maxOutcomes, all 5xx, the catch-all first), each with every latency
// bucket and maxRetryAfters values, every run length, and counts of as
// many digits as maxCount leaves them.
func largestTraffic() *traffic.Recording {
	const outcomes = maxOutcomes
	per := int64(maxCount / outcomes) // each outcome's count
	// split returns per in n counts that sum to it.
	split := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = per / int64(n)
		}
		out[n-1] += per % int64(n)
		return out
	}
	rec := &traffic.Recording{Attempts: per * outcomes}
	for i := range outcomes {
		o := traffic.Outcome{Kind: traffic.Kind5xx, Count: per}
		if i > 0 {
			o.Status = 499 + i
		}
		for b, n := range split(latency.Buckets) {
			from, to := latency.Bounds(b)
			o.Latency = append(o.Latency, traffic.Bucket{FromUS: from, ToUS: to, Count: n})
		}
		for r, n := range split(maxRetryAfters) {
			s := int64(maxRetryAfterSeconds - maxRetryAfters + 1 + r)
			o.RetryAfter = append(o.RetryAfter, traffic.RetryAfter{Seconds: &s, Count: n})
		}
		rec.Outcomes = append(rec.Outcomes, o)
	}
	fr := &rec.FailureRuns
	fr.Failures = rec.Attempts
	each := fr.Failures / (maxRunLength * (maxRunLength + 1) / 2)
	for l := 1; l <= maxRunLength; l++ {
		fr.Lengths = append(fr.Lengths, traffic.RunLength{Length: l, Count: each})
		fr.Runs += each
	}
	return rec
}

// TestParseProfileHostileSize checks that ParseProfile refuses a document
// of too many JSON values before it decodes it: a 2 MiB document of empty
// outcomes once took 320 MiB to refuse. Not parallel, so that TotalAlloc
// counts this test's allocations alone.
func TestParseProfileHostileSize(t *testing.T) {
	for _, elem := range []string{`{}`, `{"latency":[{},{},{},{},{},{},{},{},{},{}]}`} {
		var b bytes.Buffer
		b.WriteString(`{"traffic":{"outcomes":[`)
		for b.Len()+2*len(elem)+10 < plantstoretest.MaxProfileSize {
			b.WriteString(elem + ",")
		}
		b.WriteString(elem + `]}}`)
		data := b.Bytes()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := plantstoretest.ParseProfile(data)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "JSON values") {
			t.Errorf("ParseProfile of %d bytes of %s: error %v, want one about too many JSON values", len(data), elem, err)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*len(data)); got > limit {
			t.Errorf("ParseProfile of %d bytes of %s allocated %d MiB refusing it, want at most %d MiB (4× the document)",
				len(data), elem, got>>20, limit>>20)
		}
	}
}
