package plantstore

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// validPort reports whether p, the port of a parsed URL, is absent or one a
// connection can be made to. url.Parse checks only that it is digits.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// parseBaseURL checks baseURL and returns it parsed. Its errors never quote
// user info, which might hold a password.
func parseBaseURL(baseURL string) (*url.URL, error) {
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
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("plantstore: base URL has no host")
	case !validPort(u.Port()):
		return nil, errors.New("plantstore: base URL port must be 1 to 65535")
	case u.User != nil:
		return nil, errors.New("plantstore: base URL must not contain user info: pass credentials with WithToken")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, errors.New("plantstore: base URL must not have a query")
	case u.Fragment != "":
		return nil, errors.New("plantstore: base URL must not have a fragment")
	}
	return u, nil
}
