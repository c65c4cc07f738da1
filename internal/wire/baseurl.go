package wire

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// ParseBaseURL checks a base URL, the URL of the API that operations'
// paths follow, and returns it parsed. It is the one rule of what a client
// can use: plantstore.NewClient holds its base URL to it, and the mock the
// base_url it answers. Its errors never quote user info, which might hold
// a password.
//
// The URL must be http or https; its host a name (letters of any script,
// digits, '-', '.', '_'), an IPv4 address or an IPv6 address in brackets,
// then optionally ':' and a port from 1 to 65535; with no user info,
// query, fragment or white space.
func ParseBaseURL(baseURL string) (*url.URL, error) {
	if baseURL == "" {
		return nil, errors.New("plantstore: base URL must not be empty")
	}
	// url.Parse keeps a space in the path, so "https://host/api " (from an
	// env file, say) would send every request to "/api%20/plants".
	if i := strings.IndexFunc(baseURL, unicode.IsSpace); i >= 0 {
		return nil, fmt.Errorf("plantstore: base URL has a space at byte %d (trim it, or write %%20 if it is meant)", i)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) && !strings.Contains(baseURL, "@") {
			return nil, fmt.Errorf("plantstore: invalid base URL: %w", urlErr.Err)
		}
		return nil, errors.New("plantstore: invalid base URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		// The "scheme" of "user:password@host" is the user name: don't echo it.
		return nil, errors.New("plantstore: base URL scheme must be http or https (want e.g. https://host)")
	case u.User != nil:
		return nil, errors.New("plantstore: base URL must not contain user info: pass credentials with WithToken")
	case u.Host == "":
		return nil, errors.New("plantstore: base URL has no host")
	case hostProblem(u.Host) != "":
		return nil, errors.New("plantstore: base URL " + hostProblem(u.Host))
	case u.RawQuery != "" || u.ForceQuery:
		return nil, errors.New("plantstore: base URL must not have a query")
	case u.Fragment != "" || strings.Contains(baseURL, "#"): // "#" alone leaves Fragment empty
		return nil, errors.New("plantstore: base URL must not have a fragment")
	}
	return u, nil
}

// hostProblem reports why host, a parsed URL's Host, breaks ParseBaseURL's
// rule of a host and port, or "".
func hostProblem(host string) string {
	const bad = "host must be a name (letters, digits, '-', '.', '_'), an IPv4 address or an [IPv6] address"
	name, port := host, ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return bad
		}
		if ip, err := netip.ParseAddr(host[1:end]); err != nil || !ip.Is6() {
			return bad
		}
		name, port = "", host[end+1:]
		if port != "" && port[0] != ':' {
			return bad
		}
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		name, port = host[:i], host[i:]
		if name == "" {
			return bad
		}
	}
	if strings.IndexFunc(name, notNameRune) >= 0 {
		return bad
	}
	if port != "" {
		if n, err := strconv.Atoi(port[1:]); err != nil || port[1] < '0' || port[1] > '9' || n < 1 || n > 65535 {
			return "port must be 1 to 65535"
		}
	}
	return ""
}

// notNameRune reports whether r may not be in a host name.
func notNameRune(r rune) bool {
	return !(unicode.IsLetter(r) || '0' <= r && r <= '9' || r == '-' || r == '.' || r == '_')
}
