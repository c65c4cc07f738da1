package baseline

import (
	"context"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/bench/internal/oapi"
)

// NewOAPICreate returns a create-plant call through the client oapi-codegen
// generates for openapi.yaml (package internal/oapi), as its documentation
// suggests using it: a ClientWithResponses on a [NewHTTPClient], a request
// editor that adds the headers the SDK sends, and CreatePlantWithResponse,
// whose typed JSON200 is the Plant. The generated code sets Content-Type
// itself; the editor, [setOAPIHeaders], sets the other five. A status other
// than 200 is a *StatusError. It also returns a function that releases the
// client's idle connections.
//
// Unlike the SDK and the hand-written calls, the generated client reads the
// whole response with io.ReadAll, without a cap.
func NewOAPICreate(baseURL string) (Create, func(), error) {
	hc := NewHTTPClient()
	c, err := oapi.NewClientWithResponses(baseURL, oapi.WithHTTPClient(hc), oapi.WithRequestEditorFn(setOAPIHeaders))
	if err != nil {
		return nil, nil, fmt.Errorf("oapi client: %w", err)
	}
	return func(ctx context.Context, p plantstore.NewPlant) error {
		body := oapi.NewPlant{Id: p.ID, Name: p.Name}
		if p.Tag != "" {
			body.Tag = &p.Tag
		}
		resp, err := c.CreatePlantWithResponse(ctx, body)
		if err != nil {
			return fmt.Errorf("create plant: %w", err)
		}
		if resp.StatusCode() != http.StatusOK {
			return &StatusError{StatusCode: resp.StatusCode()}
		}
		if resp.JSON200 == nil {
			return fmt.Errorf("create plant: 200 without a JSON Plant (Content-Type %q)", resp.ContentType())
		}
		return nil
	}, hc.CloseIdleConnections, nil
}

// setOAPIHeaders is the request editor of [NewOAPICreate]: the headers of
// [CreatePlantSixHeaders] but Content-Type, which the generated code sets.
func setOAPIHeaders(_ context.Context, req *http.Request) error {
	id, err := NewRequestID()
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+Token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("X-Request-Id", id)
	req.Header.Set("X-Retry-Count", "0")
	return nil
}
