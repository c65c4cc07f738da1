package plantstoretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/strictjson"
)

// referenceDecodePlant is what decodePlant must do, written the plain way:
// strictjson.Valid checks the body, as it does for every body the module
// reads, and encoding/json's Decoder reads the object's fields one by one.
// decodePlant walks the body by hand to run faster; the tests below hold it
// to the same results, messages included.
func referenceDecodePlant(body []byte) (plantstore.NewPlant, *ErrorBody) {
	if err := strictjson.Valid(body, new(plantstore.NewPlant)); err != nil {
		return plantstore.NewPlant{}, invalidJSON("body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v", err)
	}

	// The fields, rejecting a repeated name.
	dec = json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // the opening brace
		return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v", err)
	}
	fields := make(map[string]json.RawMessage)
	lead := len(body) - len(bytes.TrimLeft(body, " \t\r\n")) // obj's offset in body
	for dec.More() {
		at := lead + int(dec.InputOffset()) + bytes.IndexByte(obj[dec.InputOffset():], '"') // the name's
		tok, err := dec.Token()
		if err != nil {
			return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v", err)
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v", err)
		}
		if _, dup := fields[name]; dup {
			return plantstore.NewPlant{}, invalidJSON("body: field %q appears more than once (at byte %d)", name, at)
		}
		fields[name] = value
	}

	decodeString := func(name string, raw json.RawMessage) (string, *ErrorBody) {
		if raw[0] != '"' {
			return "", invalidPlant("%s must be a string, got %s", name, kindOf(raw))
		}
		if esc := strictjson.UnpairedSurrogate(raw); esc != "" {
			return "", invalidPlant("%s contains the unpaired surrogate escape %s, which is not a character", name, esc)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", invalidPlant("%s must be a string: %v", name, err)
		}
		return s, nil
	}
	var (
		p plantstore.NewPlant
		e *ErrorBody
	)
	if p.ID, e = decodeID(fields["id"]); e != nil {
		return plantstore.NewPlant{}, e
	}
	raw, ok := fields["name"]
	if !ok {
		return plantstore.NewPlant{}, invalidPlant("name is required")
	}
	if p.Name, e = decodeString("name", raw); e != nil {
		return plantstore.NewPlant{}, e
	}
	if p.Name == "" {
		return plantstore.NewPlant{}, invalidPlant("name must not be empty")
	}
	if raw, ok := fields["tag"]; ok {
		if p.Tag, e = decodeString("tag", raw); e != nil {
			return plantstore.NewPlant{}, e
		}
	}
	return p, nil
}

// decodeBodies are small bodies that probe the corners of decodePlant; they
// also seed FuzzDecodePlant.
var decodeBodies = []string{
	``, ` `, " \r\n\t", `{`, `}`, `{}`, ` {} `, `{} x`, `{}{}`, `{} {`, `[]`, `[] x`, `1`, `1 2`, `1x`, `-`,
	`-0`, `01`, `null`, `nul`, `true`, `"x"`, `"x" "y"`, `"\ud800"`, "\ufeff{}", "{}\x00",
	`{"id":1,"name":"Fern"}`,
	`{"id":1,"name":"Fern","tag":"t"}`,
	" \r\n\t{ \"id\" : 6 , \"name\" : \"Fern\" , \"tag\" : \"t\" }\n ",
	`{"id":1,"name":"Fern"`, `{"id":1,"name":"Fern",}`, `{"id":1 "name":"Fern"}`, `{"id":1,"name":"Fern"} {"id":2}`,
	`{"id":1,"name":"Fern"}]`, `{"id":1,"name":"Fern"}}`, `{"id":1,"name":"Fern"`, `{"id":1,"name":"Fern`,
	`{"id":1,"name":"Fern\`, `{"id":1,"name":"Fe\qrn"}`, `{"id":1,"name":"Fe\u12rn"}`, "{\"id\":1,\"name\":\"F\x01rn\"}",
	`{'id':1}`, `{id:1}`, `{"id":+1,"name":"Fern"}`, `{"id":1.,"name":"Fern"}`, `{"id":.5,"name":"Fern"}`,
	`{"id":1,"id":2,"name":"Fern"}`, `{"id":1,"name":"Fern","n\u0061me":"Ivy"}`, `{"\u0069d":1,"name":"Fern"}`,
	`{"id":1,"name":"Fern","x":1,"x":2}`, `{"\ud800":1,"\udc00":2,"id":1,"name":"Fern"}`,
	`{"\ud800":1,"\ufffd":2}`, `{"":1,"":2}`, `{"a\"b":1,"a\"b":2}`, `{"a\\":1,"a\\":2}`,
	`{"x":{"id":1,"id":2},"id":3,"name":"Fern"}`, `{"x":[{"name":"a"},{"name":"b"}],"id":3,"name":"Fern"}`,
	`{"id":1,"name":"Fern","x":[[[{"a":[{"b":{}}]}]],[]]}`, `[[[[[[[[`, `{"x":[[[[[[[[`,
	`{"x":"}","y":"]\"{","z":[],"w":{},"id":1,"name":"Fern"}`,
	`{"id":1,"name":"Fern","x":[1,-2.5e+3,true,false,null,"s",{"a":[{}]}]}`,
	"{\"id\":1,\"name\":\"F\xffrn\"}", "{\"id\":1,\"name\":\"\xc0\xaf\"}", "{\"id\":1,\"name\":\"\xed\xa0\x80\"}",
	`{"name":"Fern"}`, `{"id":null,"name":"Fern"}`, `{"id":"1","name":"Fern"}`, `{"id":true,"name":"Fern"}`,
	`{"id":false,"name":"Fern"}`, `{"id":{},"name":"Fern"}`, `{"id":[1],"name":"Fern"}`, `{"id":1.5,"name":"Fern"}`,
	`{"id":1.0,"name":"Fern"}`, `{"id":1e3,"name":"Fern"}`, `{"id":1E3,"name":"Fern"}`, `{"id":-1e-3,"name":"Fern"}`,
	`{"id":9223372036854775807,"name":"Fern"}`, `{"id":9223372036854775808,"name":"Fern"}`,
	`{"id":-9223372036854775808,"name":"Fern"}`, `{"id":-9223372036854775809,"name":"Fern"}`,
	`{"id":` + strings.Repeat("9", 1000) + `,"name":"Fern"}`, `{"id":-0,"name":"Fern"}`, `{"id" : 7 ,"name":"Fern"}`,
	`{"ID":1,"name":"Fern"}`, `{"id":1}`, `{"id":1,"name":null}`, `{"id":1,"name":7}`, `{"id":1,"name":false}`,
	`{"id":1,"name":["Fern"]}`, `{"id":1,"name":{}}`, `{"id":1,"name":""}`, `{"id":1,"Name":"Fern"}`,
	`{"id":1,"name":"F\ud800rn"}`, `{"id":1,"name":"\uDC00"}`, `{"id":1,"name":"Fern\ud83c"}`,
	`{"id":1,"name":"\ud83c\u0041"}`, `{"id":1,"name":"\ud83c\ud83c\udf31"}`, `{"id":1,"name":"\ud83c\udf31"}`,
	`{"id":1,"name":"Foug\u00e8re \"q\" \\ \/ \b\f\n\r\t"}`, `{"id":1,"name":"\\ud800"}`, `{"id":1,"name":"\\\ud800"}`,
	`{"id":1,"name":"\ufffd` + "\uFFFD" + `"}`, `{"id":1,"name":"a\u0000b"}`, `{"id":1,"name":"\u0000"}`,
	`{"id":1,"name":"Fern","tag":null}`, `{"id":1,"name":"Fern","tag":1}`, `{"id":1,"name":"Fern","tag":{}}`,
	`{"id":1,"name":"Fern","tag":""}`, `{"id":1,"name":"Fern","tag":"\udfff"}`, `{"id":1,"name":"Fern","tag":"a\tb"}`,
	`{"id":1.5,"name":null,"id":2}`, `{"name":null,"name":1}`, `{"tag":1,"id":1,"name":"Fern"}`,
	`{"id":1,"name":"Fern","tag":"t","tag":"u"}`,
	// More fields than strictjson.NameSet compares directly.
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"id":1,"name":"Fern","tag":"t"}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"a":9}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"h":10}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"j":12,"a":13}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"id":1,"name":"Fern","tag":"t","n\u0061me":"x"}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"id":1,"name":"Fern","tag":"t","\u0069d":2}`,
}

func TestDecodePlantMatchesReference(t *testing.T) {
	t.Parallel()
	bodies := append([]string(nil), decodeBodies...)
	// Nesting at and past encoding/json's limit of 10000 levels.
	for _, depth := range []int{9999, 10000, 10001, 100000} {
		bodies = append(bodies,
			strings.Repeat("[", depth)+strings.Repeat("]", depth),
			`{"id":1,"name":"Fern","x":`+strings.Repeat("[", depth)+strings.Repeat("]", depth)+`}`,
			`{"id":1,"name":"Fern","x":`+strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth)+`}`,
			`{"id":1,"name":"Fern","x":`+strings.Repeat(`{"a":`, depth),
		)
	}
	// An object of many fields, which strictjson.NameSet keeps in a map.
	var many strings.Builder
	many.WriteString(`{"id":1,"name":"Fern"`)
	for i := range 20000 {
		fmt.Fprintf(&many, `,"f%d":%d`, i, i)
	}
	bodies = append(bodies,
		many.String()+"}",
		many.String()+`,"f19999":1}`,
		many.String()+`,"f0":1,"f1":1}`,
		many.String()+`,"n\u0061me":"Ivy"}`,
	)
	for _, body := range bodies {
		checkDecodeMatchesReference(t, []byte(body))
	}
}

// FuzzDecodePlant checks decodePlant against referenceDecodePlant.
func FuzzDecodePlant(f *testing.F) {
	for _, body := range decodeBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecodeMatchesReference(t, body)
	})
}

func checkDecodeMatchesReference(t *testing.T, body []byte) {
	t.Helper()
	wantPlant, wantErr := referenceDecodePlant(body)
	gotPlant, gotErr := decodePlant(body)
	if diff := cmp.Diff(wantPlant, gotPlant); diff != "" {
		t.Errorf("decodePlant(%q) plant mismatch (-reference +got):\n%s", abbreviate(body), diff)
	}
	if diff := cmp.Diff(wantErr, gotErr); diff != "" {
		t.Errorf("decodePlant(%q) error mismatch (-reference +got):\n%s", abbreviate(body), diff)
	}
}

// BenchmarkDecodePlant compares decodePlant with referenceDecodePlant on
// the body of a typical create.
func BenchmarkDecodePlant(b *testing.B) {
	body := []byte(`{"id":7,"name":"Monstera","tag":"indoor"}`)
	impls := []struct {
		name   string
		decode func([]byte) (plantstore.NewPlant, *ErrorBody)
	}{
		{"reference", referenceDecodePlant},
		{"decodePlant", decodePlant},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, e := impl.decode(body); e != nil {
					b.Fatalf("decoding %s: %v", body, e.Message)
				}
			}
		})
	}
}

// TestDecodePlantAllocations guards what makes decodePlant cheap: a typical
// body costs the two strings of the plant and nothing else.
func TestDecodePlantAllocations(t *testing.T) {
	body := []byte(`{"id":7,"name":"Monstera","tag":"indoor"}`)
	allocs := testing.AllocsPerRun(100, func() {
		if _, e := decodePlant(body); e != nil {
			t.Fatalf("decodePlant(%s): %v", body, e.Message)
		}
	})
	if allocs > 2 {
		t.Errorf("decodePlant(%s) made %v allocations, want at most 2 (name and tag)", body, allocs)
	}
}
