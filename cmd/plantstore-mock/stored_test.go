package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestFlagMaxStored fills the default namespace and three others with
// plants of 100 kB names, in turn, until a create is refused: what they
// keep together stays within -max-stored-mib, whatever -max-plants and
// -max-namespaces allow each; every way to store more (a create, a seed, a
// fault) is refused with 400 and CodeStoreFull naming the flag; and an
// ended namespace gives its share back.
func TestFlagMaxStored(t *testing.T) {
	t.Parallel()
	const budget = 1 << 20 // -max-stored-mib 1
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-max-stored-mib", "1", "-max-namespaces", "3")
	type store struct{ path, token, id string } // path: "" or /__plantstore/ns/{id}
	stores := []store{{"", plantstoretest.DefaultToken, ""}}
	for i := 0; i < 3; i++ {
		status, _, body := m.do(t, "POST", "/__plantstore/namespaces", "", "")
		var ns struct{ Namespace, Token, Base_URL string }
		if err := json.Unmarshal([]byte(body), &ns); status != 201 || err != nil {
			t.Fatalf("namespace create = %d %s (%v), want 201", status, body, err)
		}
		stores = append(stores, store{strings.TrimPrefix(ns.Base_URL, m.url), ns.Token, ns.Namespace})
	}
	name := strings.Repeat("n", 100_000)
	wantFull := func(what string, status int, body string) {
		t.Helper()
		var e plantstoretest.ErrorBody
		json.Unmarshal([]byte(body), &e)
		if status != 400 || e.Code != plantstoretest.CodeStoreFull || !strings.Contains(e.Message, "-max-stored-mib") {
			t.Errorf("%s with the mock full = %d %.300s, want 400 with CodeStoreFull naming -max-stored-mib", what, status, body)
		}
	}
	kept := 0 // bytes of names stored, in every store
	full := false
	for id := 1; id < 100 && !full; id++ {
		s := stores[id%len(stores)]
		status, _, body := m.do(t, "POST", s.path+"/plants", fmt.Sprintf(`{"id": %d, "name": %q}`, id, name), s.token)
		switch status {
		case 200:
			kept += len(name)
		default:
			wantFull("create", status, body)
			full = true
		}
	}
	if !full || kept > budget || kept < budget/2 {
		t.Fatalf("stored %d bytes of names in 4 namespaces under -max-stored-mib 1 (refused: %v), want a refusal within %d bytes and past half of it", kept, full, budget)
	}
	s := stores[1]
	status, _, body := m.do(t, "POST", s.path+"/__plantstore/plants", fmt.Sprintf(`[{"id": 1000, "name": %q}]`, name), s.token)
	wantFull("seed", status, body)
	status, _, body = m.do(t, "POST", s.path+"/__plantstore/faults", fmt.Sprintf(`{"status": 503, "body": %q}`, name), s.token)
	wantFull("fault", status, body)

	// An ended namespace's plants are forgotten: their room is free again.
	if status, _, body := m.do(t, "DELETE", "/__plantstore/namespaces/"+stores[2].id, "", ""); status != 204 {
		t.Fatalf("DELETE namespace = %d %s, want 204", status, body)
	}
	if status, _, body := m.do(t, "POST", s.path+"/plants", fmt.Sprintf(`{"id": 1001, "name": %q}`, name), s.token); status != 200 {
		t.Errorf("create once a namespace ended = %d %.300s, want 200", status, body)
	}
}
