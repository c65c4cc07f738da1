package plantstoretest

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/strictjson"
)

// decodePlant decodes body as a NewPlant, as strictly as the package
// documentation says. It runs on every request, so strictjson.Valid checks
// the body, allocating only for a refusal, and a walk that trusts it finds
// the fields (TestDecodePlantAllocations).
func decodePlant(body []byte) (plantstore.NewPlant, *ErrorBody) {
	return decodePlantAt(body, 0, len(body))
}

// decodePlantAt is decodePlant for the value at data[start:end], an
// element of a seed that strictjson.Valid accepted; its messages count
// offsets from the seed's start.
func decodePlantAt(data []byte, start, end int) (plantstore.NewPlant, *ErrorBody) {
	if err := strictjson.Valid(data[start:end], (*plantstore.NewPlant)(nil)); err != nil {
		return plantstore.NewPlant{}, &ErrorBody{Code: CodeInvalidJSON, Message: "body: " + err.Error()}
	}
	fields, e := objectFields(data[:end], strictjson.SkipSpace(data, start))
	if e != nil {
		return plantstore.NewPlant{}, e
	}

	var p plantstore.NewPlant
	if p.ID, e = decodeID(fields.id); e != nil {
		return plantstore.NewPlant{}, e
	}
	if fields.name == nil {
		return plantstore.NewPlant{}, invalidPlant("name is required")
	}
	if p.Name, e = decodeString("name", fields.name); e != nil {
		return plantstore.NewPlant{}, e
	}
	if p.Name == "" {
		return plantstore.NewPlant{}, invalidPlant("name must not be empty")
	}
	if fields.tag != nil {
		if p.Tag, e = decodeString("tag", fields.tag); e != nil {
			return plantstore.NewPlant{}, e
		}
	}
	return p, nil
}

func invalidJSON(format string, args ...any) *ErrorBody {
	return &ErrorBody{Code: CodeInvalidJSON, Message: fmt.Sprintf(format, args...)}
}

func invalidPlant(format string, args ...any) *ErrorBody {
	return &ErrorBody{Code: CodeInvalidPlant, Message: fmt.Sprintf(format, args...)}
}

// plantFields are the values of the NewPlant fields in an object, as JSON
// text; nil for a field that is missing.
type plantFields struct {
	id, name, tag []byte
}

// objectFields finds the NewPlant fields in the JSON object at
// body[start], which strictjson.Valid accepted, and rejects a field name
// that appears twice ([strictjson.NameSet]).
func objectFields(body []byte, start int) (plantFields, *ErrorBody) {
	var (
		fields plantFields
		names  strictjson.NameSet
	)
	i := strictjson.SkipSpace(body, start+1) // after the opening brace
	for body[i] != '}' {
		end := strictjson.SkipString(body, i)
		name := strictjson.Unescape(body[i:end])
		if names.Add(name) {
			return plantFields{}, &ErrorBody{Code: CodeInvalidJSON, Message: "body: " + strictjson.RepeatedName(i, name).Error()}
		}
		i = strictjson.SkipSpace(body, strictjson.SkipSpace(body, end)+1) // after the colon
		end = strictjson.SkipValue(body, i)
		switch string(name) {
		case "id":
			fields.id = body[i:end]
		case "name":
			fields.name = body[i:end]
		case "tag":
			fields.tag = body[i:end]
		}
		i = strictjson.SkipSpace(body, end)
		if body[i] == ',' {
			i = strictjson.SkipSpace(body, i+1)
		}
	}
	return fields, nil
}

// decodeID decodes the id field, raw, nil if it is missing.
func decodeID(raw []byte) (int64, *ErrorBody) {
	if raw == nil {
		return 0, invalidPlant("id is required")
	}
	const want = "id must be an integer that fits in int64"
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, invalidPlant("%s, got %s", want, kindOf(raw))
	}
	if bytes.ContainsAny(raw, ".eE") {
		return 0, invalidPlant("%s (no fraction or exponent), got %s", want, abbreviate(raw))
	}
	id, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, invalidPlant("%s, got %s", want, abbreviate(raw))
	}
	return id, nil
}

// decodeString decodes the string field called name, raw.
func decodeString(name string, raw []byte) (string, *ErrorBody) {
	if raw[0] != '"' {
		return "", invalidPlant("%s must be a string, got %s", name, kindOf(raw))
	}
	if esc := strictjson.UnpairedSurrogate(raw); esc != "" {
		return "", invalidPlant("%s contains the unpaired surrogate escape %s, which is not a character", name, esc)
	}
	return string(strictjson.Unescape(raw)), nil
}

// kindOf names the kind of JSON value v is, for messages: "a boolean".
func kindOf(v []byte) string {
	k := strictjson.Kind(v[0])
	return cmp.Or(kindPhrases[k], "a "+k)
}

// kindPhrases are the kinds that kindOf does not name with "a".
var kindPhrases = map[string]string{"null": "null", "bool": "a boolean", "array": "an array", "object": "an object"}

// abbreviate returns v, shortened if it is too long to quote in a message.
func abbreviate(v []byte) string {
	const max = 32
	if len(v) > max {
		return string(v[:max]) + "…"
	}
	return string(v)
}
