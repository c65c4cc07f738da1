package mockserver

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// endpoint is one method on one control path.
type endpoint struct {
	// query lists the query parameters it takes; any other is a 400, so a
	// typo is not silently ignored.
	query []string
	// bodyLimit bounds the body it reads; 0 means it takes none, and a
	// non-empty body is a 400.
	bodyLimit int64
	// optionalBody: it takes an empty body too, with any Content-Type.
	optionalBody bool
	// namespaces: without namespaces (see [NamespaceConfig]) it is a 404.
	namespaces bool
	// serve answers a request that passed the access, method, query and
	// body checks: it writes the reply and returns its status, or returns an
	// error and writes nothing.
	serve serveFunc
}

type serveFunc func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) (int, *controlError)

// routes is the control API's route table, matched as the fake matches its
// own (see [wire.MatchPath]): a path no pattern matches is a 404, and a
// method no route of the path takes a 405. HEAD is served wherever GET is.
var routes = []struct {
	method, pattern string
	endpoint
}{
	{http.MethodGet, Prefix + "health", endpoint{serve: (*Server).health}},
	{http.MethodGet, Prefix + "plants", endpoint{serve: (*Server).listPlants}},
	{http.MethodPost, Prefix + "plants", endpoint{bodyLimit: MaxSeedBody, serve: (*Server).seed}},
	{http.MethodGet, Prefix + "requests", endpoint{query: []string{"since"}, serve: (*Server).listRequests}},
	{http.MethodDelete, Prefix + "requests", endpoint{serve: onFake((*plantstoretest.Handler).ClearRequests)}},
	{http.MethodGet, Prefix + "faults", endpoint{serve: (*Server).listFaults}},
	{http.MethodPost, Prefix + "faults", endpoint{bodyLimit: MaxFaultBody, serve: (*Server).addFault}},
	{http.MethodDelete, Prefix + "faults", endpoint{serve: onFake((*plantstoretest.Handler).ClearFaults)}},
	{http.MethodGet, Prefix + "schedule", endpoint{serve: (*Server).getSchedule}},
	{http.MethodPut, Prefix + "schedule", endpoint{bodyLimit: maxScheduleText + 1<<10, serve: (*Server).setSchedule}},
	{http.MethodPost, Prefix + "reset", endpoint{serve: onFake((*plantstoretest.Handler).Reset)}},
	{http.MethodGet, namespacesPath, endpoint{namespaces: true, serve: (*Server).listNamespaces}},
	{http.MethodPost, namespacesPath, endpoint{bodyLimit: maxNamespaceBody, optionalBody: true, namespaces: true, serve: (*Server).createNamespace}},
	{http.MethodDelete, namespacesPath + "/{namespace}", endpoint{namespaces: true, serve: (*Server).endNamespace}},
	{http.MethodGet, Prefix + "openapi.yaml", endpoint{serve: document(apiDocument)}},
	{http.MethodGet, Prefix + "control.openapi.yaml", endpoint{serve: document(controlDocument)}},
}

// checkAccess applies the mock's control API access rules to r.
func (s *Server) checkAccess(r *http.Request) *controlError {
	switch s.access {
	case accessOff:
		return errorf(http.StatusNotFound, plantstoretest.CodeNotFound, "%s", offMessage(s.listenAddr))
	case accessToken:
		return s.authorize(r.Header)
	default:
		return checkLocal(r)
	}
}

// control serves a request under Prefix behind access, the mock's rules or
// a namespace's ([Server.namespaceAccess]), and returns the status sent.
// Health is open to all; nothing changes unless the access, method, query
// and body checks all pass.
func (s *Server) control(w http.ResponseWriter, r *http.Request, access func(*http.Request) *controlError) int {
	if r.URL.Path != Prefix+"health" {
		if err := access(r); err != nil {
			return writeError(w, err)
		}
	}
	ep, err := route(r)
	if err != nil {
		return writeError(w, err)
	}
	if err := checkQuery(r.URL, ep.query); err != nil {
		return writeError(w, err)
	}
	if ep.bodyLimit > 0 && !ep.optionalBody {
		if err := checkContentType(r); err != nil {
			return writeError(w, err)
		}
	}
	body, err := readBody(w, r, ep.bodyLimit)
	if err != nil {
		return writeError(w, err)
	}
	if ep.optionalBody && len(body) > 0 {
		if err := checkContentType(r); err != nil {
			return writeError(w, err)
		}
	}
	if ep.namespaces && s.ns == nil {
		return writeError(w, errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
			"no namespaces here: they are made by the mock's own control API, %s, when -max-namespaces is above 0", namespacesPath))
	}
	status, err := ep.serve(s, w, r, body)
	if err != nil {
		return writeError(w, err)
	}
	return status
}

// route finds r's endpoint in the table, and sets the values of its
// path's {name} segments (see http.Request.PathValue), or returns the 404
// or 405 that answers r.
func route(r *http.Request) (*endpoint, *controlError) {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	var allow []string
	for i := range routes {
		rt := &routes[i]
		values, ok := wire.MatchPath(rt.pattern, r.URL.EscapedPath())
		switch {
		case !ok:
			continue
		case rt.method == method:
			for name, v := range values {
				r.SetPathValue(name, v)
			}
			return &rt.endpoint, nil
		case rt.method == http.MethodGet:
			allow = append(allow, http.MethodHead)
		}
		allow = append(allow, rt.method)
	}
	if len(allow) == 0 {
		return nil, errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
			"no such control path %q; GET %scontrol.openapi.yaml describes them all", r.URL.Path, Prefix)
	}
	sort.Strings(allow)
	allowed := strings.Join(allow, ", ")
	err := errorf(http.StatusMethodNotAllowed, plantstoretest.CodeMethodNotAllowed,
		"%s does not serve %s; it serves %s", r.URL.Path, r.Method, allowed)
	err.allow = allowed
	return nil, err
}

// checkQuery rejects query parameters the endpoint does not take, and a
// parameter given twice.
func checkQuery(u *url.URL, allowed []string) *controlError {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return badRequest("invalid query string: %v", err)
	}
	for name, values := range q {
		switch {
		case !slices.Contains(allowed, name):
			return badRequest("unknown query parameter %q; %s takes %s", name, u.Path, cmp.Or(strings.Join(allowed, ", "), "none"))
		case len(values) > 1:
			return badRequest("query parameter %q given %d times, want once", name, len(values))
		}
	}
	return nil
}

// healthBody is the reply of GET /__plantstore/health.
type healthBody struct {
	Status string `json:"status"` // always "ok"
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
	return writeJSON(w, http.StatusOK, healthBody{Status: "ok"}), nil
}

func (s *Server) listRequests(w http.ResponseWriter, r *http.Request, _ []byte) (int, *controlError) {
	var since uint64
	if v, ok := r.URL.Query()["since"]; ok {
		n, err := strconv.ParseUint(v[0], 10, 64)
		if err != nil {
			return 0, badRequest("since must be a journal seq (an integer from 0), got %q", v[0])
		}
		since = n
	}
	entries := s.fake.RequestsSince(since)
	return writeJSONArray(w, len(entries), func(i int) any { return newJournalEntry(&entries[i]) }), nil
}

// onFake serves an endpoint that calls do on the fake and answers 204.
func onFake(do func(*plantstoretest.Handler)) serveFunc {
	return func(s *Server, w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
		do(s.fake)
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent, nil
	}
}

// document serves an OpenAPI document.
func document(doc []byte) serveFunc {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
		w.Header().Set("Content-Type", "application/yaml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
		return http.StatusOK, nil
	}
}

// maxScheduleText bounds a schedule's text, in characters, as the control
// API's document's maxLength says; the body of PUT /__plantstore/schedule
// may have 1 KiB more, for the JSON around the text.
const maxScheduleText = 64 << 10

// CheckScheduleText refuses a schedule's text longer than the control API
// takes: PUT /__plantstore/schedule's and plantstore-mock -schedule's, so
// that GET's reply keeps to the document too.
func CheckScheduleText(text string) error {
	if n := utf8.RuneCountInString(text); n > maxScheduleText {
		return fmt.Errorf("the schedule is %d characters long; it may have at most %d", n, maxScheduleText)
	}
	return nil
}

// scheduleBody is the body of PUT /__plantstore/schedule, and the reply of
// GET.
type scheduleBody struct {
	Schedule *string `json:"schedule"`
}

// getSchedule replies with the schedule in force, its faults in the order
// of their requests.
func (s *Server) getSchedule(w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
	text := s.fake.Schedule()
	return writeJSON(w, http.StatusOK, scheduleBody{Schedule: &text}), nil
}

// setSchedule places faults on the next API requests by their number, as
// plantstoretest.WithSchedule does.
func (s *Server) setSchedule(w http.ResponseWriter, _ *http.Request, body []byte) (int, *controlError) {
	var req scheduleBody
	if err := decodeStrict(body, &req); err != nil {
		return 0, err
	}
	if req.Schedule == nil {
		return 0, badRequest(`the body must have "schedule", a string`)
	}
	if err := CheckScheduleText(*req.Schedule); err != nil {
		return 0, badRequest("%s", err)
	}
	if err := s.fake.SetSchedule(*req.Schedule); err != nil {
		return 0, refused(err, strings.TrimPrefix(err.Error(), "plantstoretest: "))
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent, nil
}
