package plantstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// authorization returns the function that makes an attempt's
// Authorization header: from the fixed token, or by asking tokenFunc.
// [Client.prepareRetry] asks it again before each retry when tokenFunc is
// set, so a token rotated while the call was backing off is picked up.
func authorization(token string, tokenFunc func(context.Context) (string, error)) func(context.Context) (string, error) {
	if tokenFunc == nil {
		header := "Bearer " + token
		return func(context.Context) (string, error) { return header, nil }
	}
	return func(ctx context.Context) (string, error) {
		t, err := tokenFunc(ctx)
		if err != nil {
			return "", fmt.Errorf("token func: %w", err)
		}
		if problem := wire.TokenProblem(t); problem != "" {
			return "", errors.New("token from token func " + problem)
		}
		return "Bearer " + t, nil
	}
}

// sent records the token in auth, an Authorization header the call sends,
// so that it can be redacted from what the server answers (a short one
// only after "Bearer ": see [wire.Redact]).
func (st *callState) sent(auth string) {
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || slices.Contains(st.tokens, token) {
		return
	}
	st.tokens = append(st.tokens, token)
}
