package plantstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// bearer returns the function that gives an attempt its bearer token and
// the Authorization header that carries it: the fixed token, or one asked
// of tokenFunc. [Client.prepareRetry] asks it again before each retry when
// tokenFunc is set, so a token rotated while the call was backing off is
// picked up.
func bearer(token string, tokenFunc func(context.Context) (string, error)) func(context.Context) (token, header string, err error) {
	if tokenFunc == nil {
		header := "Bearer " + token
		return func(context.Context) (string, string, error) { return token, header, nil }
	}
	return func(ctx context.Context) (string, string, error) {
		t, err := tokenFunc(ctx)
		if err != nil {
			return "", "", fmt.Errorf("token func: %w", err)
		}
		if problem := wire.TokenProblem(t); problem != "" {
			return "", "", errors.New("token from token func " + problem)
		}
		return t, "Bearer " + t, nil
	}
}

// sent records token, which the call sends, so that it can be redacted
// from what the server answers (a short one only after "Bearer ": see
// [wire.Redact]).
func (st *callState) sent(token string) {
	if token == "" || slices.Contains(st.tokens, token) {
		return
	}
	st.tokens = append(st.tokens, token)
}
