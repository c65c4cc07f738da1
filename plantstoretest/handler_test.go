package plantstoretest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// response is a response from the fake, its body read.
type response struct {
	status int
	header http.Header
	body   []byte
}

// send makes one request to s with a plain HTTP client and returns the
// response.
func send(t *testing.T, s *Server, method, path string, header http.Header, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatalf("http.NewRequest(%s, %s) failed: %v", method, path, err)
	}
	req.Header = header
	resp, err := (&http.Client{Transport: s.transport}).Do(req)
	if err != nil {
		t.Fatalf("%s %s failed: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body failed: %v", method, path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// post sends body to s's /plants with the headers of a valid create.
func post(t *testing.T, s *Server, body string) response {
	t.Helper()
	return send(t, s, http.MethodPost, "/plants", validHeader(string(s.cfg.token)), body)
}

// validHeader returns the headers of a valid create authorised by token.
func validHeader(token string) http.Header {
	return http.Header{
		"Authorization": {"Bearer " + token},
		"Content-Type":  {"application/json"},
	}
}

// checkError checks that resp is an Error response with the given status
// and code, and a message containing wantMsg.
func checkError(t *testing.T, call string, resp response, wantStatus int, wantCode int32, wantMsg string) {
	t.Helper()
	if resp.status != wantStatus {
		t.Errorf("%s status = %d, want %d (body %s)", call, resp.status, wantStatus, resp.body)
	}
	checkJSONContentType(t, call, resp)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(resp.body, &fields); err != nil {
		t.Fatalf("%s body = %q, not a JSON object: %v", call, resp.body, err)
	}
	for _, name := range []string{"error", "message"} {
		if _, ok := fields[name]; !ok {
			t.Errorf("%s body = %s, has no %q field", call, resp.body, name)
		}
	}
	var got ErrorBody
	if err := json.Unmarshal(resp.body, &got); err != nil {
		t.Fatalf("%s body = %s, not an Error: %v", call, resp.body, err)
	}
	if got.Code != wantCode {
		t.Errorf("%s error code = %d, want %d (message %q)", call, got.Code, wantCode, got.Message)
	}
	if !strings.Contains(got.Message, wantMsg) {
		t.Errorf("%s message = %q, want it to contain %q", call, got.Message, wantMsg)
	}
}

func checkJSONContentType(t *testing.T, call string, resp response) {
	t.Helper()
	ct := resp.header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		t.Errorf("%s Content-Type = %q, want application/json", call, ct)
	}
}

func TestHandlerRejectsInvalidBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		wantCode int32
		wantMsg  string
	}{
		{"empty", "", CodeInvalidJSON, "body: no JSON value; want an object"},
		{"whitespace only", " \n\t", CodeInvalidJSON, "body: no JSON value; want an object"},
		{"truncated", `{"id":1,"name":"Fern"`, CodeInvalidJSON, "body: invalid JSON: cut short (at byte 21)"},
		{"syntax error", `{"id":1 "name":"Fern"}`, CodeInvalidJSON, `body: invalid JSON: invalid character '"' after object key:value pair (at byte 8)`},
		{"bare word", `nul`, CodeInvalidJSON, "body: invalid JSON: cut short (at byte 3)"},
		{"single quotes", `{'id':1,'name':'Fern'}`, CodeInvalidJSON, "body: invalid JSON: invalid character '\\'' looking for beginning of object key string (at byte 1)"},
		{"null", `null`, CodeInvalidJSON, "body: want an object, got JSON null"},
		{"array", `[{"id":1,"name":"Fern"}]`, CodeInvalidJSON, "body: want an object, got JSON array"},
		{"string", `"Fern"`, CodeInvalidJSON, "body: want an object, got JSON string"},
		{"number", `1`, CodeInvalidJSON, "body: want an object, got JSON number"},
		{"trailing garbage", `{"id":1,"name":"Fern"} x`, CodeInvalidJSON, "body: invalid JSON: data after the value (at byte 23)"},
		{"second object", `{"id":1,"name":"Fern"}{"id":2,"name":"Ivy"}`, CodeInvalidJSON, "body: invalid JSON: data after the value (at byte 22)"},
		{"repeated id", `{"id":1,"id":2,"name":"Fern"}`, CodeInvalidJSON, `body: field "id" appears more than once (at byte 8)`},
		{"repeated name via escape", `{"id":1,"name":"Fern","n\u0061me":"Ivy"}`, CodeInvalidJSON, `body: field "name" appears more than once (at byte 22)`},
		{"repeated unknown field", `{"id":1,"name":"Fern","x":1,"x":2}`, CodeInvalidJSON, `body: field "x" appears more than once (at byte 28)`},
		{"invalid UTF-8 in name", "{\"id\":1,\"name\":\"F\xffrn\"}", CodeInvalidJSON, "body: not valid UTF-8 (at byte 17)"},
		{"invalid UTF-8 in unknown field", "{\"id\":1,\"name\":\"Fern\",\"x\":\"\xc3\"}", CodeInvalidJSON, "not valid UTF-8"},
		{"overlong UTF-8 encoding", "{\"id\":1,\"name\":\"\xc0\xaf\"}", CodeInvalidJSON, "not valid UTF-8"},
		{"UTF-8 encoded surrogate", "{\"id\":1,\"name\":\"\xed\xa0\x80\"}", CodeInvalidJSON, "not valid UTF-8"},
		{"deeply nested arrays", strings.Repeat("[", 100000), CodeInvalidJSON, "exceeded max depth"},
		{"deeply nested field", `{"id":1,"name":"Fern","x":` + strings.Repeat(`{"a":`, 100000), CodeInvalidJSON, "exceeded max depth"},

		{"id missing", `{"name":"Fern"}`, CodeInvalidPlant, "id is required"},
		{"id null", `{"id":null,"name":"Fern"}`, CodeInvalidPlant, "id must be an integer that fits in int64, got null"},
		{"id string", `{"id":"1","name":"Fern"}`, CodeInvalidPlant, "id must be an integer that fits in int64, got a string"},
		{"id boolean", `{"id":true,"name":"Fern"}`, CodeInvalidPlant, "got a boolean"},
		{"id object", `{"id":{},"name":"Fern"}`, CodeInvalidPlant, "got an object"},
		{"id array", `{"id":[1],"name":"Fern"}`, CodeInvalidPlant, "got an array"},
		{"id fraction", `{"id":1.5,"name":"Fern"}`, CodeInvalidPlant, "no fraction or exponent), got 1.5"},
		{"id integral fraction", `{"id":1.0,"name":"Fern"}`, CodeInvalidPlant, "got 1.0"},
		{"id exponent", `{"id":1e3,"name":"Fern"}`, CodeInvalidPlant, "got 1e3"},
		{"id huge exponent", `{"id":1e100,"name":"Fern"}`, CodeInvalidPlant, "got 1e100"},
		{"id above int64", `{"id":9223372036854775808,"name":"Fern"}`, CodeInvalidPlant, "fits in int64, got 9223372036854775808"},
		{"id below int64", `{"id":-9223372036854775809,"name":"Fern"}`, CodeInvalidPlant, "fits in int64"},
		{"id very long", `{"id":` + strings.Repeat("9", 1000) + `,"name":"Fern"}`, CodeInvalidPlant, "99999…"},
		{"id case-sensitive", `{"ID":1,"name":"Fern"}`, CodeInvalidPlant, "id is required"},
		{"name missing", `{"id":1}`, CodeInvalidPlant, "name is required"},
		{"name null", `{"id":1,"name":null}`, CodeInvalidPlant, "name must be a string, got null"},
		{"name number", `{"id":1,"name":7}`, CodeInvalidPlant, "name must be a string, got a number"},
		{"name boolean", `{"id":1,"name":false}`, CodeInvalidPlant, "name must be a string, got a boolean"},
		{"name array", `{"id":1,"name":["Fern"]}`, CodeInvalidPlant, "name must be a string, got an array"},
		{"name empty", `{"id":1,"name":""}`, CodeInvalidPlant, "name must not be empty"},
		{"name case-sensitive", `{"id":1,"Name":"Fern"}`, CodeInvalidPlant, "name is required"},
		{"name lone high surrogate", `{"id":1,"name":"F\ud800rn"}`, CodeInvalidPlant, `name contains the unpaired surrogate escape \ud800`},
		{"name lone low surrogate", `{"id":1,"name":"\uDC00"}`, CodeInvalidPlant, `unpaired surrogate escape \uDC00`},
		{"name high surrogate at end", `{"id":1,"name":"Fern\ud83c"}`, CodeInvalidPlant, `unpaired surrogate escape \ud83c`},
		{"name high surrogate then letter", `{"id":1,"name":"\ud83c\u0041"}`, CodeInvalidPlant, `unpaired surrogate escape \ud83c`},
		{"name two high surrogates", `{"id":1,"name":"\ud83c\ud83c\udf31"}`, CodeInvalidPlant, `unpaired surrogate escape \ud83c`},
		{"tag null", `{"id":1,"name":"Fern","tag":null}`, CodeInvalidPlant, "tag must be a string, got null"},
		{"tag number", `{"id":1,"name":"Fern","tag":1}`, CodeInvalidPlant, "tag must be a string, got a number"},
		{"tag object", `{"id":1,"name":"Fern","tag":{}}`, CodeInvalidPlant, "tag must be a string, got an object"},
		{"tag lone surrogate", `{"id":1,"name":"Fern","tag":"\udfff"}`, CodeInvalidPlant, `tag contains the unpaired surrogate escape \udfff`},

		{"too large", `{"id":1,"name":"` + strings.Repeat("a", maxBodyBytes) + `"}`, CodeTooLarge, "larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			resp := post(t, s, tt.body)
			call := "POST /plants " + abbreviate([]byte(tt.body))
			checkError(t, call, resp, http.StatusBadRequest, tt.wantCode, tt.wantMsg)
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("after %s, Plants() = %+v, want none", call, got)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("after %s, len(Requests()) = %d, want 1", call, len(reqs))
			}
			if reqs[0].Invalid == nil || reqs[0].Invalid.Code != tt.wantCode {
				t.Errorf("after %s, Requests()[0].Invalid = %+v, want code %d", call, reqs[0].Invalid, tt.wantCode)
			}
		})
	}
}

func TestHandlerAcceptsValidBodies(t *testing.T) {
	t.Parallel()
	// A body of exactly the size limit is accepted.
	const frame = `{"id":1,"name":"Fern","x":""}`
	atLimit := `{"id":1,"name":"Fern","x":"` + strings.Repeat("a", maxBodyBytes-len(frame)) + `"}`
	if len(atLimit) != maxBodyBytes {
		t.Fatalf("atLimit is %d bytes, want %d", len(atLimit), maxBodyBytes)
	}

	tests := []struct {
		name        string
		contentType string // "" means application/json
		body        string
		want        plantstore.NewPlant
	}{
		{"minimal", "", `{"id":1,"name":"Fern"}`, plantstore.NewPlant{ID: 1, Name: "Fern"}},
		{"with tag", "", `{"id":2,"name":"Monstera","tag":"indoor"}`, plantstore.NewPlant{ID: 2, Name: "Monstera", Tag: "indoor"}},
		{"empty tag", "", `{"id":3,"name":"Fern","tag":""}`, plantstore.NewPlant{ID: 3, Name: "Fern"}},
		{"fields in any order", "", `{"tag":"t","name":"Fern","id":4}`, plantstore.NewPlant{ID: 4, Name: "Fern", Tag: "t"}},
		{"unknown fields ignored", "", `{"id":5,"name":"Fern","color":"green","extra":{"a":[1,2,null]},"Id":"x"}`, plantstore.NewPlant{ID: 5, Name: "Fern"}},
		{"whitespace around", "", " \r\n\t{ \"id\" : 6 , \"name\" : \"Fern\" }\n ", plantstore.NewPlant{ID: 6, Name: "Fern"}},
		{"id zero", "", `{"id":0,"name":"Fern"}`, plantstore.NewPlant{ID: 0, Name: "Fern"}},
		{"id negative zero", "", `{"id":-0,"name":"Fern"}`, plantstore.NewPlant{ID: 0, Name: "Fern"}},
		{"id negative", "", `{"id":-42,"name":"Fern"}`, plantstore.NewPlant{ID: -42, Name: "Fern"}},
		{"id max int64", "", `{"id":9223372036854775807,"name":"Fern"}`, plantstore.NewPlant{ID: 9223372036854775807, Name: "Fern"}},
		{"id min int64", "", `{"id":-9223372036854775808,"name":"Fern"}`, plantstore.NewPlant{ID: -9223372036854775808, Name: "Fern"}},
		{"non-ASCII name", "", `{"id":7,"name":"Fougère 🌱"}`, plantstore.NewPlant{ID: 7, Name: "Fougère 🌱"}},
		{"escaped name", "", `{"id":8,"name":"Foug\u00e8re \ud83c\udf31 \"q\" \\ \/ \n"}`, plantstore.NewPlant{ID: 8, Name: "Fougère 🌱 \"q\" \\ / \n"}},
		{"escaped backslash before u", "", `{"id":9,"name":"\\ud800"}`, plantstore.NewPlant{ID: 9, Name: `\ud800`}},
		{"replacement character sent as such", "", `{"id":10,"name":"\ufffd` + "\uFFFD" + `"}`, plantstore.NewPlant{ID: 10, Name: "\uFFFD\uFFFD"}},
		{"NUL escape", "", `{"id":11,"name":"a\u0000b"}`, plantstore.NewPlant{ID: 11, Name: "a\x00b"}},
		{"nested unknown field within depth limit", "", `{"id":12,"name":"Fern","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, plantstore.NewPlant{ID: 12, Name: "Fern"}},
		{"body at size limit", "", atLimit, plantstore.NewPlant{ID: 1, Name: "Fern"}},
		{"charset utf-8", "application/json; charset=utf-8", `{"id":13,"name":"Fern"}`, plantstore.NewPlant{ID: 13, Name: "Fern"}},
		{"charset upper case", "application/json;charset=UTF-8", `{"id":14,"name":"Fern"}`, plantstore.NewPlant{ID: 14, Name: "Fern"}},
		{"media type upper case", "Application/JSON", `{"id":15,"name":"Fern"}`, plantstore.NewPlant{ID: 15, Name: "Fern"}},
		{"another parameter ignored", "application/json; profile=plant", `{"id":16,"name":"Fern"}`, plantstore.NewPlant{ID: 16, Name: "Fern"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			header := validHeader(string(s.cfg.token))
			if tt.contentType != "" {
				header.Set("Content-Type", tt.contentType)
			}
			resp := send(t, s, http.MethodPost, "/plants", header, tt.body)
			call := "POST /plants " + abbreviate([]byte(tt.body))
			if resp.status != http.StatusOK {
				t.Fatalf("%s status = %d, want 200 (body %s)", call, resp.status, resp.body)
			}
			checkJSONContentType(t, call, resp)
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(resp.body, &fields); err != nil {
				t.Fatalf("%s body = %q, not a JSON object: %v", call, resp.body, err)
			}
			if _, ok := fields["id"]; ok {
				t.Errorf("%s body = %s, has an id; a Plant has none", call, resp.body)
			}
			if _, ok := fields["tag"]; ok && tt.want.Tag == "" {
				t.Errorf("%s body = %s, has a tag though the plant has none", call, resp.body)
			}
			var got plantstore.Plant
			if err := json.Unmarshal(resp.body, &got); err != nil {
				t.Fatalf("%s body = %s, not a Plant: %v", call, resp.body, err)
			}
			if diff := cmp.Diff(plantstore.Plant{Name: tt.want.Name, Tag: tt.want.Tag}, got); diff != "" {
				t.Errorf("%s body mismatch (-want +got):\n%s", call, diff)
			}
			if diff := cmp.Diff([]plantstore.NewPlant{tt.want}, s.Plants()); diff != "" {
				t.Errorf("after %s, Plants() mismatch (-want +got):\n%s", call, diff)
			}
		})
	}
}

func TestHandlerAuthorization(t *testing.T) {
	t.Parallel()
	const (
		token     = "s3cr3t-T0ken"
		ok        = ""
		none      = `Bearer realm="plantstore"`
		malformed = `Bearer realm="plantstore", error="invalid_request"`
		wrong     = `Bearer realm="plantstore", error="invalid_token"`
	)
	tests := []struct {
		name      string
		auth      []string // Authorization values; nil sends none
		challenge string   // the WWW-Authenticate of the 401; ok for a 200
	}{
		{"canonical", []string{"Bearer " + token}, ok},
		{"lower-case scheme", []string{"bearer " + token}, ok},
		{"upper-case scheme", []string{"BEARER " + token}, ok},
		{"several spaces", []string{"Bearer   " + token}, ok},
		{"missing", nil, none},
		{"empty", []string{""}, malformed},
		{"scheme only", []string{"Bearer"}, malformed},
		{"scheme and space only", []string{"Bearer "}, malformed},
		{"token only", []string{token}, malformed},
		{"basic scheme", []string{"Basic " + token}, malformed},
		{"other scheme", []string{"Token " + token}, malformed},
		{"tab separator", []string{"Bearer\t" + token}, malformed},
		{"no separator", []string{"Bearer" + token}, malformed},
		{"two headers", []string{"Bearer " + token, "Bearer " + token}, malformed},
		{"wrong token", []string{"Bearer wrong"}, wrong},
		{"token prefix", []string{"Bearer " + token[:len(token)-1]}, wrong},
		{"token with suffix", []string{"Bearer " + token + "x"}, wrong},
		{"token case differs", []string{"Bearer " + strings.ToUpper(token)}, wrong},
		{"token then more", []string{"Bearer " + token + " extra"}, wrong},
		{"default token", []string{"Bearer " + DefaultToken}, wrong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, WithToken(token))
			header := http.Header{"Content-Type": {"application/json"}}
			if tt.auth != nil {
				header["Authorization"] = tt.auth
			}
			resp := send(t, s, http.MethodPost, "/plants", header, `{"id":1,"name":"Fern"}`)
			call := "POST /plants with Authorization " + strings.Join(tt.auth, ", ")
			if tt.challenge == ok {
				if resp.status != http.StatusOK {
					t.Errorf("%s status = %d, want 200 (body %s)", call, resp.status, resp.body)
				}
				return
			}
			checkError(t, call, resp, http.StatusUnauthorized, CodeUnauthorized, "")
			if got := resp.header.Values("WWW-Authenticate"); !cmp.Equal(got, []string{tt.challenge}) {
				t.Errorf("%s WWW-Authenticate = %q, want %q", call, got, tt.challenge)
			}
			if bytes.Contains(resp.body, []byte(token)) {
				t.Errorf("%s body = %s, contains the token", call, resp.body)
			}
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("after %s, Plants() = %+v, want none", call, got)
			}
		})
	}
}

func TestHandlerChecksAuthorizationFirst(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	header := http.Header{"Content-Type": {"text/plain"}}
	resp := send(t, s, http.MethodPost, "/plants", header, `not json`)
	checkError(t, "POST /plants without token, with a bad body", resp, http.StatusUnauthorized, CodeUnauthorized, "missing Authorization header")
}

func TestHandlerContentType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		contentType []string // nil sends none
		wantMsg     string
	}{
		{"missing", nil, "missing Content-Type"},
		{"text/plain", []string{"text/plain"}, `got "text/plain"`},
		{"form", []string{"application/x-www-form-urlencoded"}, "must be application/json"},
		{"json suffix", []string{"application/problem+json"}, "must be application/json"},
		{"json prefix", []string{"application/jsonx"}, "must be application/json"},
		{"malformed", []string{"application/json; ="}, "must be application/json"},
		{"other charset", []string{"application/json; charset=latin1"}, `charset must be utf-8, got "latin1"`},
		{"two headers", []string{"application/json", "application/json"}, "more than one Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			header := http.Header{"Authorization": {"Bearer " + string(s.cfg.token)}}
			if tt.contentType != nil {
				header["Content-Type"] = tt.contentType
			}
			resp := send(t, s, http.MethodPost, "/plants", header, `{"id":1,"name":"Fern"}`)
			call := "POST /plants with Content-Type " + strings.Join(tt.contentType, ", ")
			checkError(t, call, resp, http.StatusBadRequest, CodeContentType, tt.wantMsg)
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("after %s, Plants() = %+v, want none", call, got)
			}
		})
	}
}

func TestHandlerRouting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, path string
		wantStatus   int
		wantCode     int32
	}{
		{http.MethodGet, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodPut, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodPatch, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodDelete, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodOptions, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodHead, "/plants", http.StatusMethodNotAllowed, CodeMethodNotAllowed},
		{http.MethodPost, "/", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/plant", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/plants/", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/plants/1", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/v1/plants", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/PLANTS", http.StatusNotFound, CodeNotFound},
		{http.MethodGet, "/plants/1", http.StatusNotFound, CodeNotFound},
		{http.MethodPost, "/plants%2F", http.StatusNotFound, CodeNotFound},
		{http.MethodGet, "/pl%61nts", http.StatusMethodNotAllowed, CodeMethodNotAllowed}, // a segment is decoded
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			resp := send(t, s, tt.method, tt.path, validHeader(string(s.cfg.token)), `{"id":1,"name":"Fern"}`)
			call := tt.method + " " + tt.path
			if tt.method == http.MethodHead { // no body to check
				if resp.status != tt.wantStatus {
					t.Errorf("%s status = %d, want %d", call, resp.status, tt.wantStatus)
				}
				checkJSONContentType(t, call, resp)
			} else {
				checkError(t, call, resp, tt.wantStatus, tt.wantCode, "")
			}
			if tt.wantStatus == http.StatusMethodNotAllowed {
				if got := resp.header.Get("Allow"); got != http.MethodPost {
					t.Errorf("%s Allow = %q, want %q", call, got, http.MethodPost)
				}
			}
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("after %s, Plants() = %+v, want none", call, got)
			}
		})
	}
}

func TestHandlerDuplicateIDs(t *testing.T) {
	t.Parallel()
	first := `{"id":7,"name":"Fern"}`
	second := `{"id":7,"name":"Ivy","tag":"climber"}`

	t.Run("rejected by default", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t)
		if resp := post(t, s, first); resp.status != http.StatusOK {
			t.Fatalf("POST /plants %s status = %d, want 200", first, resp.status)
		}
		resp := post(t, s, second)
		checkError(t, "POST /plants "+second, resp, http.StatusBadRequest, CodeDuplicateID, "plant 7 already exists")
		want := []plantstore.NewPlant{{ID: 7, Name: "Fern"}}
		if diff := cmp.Diff(want, s.Plants()); diff != "" {
			t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
		}
		// A duplicate is not a check failure: it depends on the state.
		if got := s.Requests()[1].Invalid; got != nil {
			t.Errorf("Requests()[1].Invalid = %+v, want nil", got)
		}
	})

	t.Run("rejected create reserves nothing", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t)
		if resp := post(t, s, `{"id":7,"name":""}`); resp.status != http.StatusBadRequest {
			t.Fatalf("POST /plants with empty name status = %d, want 400", resp.status)
		}
		if resp := post(t, s, first); resp.status != http.StatusOK {
			t.Errorf("POST /plants %s status = %d, want 200", first, resp.status)
		}
	})

	t.Run("stored with WithAllowDuplicateIDs", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, WithAllowDuplicateIDs())
		for _, body := range []string{first, second} {
			if resp := post(t, s, body); resp.status != http.StatusOK {
				t.Errorf("POST /plants %s status = %d, want 200 (body %s)", body, resp.status, resp.body)
			}
		}
		want := []plantstore.NewPlant{{ID: 7, Name: "Fern"}, {ID: 7, Name: "Ivy", Tag: "climber"}}
		if diff := cmp.Diff(want, s.Plants()); diff != "" {
			t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestWithRule(t *testing.T) {
	t.Parallel()
	noPoison := func(p plantstore.NewPlant) *ErrorBody {
		if strings.Contains(p.Name, "Poison") {
			return &ErrorBody{Code: 100, Message: "poisonous plants are not sold"}
		}
		return nil
	}
	var calls []string
	tagged := func(p plantstore.NewPlant) *ErrorBody {
		calls = append(calls, p.Name) // requests below are sequential
		if p.Tag == "" {
			return &ErrorBody{Code: 101, Message: "tag is required here"}
		}
		return nil
	}
	s := NewServer(t, WithRule(noPoison), WithRule(nil), WithRule(tagged))

	tests := []struct {
		body       string
		wantStatus int
		want       *ErrorBody
	}{
		{`{"id":1,"name":"Poison Ivy"}`, http.StatusBadRequest, &ErrorBody{Code: 100, Message: "poisonous plants are not sold"}},
		{`{"id":2,"name":"Fern"}`, http.StatusBadRequest, &ErrorBody{Code: 101, Message: "tag is required here"}},
		{`{"id":3,"name":"Fern","tag":"shade"}`, http.StatusOK, nil},
		{`{"id":4}`, http.StatusBadRequest, &ErrorBody{Code: CodeInvalidPlant, Message: "name is required"}},
	}
	for _, tt := range tests {
		resp := post(t, s, tt.body)
		if resp.status != tt.wantStatus {
			t.Errorf("POST /plants %s status = %d, want %d", tt.body, resp.status, tt.wantStatus)
		}
		if tt.want == nil {
			continue
		}
		var got ErrorBody
		if err := json.Unmarshal(resp.body, &got); err != nil {
			t.Fatalf("POST /plants %s body = %s, not an Error: %v", tt.body, resp.body, err)
		}
		if diff := cmp.Diff(*tt.want, got); diff != "" {
			t.Errorf("POST /plants %s body mismatch (-want +got):\n%s", tt.body, diff)
		}
	}
	// The first rule's rejection stops the second; invalid bodies reach no
	// rule.
	if diff := cmp.Diff([]string{"Fern", "Fern"}, calls); diff != "" {
		t.Errorf("second rule's calls mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]plantstore.NewPlant{{ID: 3, Name: "Fern", Tag: "shade"}}, s.Plants()); diff != "" {
		t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
	}
	if got, want := s.Requests()[0].Invalid, (&ErrorBody{Code: 100, Message: "poisonous plants are not sold"}); !cmp.Equal(got, want) {
		t.Errorf("Requests()[0].Invalid = %+v, want %+v", got, want)
	}
}

func TestPlantsKeepsArrivalOrderAndCopies(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	for _, body := range []string{`{"id":3,"name":"C"}`, `{"id":1,"name":"A"}`, `{"id":2,"name":"B","tag":"b"}`} {
		if resp := post(t, s, body); resp.status != http.StatusOK {
			t.Fatalf("POST /plants %s status = %d, want 200", body, resp.status)
		}
	}
	want := []plantstore.NewPlant{{ID: 3, Name: "C"}, {ID: 1, Name: "A"}, {ID: 2, Name: "B", Tag: "b"}}
	got := s.Plants()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Plants() mismatch (-want +got):\n%s", diff)
	}
	got[0].Name = "changed"
	_ = append(got[:1], plantstore.NewPlant{ID: 99})
	if diff := cmp.Diff(want, s.Plants()); diff != "" {
		t.Errorf("Plants() after modifying an earlier result mismatch (-want +got):\n%s", diff)
	}
}

func TestRequestsAreRecordedRedactedAndCopied(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	const body = `{"id":1,"name":"Fern"}`
	header := validHeader(string(s.cfg.token))
	header.Set("X-Trace", "abc")
	send(t, s, http.MethodPost, "/plants", header, body)
	header.Set("Authorization", "Basic dXNlcjpwYXNz")
	send(t, s, http.MethodPost, "/plants", header, body)
	header.Set("Authorization", "opaque")
	send(t, s, http.MethodGet, "/elsewhere", header, "")

	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("len(Requests()) = %d, want 3", len(reqs))
	}
	type summary struct {
		Method, Path, Authorization, ContentType, Trace, Body string
		Plant                                                 plantstore.NewPlant
		InvalidCode                                           int32
	}
	var got []summary
	for _, r := range reqs {
		sum := summary{
			Method:        r.Method,
			Path:          r.Path,
			Authorization: strings.Join(r.Header.Values("Authorization"), ", "),
			ContentType:   r.Header.Get("Content-Type"),
			Trace:         r.Header.Get("X-Trace"),
			Body:          string(r.Body),
			Plant:         r.Plant,
		}
		if r.Invalid != nil {
			sum.InvalidCode = r.Invalid.Code
		}
		got = append(got, sum)
	}
	want := []summary{
		{"POST", "/plants", "Bearer REDACTED", "application/json", "abc", body, plantstore.NewPlant{ID: 1, Name: "Fern"}, 0},
		{"POST", "/plants", "Basic REDACTED", "application/json", "abc", body, plantstore.NewPlant{}, CodeUnauthorized},
		{"GET", "/elsewhere", "REDACTED", "application/json", "abc", "", plantstore.NewPlant{}, CodeNotFound},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}

	reqs[0].Header.Set("X-Trace", "changed")
	reqs[0].Body[0] = 'X'
	reqs[1].Invalid.Code = 0
	again := s.Requests()
	if got := again[0].Header.Get("X-Trace"); got != "abc" {
		t.Errorf("Requests()[0].Header X-Trace after modifying an earlier result = %q, want %q", got, "abc")
	}
	if got := string(again[0].Body); got != body {
		t.Errorf("Requests()[0].Body after modifying an earlier result = %q, want %q", got, body)
	}
	if got := again[1].Invalid.Code; got != CodeUnauthorized {
		t.Errorf("Requests()[1].Invalid.Code after modifying an earlier result = %d, want %d", got, CodeUnauthorized)
	}
}

func TestRequestsBodyIsCutAtLimit(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	post(t, s, strings.Repeat(" ", 2*maxBodyBytes))
	reqs := s.Requests()
	if len(reqs) != 1 || len(reqs[0].Body) != maxBodyBytes {
		t.Fatalf("after an oversized POST, Requests() = %d requests, want 1 with a body of %d bytes", len(reqs), maxBodyBytes)
	}
}

// TestHandlerReadsBodyWhateverItsAnnouncedLength checks that the body is
// read, and recorded, up to the same limit whether its length is announced,
// unknown (chunked), or announced wrongly, as a middleware that replaced the
// body might leave it.
func TestHandlerReadsBodyWhateverItsAnnouncedLength(t *testing.T) {
	t.Parallel()
	const plant = `{"id":1,"name":"Fern","tag":"shade"}`
	large := `{"id":1,"name":"Fern","x":"` + strings.Repeat("a", 5000) + `"}`
	tooLarge := strings.Repeat(" ", maxBodyBytes+1)
	tests := []struct {
		name          string
		body          string
		contentLength int64
		wantCode      int32 // 0 for success
	}{
		{"announced", plant, int64(len(plant)), 0},
		{"unknown", plant, -1, 0},
		{"announced short", plant, 3, 0},
		{"announced zero", plant, 0, 0},
		{"announced long", plant, 1000, 0},
		{"large announced", large, int64(len(large)), 0},
		{"large announced short", large, 10, 0},
		{"large unknown", large, -1, 0},
		{"too large announced short", tooLarge, 10, CodeTooLarge},
		{"too large unknown", tooLarge, -1, CodeTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler()
			r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(tt.body))
			r.Header = validHeader(DefaultToken)
			r.ContentLength = tt.contentLength
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)

			reqs := h.Requests()
			if len(reqs) != 1 {
				t.Fatalf("after one request, len(Requests()) = %d, want 1", len(reqs))
			}
			want := tt.body
			if len(want) > maxBodyBytes {
				want = want[:maxBodyBytes]
			}
			if got := string(reqs[0].Body); got != want {
				t.Errorf("Requests()[0].Body = %q (%d bytes), want %q (%d bytes)", abbreviate(reqs[0].Body), len(got), abbreviate([]byte(want)), len(want))
			}
			if tt.wantCode == 0 {
				if w.Code != http.StatusOK || reqs[0].Invalid != nil {
					t.Errorf("status = %d, Requests()[0].Invalid = %+v; want 200 and nil (body %s)", w.Code, reqs[0].Invalid, w.Body)
				}
			} else if w.Code != http.StatusBadRequest || reqs[0].Invalid == nil || reqs[0].Invalid.Code != tt.wantCode {
				t.Errorf("status = %d, Requests()[0].Invalid = %+v; want 400 and code %d", w.Code, reqs[0].Invalid, tt.wantCode)
			}
		})
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	s := NewServer(tb)
	defer tb.cleanup()
	const body = `{"id":1,"name":"Fern"}`
	post(t, s, body)
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Times: 2})

	s.Reset()
	if got := s.Plants(); len(got) != 0 {
		t.Errorf("after Reset, Plants() = %+v, want none", got)
	}
	if got := s.Requests(); len(got) != 0 {
		t.Errorf("after Reset, Requests() = %+v, want none", got)
	}
	if got := repliesLeft(s.Faults()); got != 0 {
		t.Errorf("after Reset, replies left = %d, want 0", got)
	}
	// The id is free again, and the fault is gone.
	if resp := post(t, s, body); resp.status != http.StatusOK {
		t.Errorf("after Reset, POST /plants %s status = %d, want 200", body, resp.status)
	}
	tb.cleanup()
	if !tb.silent() {
		t.Errorf("cleanup after Reset reported %v, want nothing", tb)
	}
}

// TestResetKeepsSequences checks what Reset says it leaves as it was: the
// sequences of WithChaos and of a Profile's Traffic go on, and so do the
// rate limit's bucket and the schedule, counting on.
func TestResetKeepsSequences(t *testing.T) {
	t.Parallel()
	const n = 100
	rec := testRecording(t)
	h := NewHandler(WithChaos(0.5, 7), WithProfile(Profile{Traffic: rec}))
	chaotic, replayed := drawChaos(sourceOf[*chaos](h), n/2), drawReplay(sourceOf[*replay](h), n/2)
	h.Reset()
	chaotic = append(chaotic, drawChaos(sourceOf[*chaos](h), n/2)...)
	replayed = append(replayed, drawReplay(sourceOf[*replay](h), n/2)...)
	if diff := cmp.Diff(decisions(0.5, 7, n), chaotic); diff != "" {
		t.Errorf("chaos across Reset differs from seed 7's sequence (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(replayDecisions(rec, 7, n), replayed); diff != "" {
		t.Errorf("replay across Reset differs from seed 7's sequence (-want +got):\n%s", diff)
	}

	h = NewHandler(WithRateLimit(1, time.Hour))
	if w := serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`); w.Code != http.StatusOK {
		t.Fatalf("first request: status %d, want 200 (body %s)", w.Code, w.Body)
	}
	h.Reset()
	if w := serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`); w.Code != http.StatusTooManyRequests {
		t.Errorf("after Reset, the second request of 1 per hour: status %d, want 429 (body %s)", w.Code, w.Body)
	}

	h = NewHandler(WithSchedule("2:503"))
	if w := serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`); w.Code != http.StatusOK {
		t.Fatalf("request 1: status %d, want 200 (body %s)", w.Code, w.Body)
	}
	h.Reset()
	if w := serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`); w.Code != http.StatusServiceUnavailable || h.Schedule() != "2:503" {
		t.Errorf("after Reset, request 2 of 2:503: status %d, schedule %q; want 503, still 2:503", w.Code, h.Schedule())
	}
}
