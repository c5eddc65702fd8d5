package scribe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Operation describes the operation a request belongs to, for logging,
// metrics and tracing: a Middleware reads it from each attempt's request
// with OperationFromContext, and an OperationHook is given it.
type Operation struct {
	// Name is the Client method that sends the operation, such as
	// "GetTranscript"; a List method's Pager sends one operation per page,
	// named after the method ("ListTranscripts"). It is "Do" for Client.Do.
	Name string
	// Method is the HTTP method, such as "GET".
	Method string
	// PathTemplate is the operation's path below the base URL with its
	// parameters as placeholders, as api/openapi.yaml writes it:
	// "/transcripts/{id}", never an id, so it can name spans and label
	// metrics. For Client.Do it is the path given, with a leading "/" and
	// without its query: ids in that path stay in it.
	PathTemplate string
	// Attempt is the number of the attempt the request is: 1, then 2, ...
	// after each retry or the one resend with a fresh token. It is 0 in an
	// OperationHook, which sees the whole operation.
	Attempt int
	// Retried is the failure of the attempt before, which this attempt
	// retries; nil on the first attempt. It says why the retry is made: an
	// *Error for an answer (its StatusCode, Code and RetryAfter), a
	// *ResponseInterruptedError for a body cut off, or the connection error
	// or timeout (a middleware's error among them).
	Retried error
	// Wait is how long the client waited after Retried before sending this
	// attempt: the backoff, or the Retry-After the service asked for; 0 on
	// the first attempt and on the resend after a refused token.
	Wait time.Duration
}

// operationKey is the context key of the Operation.
type operationKey struct{}

// OperationFromContext returns the operation a context belongs to, and true,
// for the contexts a client makes: the one an OperationHook is given and
// those derived from it, which the TokenSource is asked with (Attempt 0),
// and each attempt's request context, which a Middleware and the
// http.RoundTripper of WithHTTPClient see (Attempt 1, 2, ...). It reports
// false for any other context.
func OperationFromContext(ctx context.Context) (Operation, bool) {
	op, ok := ctx.Value(operationKey{}).(Operation)
	return op, ok
}

// A Middleware runs around every attempt of every operation: it is given the
// attempt's request, and next, which sends it (through the middlewares after
// it, then the HTTP client), and returns the answer or the error. It may
// read or set the request's headers (the request is the attempt's own; its
// Authorization header holds the credential, which must not be logged), pass
// a request with a context derived from the request's to next, and observe
// what next returns. OperationFromContext(req.Context()) tells it the
// operation and the attempt.
//
// An error it returns fails the attempt as a connection error would: it is
// retried by the same rules (docs/client.md, "Retries and idempotency"), and
// the call's error wraps it. A response it returns is read as the service's
// answer; its body is then the client's to close. The client reads the body
// after the middleware returns, so a middleware that must see the end of an
// attempt (to end a span) wraps resp.Body and acts on its Close.
type Middleware func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// WithMiddleware adds middlewares that run around every attempt, in the
// order given: those given to NewClient or WithOptions first, then those
// given to the call, so the first client-level middleware is the outermost.
// It applies to a client and to a call. A nil middleware is refused.
func WithMiddleware(m ...Middleware) Option {
	return Option{func(s *settings) error {
		for i, mw := range m {
			if mw == nil {
				return &ArgumentError{Func: "WithMiddleware", Arg: fmt.Sprintf("m[%d]", i), Reason: "is nil"}
			}
		}
		s.middleware = append(s.middleware[:len(s.middleware):len(s.middleware)], m...)
		return nil
	}}
}

// Options returns one Option that applies opts in order, for a package that
// hands out what takes several options as one (otelscribe.ClientOption is a
// hook and a middleware). It applies wherever each of opts does: one that a
// client or a call refuses makes the whole Option refused there.
func Options(opts ...Option) Option {
	opts = append([]Option(nil), opts...)
	return Option{func(s *settings) error { return s.applyAll(opts) }}
}

// An OperationHook observes whole operations, where a Middleware sees single
// attempts: it is called once when an operation starts, before its first
// attempt, with the caller's context and the operation (Attempt 0). The
// context it returns is the one every attempt's request context, the token
// source and the log lines of the operation derive from: an OpenTelemetry
// adapter starts the operation's span here, and the spans its Middleware
// starts for each attempt become the children of that span. It must return
// ctx or a context derived from it; nil keeps ctx.
//
// The function it returns, if not nil, is called once when the operation
// ends, after the answer has been decoded, with what the call returns: the
// final Response (nil when no answer came) and the error (nil on success).
// A hook observes: it cannot change the answer or the error. An operation
// refused before it starts (an *ArgumentError: a nil context, a bad option
// or body) calls no hook.
type OperationHook func(ctx context.Context, op Operation) (context.Context, func(*Response, error))

// WithOperationHook adds hooks called at the start and the end of every
// operation (see OperationHook). They start in the order given, those given
// to NewClient or WithOptions first, then those given to the call, each
// with the context the one before returned; their end functions run in the
// reverse order. It applies to a client and to a call. A nil hook is
// refused.
func WithOperationHook(h ...OperationHook) Option {
	return Option{func(s *settings) error {
		for i, hook := range h {
			if hook == nil {
				return &ArgumentError{Func: "WithOperationHook", Arg: fmt.Sprintf("h[%d]", i), Reason: "is nil"}
			}
		}
		s.hooks = append(s.hooks[:len(s.hooks):len(s.hooks)], h...)
		return nil
	}}
}

// startOperation runs the hooks' starts and returns the context the
// operation runs in, and the function that ends it.
func startOperation(ctx context.Context, op Operation, hooks []OperationHook) (context.Context, func(*Response, error)) {
	ctx = context.WithValue(ctx, operationKey{}, op)
	if len(hooks) == 0 {
		return ctx, nil
	}
	ends := make([]func(*Response, error), 0, len(hooks))
	for _, h := range hooks {
		hctx, end := h(ctx, op)
		if hctx != nil {
			ctx = hctx
		}
		if end != nil {
			ends = append(ends, end)
		}
	}
	return ctx, func(resp *Response, err error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](resp, err)
		}
	}
}

// errNoResponse is the failure of an attempt whose middleware returned
// neither a response nor an error.
var errNoResponse = errors.New("a middleware returned neither a response nor an error")

// chain returns the function an attempt sends its request with: the
// middlewares, in order, around send.
func chain(mws []Middleware, send func(*http.Request) (*http.Response, error)) func(*http.Request) (*http.Response, error) {
	for i := len(mws) - 1; i >= 0; i-- {
		mw, next := mws[i], send
		send = func(req *http.Request) (*http.Response, error) { return mw(req, next) }
	}
	if len(mws) == 0 {
		return send
	}
	return func(req *http.Request) (*http.Response, error) {
		resp, err := send(req)
		switch {
		case err != nil:
			if resp != nil && resp.Body != nil {
				resp.Body.Close() // the error wins, as with an http.RoundTripper
			}
			return nil, err
		case resp == nil:
			return nil, errNoResponse
		case resp.Body == nil:
			resp.Body = http.NoBody
		}
		return resp, nil
	}
}
