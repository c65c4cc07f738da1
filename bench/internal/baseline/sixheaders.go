package baseline

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore-go"
)

// CreatePlantSixHeaders is [CreatePlant] doing the wire job the SDK does
// once it sends the correlation headers (issue 11): the same call with six
// headers, each set with Header.Set, the plain way a careful user writes
// it: Authorization, Content-Type, Accept, User-Agent, a fresh
// X-Request-Id from [NewRequestID] and "X-Retry-Count: 0". The response is
// read as CreatePlant reads it: status check, decode through a 1 MiB cap,
// bounded drain, close.
func CreatePlantSixHeaders(ctx context.Context, hc *http.Client, url string, p plantstore.NewPlant) (*plantstore.Plant, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("create plant: encode: %w", err)
	}
	id, err := NewRequestID()
	if err != nil {
		return nil, fmt.Errorf("create plant: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("create plant: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("X-Request-Id", id)
	req.Header.Set("X-Retry-Count", "0")
	return do(hc, req)
}

// NewRequestID returns a fresh random request id: 128 bits from
// crypto/rand, as 32 lower-case hex digits. It fails only if the system's
// random source does.
func NewRequestID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("request id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
