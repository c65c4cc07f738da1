// Package plantstoreotel traces and measures the calls of a
// [plantstore.Client] with OpenTelemetry.
//
// Install it as hooks when building the client:
//
//	hooks, err := plantstoreotel.NewHooks()
//	if err != nil {
//		return err
//	}
//	c, err := plantstore.NewClient(baseURL, plantstore.WithToken(token), plantstore.WithHooks(hooks))
//
// Every call that sends a request becomes a span of kind client, named
// after the operation ("plantstore.CreatePlant"), the child of the span in
// the call's context; every attempt becomes a child span of that one, named
// after the HTTP method. Both carry the HTTP semantic-convention attributes
// (http.request.method, server.address, server.port, url.full,
// http.response.status_code, http.request.resend_count, error.type), the
// request id the client sent as http.request.header.x-request-id and, when
// the server answered with a different one, that one as
// http.response.header.x-request-id; a wait before a retry is an event
// "plantstore.retry" on the call's span. No header but X-Request-Id is
// recorded, and the client redacts a token a server echoes in it, so the
// token never appears in telemetry; the metrics carry no request id. A call refused
// before sending (an invalid plant or call option) makes no span.
//
// Two histograms measure the calls: plantstore.client.call.duration
// (seconds, waits between attempts included) and
// plantstore.client.call.attempts, with the call span's attributes but
// url.full, which the semantic conventions leave off metrics.
//
// A retry the client's retry budget refused (see
// [plantstore.WithRetryBudget]) sets plantstore.retry.budget_exhausted to
// true on the attempt span it followed, and adds one to the counter
// plantstore.client.retry.denied, whose attributes are the attempt's
// request attributes (but url.full), its status or error.type, and
// plantstore.operation. Watch that counter: it counts the retries a
// failing service was spared, and calls that failed sooner because of it.
//
// This package does not propagate the trace to the server. For that, give
// the client an instrumented transport, such as otelhttp's, with
// [plantstore.WithHTTPClient]: its spans then nest under the attempt spans.
//
// # OpenTelemetry versions
//
// The module requires OpenTelemetry v1.38.0, the newest release that builds
// with Go 1.23; newer ones need a newer Go (v1.39.0 Go 1.24, v1.47.0 Go
// 1.26), and a bare go get of one raises your go line to match. To stay on
// Go 1.23, name the version, or your Go version too, and go get fails
// instead of raising it:
//
//	go get go.opentelemetry.io/otel/sdk@v1.38.0                    # tracetest at v1.38.0
//	go get go@1.23.0 go.opentelemetry.io/otel/sdk/trace/tracetest   # fails: v1.47.0 requires go@1.26.0
package plantstoreotel

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"

	"github.com/plantstore/plantstore-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// scope names this package to OpenTelemetry as the instrumentation scope.
const scope = "github.com/plantstore/plantstore-go/otel"

// An Option configures [NewHooks].
type Option func(*config)

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider makes the hooks create spans with tp. The default is
// the global provider, otel.GetTracerProvider(), as it is when NewHooks
// runs. A nil tp keeps the default.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tp = tp
		}
	}
}

// WithMeterProvider makes the hooks record metrics with mp. The default is
// the global provider, otel.GetMeterProvider(), as it is when NewHooks
// runs. A nil mp keeps the default.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.mp = mp
		}
	}
}

// NewHooks returns hooks that trace and measure every call of the clients
// they are given to with [plantstore.WithHooks]. They may be shared by many
// clients, and are safe for concurrent use. NewHooks fails only when the
// meter provider cannot create the instruments.
func NewHooks(opts ...Option) (plantstore.Hooks, error) {
	cfg := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider()}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	meter := cfg.mp.Meter(scope)
	duration, errDuration := meter.Float64Histogram("plantstore.client.call.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of plantstore calls, from the first attempt to the last response, waits between attempts included."),
		metric.WithExplicitBucketBoundaries(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30))
	attempts, errAttempts := meter.Int64Histogram("plantstore.client.call.attempts",
		metric.WithUnit("{attempt}"),
		metric.WithDescription("Number of HTTP requests each plantstore call made, retries included."),
		metric.WithExplicitBucketBoundaries(1, 2, 3, 4, 5, 6, 8, 10))
	denied, errDenied := meter.Int64Counter("plantstore.client.retry.denied",
		metric.WithUnit("{retry}"),
		metric.WithDescription("Number of retries the client's retry budget refused: the call returned the last answer instead."))
	if err := cmp.Or(errDuration, errAttempts, errDenied); err != nil {
		return plantstore.Hooks{}, err
	}
	t := &telemetry{tracer: cfg.tp.Tracer(scope), duration: duration, attempts: attempts, denied: denied}
	return plantstore.Hooks{
		CallStart:    t.callStart,
		AttemptStart: t.attemptStart,
		AttemptEnd:   t.attemptEnd,
		CallEnd:      t.callEnd,
	}, nil
}

type telemetry struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram
	attempts metric.Int64Histogram
	denied   metric.Int64Counter
}

// callKey finds the call's span from an attempt's context, whose own span
// is the attempt's.
type callKey struct{}

// responseID returns the attribute that records the server's request id,
// when the last response carried one that differs from the id sent, or
// nothing. The client has already made it printable and redacted any token
// in it.
func responseID(call *plantstore.CallInfo) []attribute.KeyValue {
	if call.ServerRequestID == "" || call.ServerRequestID == call.RequestID {
		return nil
	}
	return []attribute.KeyValue{attribute.StringSlice("http.response.header.x-request-id", []string{call.ServerRequestID})}
}

// requestAttrs are the attributes that describe a call's request, for its
// span, its attempts' spans and its metrics.
func requestAttrs(call *plantstore.CallInfo) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", call.Method),
		attribute.String("url.full", call.URL),
	}
	if u, err := url.Parse(call.URL); err == nil {
		attrs = append(attrs, attribute.String("server.address", u.Hostname()))
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err == nil {
				attrs = append(attrs, attribute.Int("server.port", n))
			}
		} else if u.Scheme == "https" {
			attrs = append(attrs, attribute.Int("server.port", 443))
		} else {
			attrs = append(attrs, attribute.Int("server.port", 80))
		}
	}
	return attrs
}

func (t *telemetry) callStart(ctx context.Context, call *plantstore.CallInfo) context.Context {
	attrs := append(requestAttrs(call),
		attribute.String("plantstore.operation", call.Operation),
		attribute.StringSlice("http.request.header.x-request-id", []string{call.RequestID}))
	ctx, span := t.tracer.Start(ctx, "plantstore."+call.Operation,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, callKey{}, span)
}

func (t *telemetry) attemptStart(ctx context.Context, call *plantstore.CallInfo, a plantstore.Attempt) context.Context {
	attrs := append(requestAttrs(call),
		attribute.StringSlice("http.request.header.x-request-id", []string{call.RequestID}))
	if a.Number > 1 {
		attrs = append(attrs, attribute.Int("http.request.resend_count", a.Number-1))
	}
	ctx, _ = t.tracer.Start(ctx, call.Method,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

func (t *telemetry) attemptEnd(ctx context.Context, call *plantstore.CallInfo, a plantstore.Attempt) {
	span := trace.SpanFromContext(ctx)
	if a.StatusCode != 0 {
		span.SetAttributes(responseID(call)...)
	}
	if a.RetryDenied {
		t.retryDenied(ctx, call, a)
		span.SetAttributes(attribute.Bool("plantstore.retry.budget_exhausted", true))
	}
	switch {
	case a.Err != nil:
		if a.StatusCode != 0 { // an answer whose body could not be read
			span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
		}
		span.SetAttributes(attribute.String("error.type", errorType(a.Err)))
		span.SetStatus(codes.Error, a.Err.Error())
	case a.StatusCode >= 400:
		span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode),
			attribute.String("error.type", strconv.Itoa(a.StatusCode)))
		span.SetStatus(codes.Error, "")
	default:
		span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
	}
	span.End()

	if !a.WillRetry {
		return
	}
	if callSpan, ok := ctx.Value(callKey{}).(trace.Span); ok {
		attrs := []attribute.KeyValue{
			attribute.Int("plantstore.retry.attempt", a.Number),
			attribute.Float64("plantstore.retry.wait", a.Wait.Seconds()),
			outcome(a),
		}
		if a.RetryAfter > 0 {
			attrs = append(attrs, attribute.Float64("plantstore.retry.retry_after", a.RetryAfter.Seconds()))
		}
		callSpan.AddEvent("plantstore.retry", trace.WithAttributes(attrs...))
	}
}

// retryDenied counts a retry the retry budget refused.
func (t *telemetry) retryDenied(ctx context.Context, call *plantstore.CallInfo, a plantstore.Attempt) {
	attrs := append(requestAttrs(call), attribute.String("plantstore.operation", call.Operation), outcome(a))
	t.denied.Add(ctx, 1, metric.WithAttributeSet(metricAttrs(attrs)))
}

// outcome is the attribute that tells how attempt a ended: its
// error.type, or its status.
func outcome(a plantstore.Attempt) attribute.KeyValue {
	if a.Err != nil {
		return attribute.String("error.type", errorType(a.Err))
	}
	return attribute.Int("http.response.status_code", a.StatusCode)
}

// metricAttrs is attrs as the metrics record them: without url.full, as
// the semantic conventions leave it off HTTP client metrics, since a URL
// with ids in it would make a series per call.
func metricAttrs(attrs []attribute.KeyValue) attribute.Set {
	set, _ := attribute.NewSetWithFiltered(attrs, func(kv attribute.KeyValue) bool { return kv.Key != "url.full" })
	return set
}

func (t *telemetry) callEnd(ctx context.Context, call *plantstore.CallInfo, err error) {
	attrs := append(requestAttrs(call), attribute.String("plantstore.operation", call.Operation))
	if call.StatusCode != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", call.StatusCode))
	}
	if err != nil {
		et := errorType(err)
		var apiErr *plantstore.APIError
		if errors.As(err, &apiErr) {
			et = strconv.Itoa(apiErr.StatusCode)
		}
		attrs = append(attrs, attribute.String("error.type", et))
	}
	set := metricAttrs(attrs)
	t.duration.Record(ctx, call.Duration.Seconds(), metric.WithAttributeSet(set))
	t.attempts.Record(ctx, int64(call.Attempts), metric.WithAttributeSet(set))

	span, ok := ctx.Value(callKey{}).(trace.Span)
	if !ok {
		return
	}
	attrs = append(attrs, responseID(call)...)
	if call.Attempts > 1 {
		attrs = append(attrs, attribute.Int("http.request.resend_count", call.Attempts-1))
	}
	span.SetAttributes(attrs...)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// errorType is the error.type of a failure without a response: "timeout"
// or "canceled" for the context or an attempt's timeout, else the
// semantic conventions' catch-all "_OTHER".
func errorType(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	}
	return "_OTHER"
}
