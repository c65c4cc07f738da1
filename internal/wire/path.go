package wire

import (
	"net/url"
	"strings"
)

// MatchPath reports whether the escaped path matches pattern, and returns the
// values of the pattern's {name} segments (nil if it has none). The two are
// compared segment by segment, each segment of the path decoded once: a
// {name} segment matches any segment but an empty one ("/plants/a%2Fb"
// gives "a/b" for "/plants/{id}"), and any other matches only itself. So
// /plants/ and /plants/1/x match neither /plants nor /plants/{id}. It runs
// on every request, and allocates only for {name} segments and escapes.
func MatchPath(pattern, path string) (values map[string]string, ok bool) {
	for {
		w, wantRest, wantMore := strings.Cut(pattern, "/")
		g, gotRest, gotMore := strings.Cut(path, "/")
		v, err := url.PathUnescape(g)
		switch {
		case err != nil, v == "" && w != "", wantMore != gotMore:
			return nil, false
		case strings.HasPrefix(w, "{"):
			if values == nil {
				values = make(map[string]string)
			}
			values[w[1:len(w)-1]] = v
		case v != w:
			return nil, false
		}
		if !wantMore {
			return values, true
		}
		pattern, path = wantRest, gotRest
	}
}
