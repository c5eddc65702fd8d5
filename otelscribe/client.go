package otelscribe

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// ClientOption traces and measures the calls of a scribe.Client: give it to
// scribe.NewClient (or NewInstallationClient, NewInstallationClients, or
// Client.WithOptions), or to one call.
//
// Each operation is an INTERNAL span named "scribe." and the method
// ("scribe.GetTranscript"), whose children are one CLIENT span per attempt,
// "GET /transcripts/{id}", with the attributes of the OTel HTTP client
// conventions (http.request.method, url.template, server.address,
// server.port, http.response.status_code, error.type on failure,
// http.request.resend_count from the second attempt on), scribe.request_id
// from the answer and scribe.idempotency_key on a POST. A retry is an event
// "scribe.retry" of the operation's span, saying why (scribe.retry.reason:
// status, retry_after, token_refused, interrupted, timeout, connection) and
// how long the client waited. Each attempt carries the trace context
// (traceparent). No span name or attribute holds an id of the path, a
// token or a key.
//
// Metrics: http.client.request.duration per attempt,
// scribe.client.operation.duration per operation, scribe.client.retries by
// reason, and scribe.auth.token.mints, the installation tokens the client's
// auth.TokenSource minted for its calls.
func ClientOption(opts ...Option) scribe.Option {
	c := newClient(newConfig(opts))
	return scribe.Options(scribe.WithOperationHook(c.hook), scribe.WithMiddleware(c.middleware))
}

type client struct {
	tracer     trace.Tracer
	prop       propagation.TextMapPropagator
	attemptDur metric.Float64Histogram
	opDur      metric.Float64Histogram
	retries    metric.Int64Counter
	mints      metric.Int64Counter
	mintHook   func(context.Context, string)
	ops        cache[opKey, *opInfo]
	attempts   cache[attemptKey, *attemptInfo]
}

func newClient(cfg config) *client {
	c := &client{tracer: cfg.tp.Tracer(ScopeName, version), prop: cfg.prop}
	m := cfg.mp.Meter(ScopeName, meterVersion)
	// The instruments' errors are the meter's to report (otel.Handle); an
	// instrument it refuses still works, as a no-op.
	c.attemptDur, _ = m.Float64Histogram("http.client.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests."), metric.WithExplicitBucketBoundaries(durationBuckets...))
	c.opDur, _ = m.Float64Histogram("scribe.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of SDK operations, from the call to its answer, retries and waits included."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	c.retries, _ = m.Int64Counter("scribe.client.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Attempts sent again after a failed one, by reason."))
	c.mints, _ = m.Int64Counter("scribe.auth.token.mints", metric.WithUnit("{token}"),
		metric.WithDescription("Installation JWTs minted for the client's calls."))
	c.mintHook = func(ctx context.Context, _ string) { c.mints.Add(ctx, 1) }
	return c
}

type opKey struct{ name, method, template string }

// opInfo is what every operation of one kind shares, made once.
type opInfo struct {
	key       opKey
	spanName  string
	startOpts []trace.SpanStartOption
	base      []attribute.KeyValue
	ends      cache[outcomeKey, *ending]
}

// ending is what is recorded of an operation or attempt that ended one way,
// made once: the attributes its span gets, its error.type, and the
// attribute set of its duration.
type ending struct {
	attrs   []attribute.KeyValue
	errType string
	set     metric.MeasurementOption
}

func newEnding(base []attribute.KeyValue, k outcomeKey) *ending {
	e := &ending{errType: errorType(k)}
	if k.status > 0 {
		e.attrs = append(e.attrs, semconv.HTTPResponseStatusCode(k.status))
	}
	if e.errType != "" {
		e.attrs = append(e.attrs, semconv.ErrorTypeKey.String(e.errType))
	}
	e.set = metric.WithAttributeSet(attribute.NewSet(append(base[:len(base):len(base)], e.attrs...)...))
	return e
}

// outcomeKey is how an operation or an attempt ended: its status (0 when no
// answer came) and, for a failure, its kind.
type outcomeKey struct {
	status int
	kind   string // "" on success; errStatus when the status says it
}

const errStatus = "status"

func (c *client) op(op scribe.Operation) *opInfo {
	return c.ops.get(opKey{op.Name, op.Method, op.PathTemplate}, func(k opKey) *opInfo {
		base := []attribute.KeyValue{keyOperation.String(k.name), semconv.HTTPRequestMethodKey.String(k.method), semconv.URLTemplate(k.template)}
		return &opInfo{key: k, spanName: "scribe." + k.name, base: base,
			startOpts: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(base...)}}
	})
}

// hook starts an operation's span, and returns the function that ends it
// and records its duration.
func (c *client) hook(ctx context.Context, op scribe.Operation) (context.Context, func(*scribe.Response, error)) {
	info := c.op(op)
	measure := c.opDur.Enabled(ctx)
	if c.mints.Enabled(ctx) {
		ctx = auth.ContextWithMintHook(ctx, c.mintHook)
	}
	ctx, span := c.tracer.Start(ctx, info.spanName, info.startOpts...)
	if !measure && !span.IsRecording() {
		return ctx, nil
	}
	start := time.Now()
	return ctx, func(resp *scribe.Response, err error) {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		e := info.ends.get(outcomeKey{status, errorKind(status, err)}, info.ending)
		if span.IsRecording() {
			if e.errType != "" {
				span.SetStatus(codes.Error, e.errType)
			}
			span.SetAttributes(e.attrs...)
		}
		span.End()
		if measure {
			c.opDur.Record(ctx, time.Since(start).Seconds(), e.set)
		}
	}
}

func (info *opInfo) ending(k outcomeKey) *ending { return newEnding(info.base, k) }

// errorType is the semantic conventions' error.type of an outcome: the
// status code for an error answer, else the kind of failure.
func errorType(k outcomeKey) string {
	switch k.kind {
	case "":
		return ""
	case errStatus:
		return strconv.Itoa(k.status)
	}
	return k.kind
}

// statusKind is the kind of failure an answer's status is: errStatus for
// 4xx and 5xx, "" otherwise.
func statusKind(status int) string {
	if status >= 400 {
		return errStatus
	}
	return ""
}

// errorKind classifies how an operation or attempt with status and err
// failed: "" for none, errStatus when the status is an error, else a fixed
// word (timeout, canceled, interrupted, too_large, decode, connection).
func errorKind(status int, err error) string {
	var se *scribe.Error
	var ri *scribe.ResponseInterruptedError
	var tl *scribe.ResponseTooLargeError
	var te interface{ Timeout() bool }
	switch {
	case err == nil && status < 400:
		return ""
	case status >= 400 || errors.As(err, &se):
		return errStatus
	case errors.As(err, &ri):
		return "interrupted"
	case errors.As(err, &tl):
		return "too_large"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &te) && te.Timeout():
		return "timeout"
	case status >= 200:
		return "decode" // a 2xx whose body was not the answer
	}
	return "connection"
}

type attemptKey struct {
	op           *opInfo
	scheme, host string
}

// attemptInfo is what every attempt of one kind of operation to one host
// shares, made once.
type attemptInfo struct {
	spanName string
	base     []attribute.KeyValue
	// starts holds the span start options of attempts 1, 2, ...
	// (http.request.resend_count from the second on), up to maxResends+1.
	starts [maxResends + 1][]trace.SpanStartOption
	ends   cache[outcomeKey, *ending]
}

// maxResends is how many resends have start options made ahead; the SDK's
// default is 3 retries and one resend with a fresh token.
const maxResends = 8

func (c *client) attempt(info *opInfo, u *url.URL) *attemptInfo {
	return c.attempts.get(attemptKey{info, u.Scheme, u.Host}, func(k attemptKey) *attemptInfo {
		port := 443
		if k.scheme == "http" {
			port = 80
		}
		if p, err := strconv.Atoi(u.Port()); err == nil {
			port = p
		}
		base := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(info.key.method), semconv.URLTemplate(info.key.template),
			semconv.ServerAddress(u.Hostname()), semconv.ServerPort(port)}
		a := &attemptInfo{spanName: info.key.method + " " + info.key.template, base: base}
		for i := range a.starts {
			attrs := base
			if i > 0 {
				attrs = append(base[:len(base):len(base)], semconv.HTTPRequestResendCount(i))
			}
			a.starts[i] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...)}
		}
		return a
	})
}

// startOpts returns the span start options of attempt n (1, 2, ...).
func (a *attemptInfo) startOpts(n int) []trace.SpanStartOption {
	if n >= 1 && n <= len(a.starts) {
		return a.starts[n-1]
	}
	return []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(a.base...),
		trace.WithAttributes(semconv.HTTPRequestResendCount(n - 1))}
}

func (a *attemptInfo) ending(k outcomeKey) *ending { return newEnding(a.base, k) }

// middleware makes one attempt's span, sends the trace context with it, and
// ends the span (and records the attempt's duration) when the client closes
// the answer's body.
func (c *client) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	ctx := req.Context()
	op, _ := scribe.OperationFromContext(ctx)
	info := c.op(op)
	if op.Attempt > 1 && op.Retried != nil {
		c.retried(ctx, info, op)
	}
	a := c.attempt(info, req.URL)
	opts := a.startOpts(op.Attempt)
	if op.Method == http.MethodPost {
		if key := req.Header.Get("Idempotency-Key"); key != "" {
			opts = append(opts[:len(opts):len(opts)], trace.WithAttributes(keyIdempotencyKey.String(key)))
		}
	}
	measure := c.attemptDur.Enabled(ctx)
	ctx, span := c.tracer.Start(ctx, a.spanName, opts...)
	if !measure && !span.IsRecording() && !span.SpanContext().IsValid() {
		return next(req) // nothing to record, and no trace to carry on
	}
	c.prop.Inject(ctx, propagation.HeaderCarrier(req.Header))
	t := &tracked{c: c, a: a, ctx: ctx, span: span, measure: measure, start: time.Now()}
	resp, err := next(req.WithContext(ctx))
	if err != nil {
		t.end(outcomeKey{0, errorKind(0, err)})
		return nil, err
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	t.status = resp.StatusCode
	if span.IsRecording() {
		// The status and the request id in one call: the SDK locks the
		// span for each.
		e := a.ends.get(outcomeKey{t.status, statusKind(t.status)}, a.ending)
		if id := resp.Header.Get("Request-Id"); id != "" {
			span.SetAttributes(append(e.attrs[:len(e.attrs):len(e.attrs)], keyRequestID.String(bounded(id)))...)
		} else {
			span.SetAttributes(e.attrs...)
		}
		t.attrsSet = true
	}
	t.ReadCloser = resp.Body
	resp.Body = t
	return resp, nil
}

// bounded cuts a value of the answer that goes into an attribute: the
// service's request ids are short, and a long one is not kept whole.
func bounded(s string) string {
	const max = 128
	if len(s) > max {
		return s[:max]
	}
	return s
}

// tracked is an attempt's answer body, which ends the attempt's span when
// it is closed.
type tracked struct {
	io.ReadCloser
	c        *client
	a        *attemptInfo
	ctx      context.Context
	span     trace.Span
	start    time.Time
	status   int
	readErr  bool
	attrsSet bool // the span has the status's attributes
	measure  bool
	done     bool
}

func (t *tracked) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		t.readErr = true
	}
	return n, err
}

func (t *tracked) Close() error {
	err := t.ReadCloser.Close()
	if !t.done {
		k := outcomeKey{t.status, statusKind(t.status)}
		if k.kind == "" && t.readErr {
			k.kind, t.attrsSet = "interrupted", false
		}
		t.end(k)
	}
	return err
}

// end ends the attempt as k says.
func (t *tracked) end(k outcomeKey) {
	t.done = true
	took := time.Since(t.start)
	e := t.a.ends.get(k, t.a.ending)
	if t.span.IsRecording() {
		if e.errType != "" {
			t.span.SetStatus(codes.Error, e.errType)
		}
		if !t.attrsSet {
			t.span.SetAttributes(e.attrs...)
		}
	}
	t.span.End()
	if t.measure {
		t.c.attemptDur.Record(t.ctx, took.Seconds(), e.set)
	}
}

// retried records why attempt op.Attempt is made: an event of the
// operation's span, and scribe.client.retries.
func (c *client) retried(ctx context.Context, info *opInfo, op scribe.Operation) {
	reason, status := retryReason(op)
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{keyRetryReason.String(reason), semconv.HTTPRequestResendCount(op.Attempt - 1),
			keyRetryWait.Float64(op.Wait.Seconds())}
		if status > 0 {
			attrs = append(attrs, semconv.HTTPResponseStatusCode(status))
		}
		span.AddEvent("scribe.retry", trace.WithAttributes(attrs...))
	}
	if c.retries.Enabled(ctx) {
		c.retries.Add(ctx, 1, metric.WithAttributes(keyRetryReason.String(reason), keyOperation.String(info.key.name),
			semconv.HTTPRequestMethodKey.String(info.key.method), semconv.URLTemplate(info.key.template)))
	}
}

// retryReason says why a retry was made, and the status that asked for it.
func retryReason(op scribe.Operation) (string, int) {
	var se *scribe.Error
	var ri *scribe.ResponseInterruptedError
	var te interface{ Timeout() bool }
	switch {
	case errors.As(op.Retried, &se):
		switch {
		case se.StatusCode == http.StatusUnauthorized:
			return "token_refused", se.StatusCode
		case se.RetryAfter > 0:
			return "retry_after", se.StatusCode
		}
		return "status", se.StatusCode
	case errors.As(op.Retried, &ri):
		return "interrupted", ri.StatusCode
	case errors.Is(op.Retried, context.DeadlineExceeded), errors.As(op.Retried, &te) && te.Timeout():
		return "timeout", 0
	}
	return "connection", 0
}
