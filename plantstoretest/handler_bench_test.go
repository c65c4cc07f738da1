package plantstoretest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// BenchmarkHandler serves requests through ServeHTTP with a recorder, one
// sub-benchmark for each kind of reply: the fake's own cost per request,
// without the network. Its allocations guard refuse's.
func BenchmarkHandler(b *testing.B) {
	profile := WithProfile(Profile{
		DuplicateID: &ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":"id {id} is taken"}`},
		AuthMissing: &ProfileReply{Status: 401, Body: "unauthorized"},
	})
	fern := func(int) string { return `{"id":1,"name":"Fern"}` }
	tests := []struct {
		name         string
		opts         []Option
		method, path string
		token        string
		body         func(i int) string // nil for none
	}{
		{"create", nil, http.MethodPost, "/plants", DefaultToken,
			func(i int) string { return `{"id":` + strconv.Itoa(i+2) + `,"name":"Fern","tag":"shade"}` }},
		{"duplicate", nil, http.MethodPost, "/plants", DefaultToken, fern},
		{"duplicate, profiled", []Option{profile}, http.MethodPost, "/plants", DefaultToken, fern},
		{"no token", nil, http.MethodPost, "/plants", "", fern},
		{"no token, profiled", []Option{profile}, http.MethodPost, "/plants", "", fern},
		{"not found", nil, http.MethodGet, "/nope", DefaultToken, nil},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			h := NewHandler(append([]Option{WithJournalLimit(1000), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern"})}, tt.opts...)...)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var r *http.Request
				if tt.body == nil {
					r = httptest.NewRequest(tt.method, tt.path, nil)
				} else {
					r = httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body(i)))
					r.Header.Set("Content-Type", "application/json")
				}
				if tt.token != "" {
					r.Header.Set("Authorization", "Bearer "+tt.token)
				}
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
