package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// jsonText is a JSON string decoded to its UTF-8 bytes, kept rather than
// copied: a fault's scripted body may be most of a 1 MiB request.
// encoding/json hands UnmarshalText a string without escapes where it lies
// in the body being decoded, which is the control API's own buffer and
// never reused, and a string with escapes unescaped into a new slice. As a
// TextUnmarshaler it takes a string or null only; strictjson refuses any
// other value first, naming the field, on every Go.
type jsonText []byte

// UnmarshalText keeps text (see jsonText).
func (t *jsonText) UnmarshalText(text []byte) error {
	*t = text[:len(text):len(text)]
	return nil
}

// writeJSONWithBody sends v, whose "body" field is null, as writeJSON does,
// but with body in that field as a JSON string, escaped as it is written in
// small pieces: a fault's echoed body is never held again whole.
func writeJSONWithBody(w http.ResponseWriter, status int, v any, body []byte) {
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a plain struct: it always marshals
	const field = `"body":null`
	i := bytes.Index(head.Bytes(), []byte(field))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if i < 0 { // not a fault reply: cannot happen
		_, _ = w.Write(head.Bytes())
		return
	}
	_, _ = w.Write(head.Bytes()[:i+len(`"body":`)])
	buf := make([]byte, 0, 32<<10)
	buf = append(buf, '"')
	for len(body) > 0 {
		r, size := utf8.DecodeRune(body)
		buf = appendEscaped(buf, r, body[:size])
		body = body[size:]
		if len(buf) > cap(buf)-16 {
			_, _ = w.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, '"')
	_, _ = w.Write(buf)
	_, _ = w.Write(head.Bytes()[i+len(field):])
}

// appendEscaped appends the rune r, whose UTF-8 encoding is raw, as it
// appears in a JSON string written by encoding/json with HTML escaping off.
func appendEscaped(buf []byte, r rune, raw []byte) []byte {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		return append(buf, '\\', byte(r))
	case r == '\n':
		return append(buf, '\\', 'n')
	case r == '\r':
		return append(buf, '\\', 'r')
	case r == '\t':
		return append(buf, '\\', 't')
	case r < 0x20:
		return append(buf, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	case r == utf8.RuneError && len(raw) == 1:
		return append(buf, `\ufffd`...)
	case r == '\u2028' || r == '\u2029':
		return append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
	}
	return append(buf, raw...)
}
