package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// jsonText is a JSON string decoded to its UTF-8 bytes, kept rather than
// copied: a fault's scripted body may be most of a 1 MiB request, and
// encoding/json hands UnmarshalText a string without escapes where it lies
// in the control API's own buffer, never reused. It takes a string or null
// only; strictjson refuses any other value first, naming the field.
type jsonText []byte

// UnmarshalText keeps text (see jsonText).
func (t *jsonText) UnmarshalText(text []byte) error {
	*t = text[:len(text):len(text)]
	return nil
}

// writeJSONWithBody sends v, whose "body" field is null, as writeJSON does,
// but with body in that field as a JSON string, encoded in pieces cut
// between runes: a fault's echoed body is never held again whole.
func writeJSONWithBody(w http.ResponseWriter, status int, v any, body []byte) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a plain struct: it always marshals
	head, tail, _ := bytes.Cut(buf.Bytes(), []byte(`"body":null`))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(head)
	_, _ = w.Write([]byte(`"body":"`))
	var piece bytes.Buffer
	enc = json.NewEncoder(&piece)
	enc.SetEscapeHTML(false)
	for len(body) > 0 {
		n := min(len(body), 32<<10)
		for back := 0; back < utf8.UTFMax-1 && n < len(body) && !utf8.RuneStart(body[n]); back++ {
			n-- // a rune is never split; a byte that starts none is escaped alone either way
		}
		piece.Reset()
		_ = enc.Encode(string(body[:n]))
		_, _ = w.Write(piece.Bytes()[1 : piece.Len()-2]) // without the quotes and the newline
		body = body[n:]
	}
	_, _ = w.Write([]byte(`"`))
	_, _ = w.Write(tail)
}
