package plantstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// FuzzHandler sends the fake arbitrary requests. Whatever arrives, the reply
// is a 200 with a Plant body (a non-empty name, no id) and the plant stored,
// or an Error body with both fields, JSON content type, and nothing stored.
func FuzzHandler(f *testing.F) {
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":7,"name":"Monstera","tag":"indoor"}`))
	f.Add("POST", "/plants", "bearer  "+DefaultToken, "application/json; charset=utf-8", []byte(`{"name":"Fern","id":-9223372036854775808,"x":[{}]}`))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":1e3,"name":"x"}`))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":1,"name":"\ud800"}`))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":1,"name":"a","name":"b"}`))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":1,"name":"a"} {}`))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(strings.Repeat("[", 20000)))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "text/plain", []byte(`{"id":1,"name":"a"}`))
	f.Add("POST", "/plants", "Basic abc", "application/json", []byte(`{}`))
	f.Add("GET", "/plants", "", "", []byte{})
	f.Add("POST", "/plants/", "Bearer "+DefaultToken, "application/json", []byte("\xff"))
	f.Add("POST", "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{"id":1,"n\u0061me":"x","tag":"\u00e9\n"}`))
	f.Add(DefaultToken, "/plants", "Bearer "+DefaultToken, "application/json", []byte(`{}`))

	f.Fuzz(func(t *testing.T, method, path, auth, contentType string, body []byte) {
		if _, err := url.ParseRequestURI(path); err != nil || !validMethod(method) ||
			!strings.HasPrefix(path, "/") || strings.ContainsAny(path, " ?#") || !isPrintableASCII(path) {
			t.Skip("not a request net/http would deliver")
		}
		h := NewHandler()
		r := httptest.NewRequest(method, "http://plants.test"+path, bytes.NewReader(body))
		r.Header = http.Header{"Authorization": {auth}, "Content-Type": {contentType}}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)

		resp := w.Result()
		plants := h.Plants()
		if resp.StatusCode == http.StatusOK {
			var p map[string]json.RawMessage
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("200 body %q is not a JSON object: %v", w.Body.Bytes(), err)
			}
			var got plantstore.Plant
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Name == "" || p["id"] != nil {
				t.Fatalf("200 body %q is not a Plant with a name and no id (err %v)", w.Body.Bytes(), err)
			}
			if len(plants) != 1 || plants[0].Name != got.Name || plants[0].Tag != got.Tag {
				t.Fatalf("200 with %+v, but stored %+v", got, plants)
			}
			// Decode the accepted body independently: it must hold exactly
			// the plant that was stored.
			if want, err := independentDecode(body); err != nil || want != plants[0] {
				t.Fatalf("stored %+v from body %q; encoding/json reads %+v (err %v)", plants[0], body, want, err)
			}
			return
		}
		if len(plants) != 0 {
			t.Fatalf("status %d, but stored %+v", resp.StatusCode, plants)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("status %d has Content-Type %q, want application/json", resp.StatusCode, ct)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &fields); err != nil || fields["error"] == nil || fields["message"] == nil {
			t.Fatalf("status %d body %q is not an Error with both fields (err %v)", resp.StatusCode, w.Body.Bytes(), err)
		}
		var e ErrorBody
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Message == "" {
			t.Fatalf("status %d body %q: want an Error with a message (err %v)", resp.StatusCode, w.Body.Bytes(), err)
		}
		if strings.Contains(e.Message, DefaultToken) && !strings.Contains(method+path, DefaultToken) {
			t.Fatalf("error message %q contains the token", e.Message)
		}
	})
}

// validMethod reports whether m is a token, as net/http requires of a method.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// independentDecode reads a body the fake accepted with encoding/json alone,
// as a second opinion on what it holds.
func independentDecode(body []byte) (plantstore.NewPlant, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return plantstore.NewPlant{}, err
	}
	var p plantstore.NewPlant
	var id json.Number
	if err := json.Unmarshal(fields["id"], &id); err != nil {
		return p, err
	}
	n, err := id.Int64()
	if err != nil {
		return p, err
	}
	p.ID = n
	if err := json.Unmarshal(fields["name"], &p.Name); err != nil {
		return p, err
	}
	if raw, ok := fields["tag"]; ok {
		if err := json.Unmarshal(raw, &p.Tag); err != nil {
			return p, err
		}
	}
	// encoding/json turns invalid UTF-8 and unpaired surrogate escapes into
	// U+FFFD, where the fake must reject them: each U+FFFD decoded must
	// have been sent as one.
	if strings.Count(p.Name, "\uFFFD") != sentReplacementChars(fields["name"]) ||
		strings.Count(p.Tag, "\uFFFD") != sentReplacementChars(fields["tag"]) {
		return p, errors.New("a U+FFFD was decoded that was not sent: the decoding replaced bytes")
	}
	return p, nil
}

// sentReplacementChars counts the U+FFFD characters that a JSON string
// literal spells out, as UTF-8 or as an escape.
func sentReplacementChars(lit []byte) int {
	n := 0
	for i := 0; i < len(lit); i++ {
		switch {
		case lit[i] == '\\' && i+5 < len(lit) && lit[i+1] == 'u' && strings.EqualFold(string(lit[i+2:i+6]), "fffd"):
			n++
			i += 5
		case lit[i] == '\\':
			i++ // skip the escaped character, which may be a backslash
		case bytes.HasPrefix(lit[i:], []byte("\uFFFD")):
			n++
			i += len("\uFFFD") - 1
		}
	}
	return n
}
