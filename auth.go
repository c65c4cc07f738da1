package plantstore

import (
	"context"
	"errors"
	"fmt"
)

// authorization returns the function that makes an attempt's
// Authorization header: from the fixed token, or by asking tokenFunc.
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
		if problem := tokenProblem(t); problem != "" {
			return "", errors.New("token from token func " + problem)
		}
		return "Bearer " + t, nil
	}
}

// tokenProblem says what makes t unfit to send as a bearer token, or "" if
// nothing does. It never quotes t.
func tokenProblem(t string) string {
	if t == "" {
		return "must not be empty"
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] >= 0x7f {
			return fmt.Sprintf("has an invalid character at byte %d (want visible ASCII)", i)
		}
	}
	return ""
}
