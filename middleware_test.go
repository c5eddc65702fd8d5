package scribe_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/scribehq/scribe-go"
)

// trace records what middlewares and hooks saw, from any goroutine.
type trace struct {
	mu     sync.Mutex
	events []string
	ops    []scribe.Operation
}

func (tr *trace) add(event string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.events = append(tr.events, event)
}

func (tr *trace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.events)
}

// named returns a middleware that records its name going in and coming out.
func (tr *trace) named(name string) scribe.Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		tr.add(name + " in")
		resp, err := next(req)
		tr.add(name + " out")
		return resp, err
	}
}

// operations returns a middleware that records the operation of every
// attempt it sees.
func (tr *trace) operations() scribe.Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		op, ok := scribe.OperationFromContext(req.Context())
		if !ok {
			return nil, errors.New("no operation in the attempt's context")
		}
		tr.mu.Lock()
		tr.ops = append(tr.ops, op)
		tr.mu.Unlock()
		return next(req)
	}
}

// TestMiddlewareOrder protects the order middlewares run in: client-level
// ones first, in the order given (NewClient's, then WithOptions'), then the
// call's, each returning in the reverse order; and a call's middlewares, or
// those of a client derived with WithOptions, never reach another call or
// client.
func TestMiddlewareOrder(t *testing.T) {
	t.Parallel()
	tr := &trace{}
	f := newFake(t, ok(userJSON))
	base := f.client(scribe.WithMiddleware(tr.named("A"), tr.named("B")), scribe.WithMiddleware(tr.named("C")))
	derived, err1 := base.WithOptions(scribe.WithMiddleware(tr.named("D")))
	other, err2 := base.WithOptions(scribe.WithMiddleware(tr.named("X")))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if _, err := derived.GetMe(t.Context(), scribe.WithMiddleware(tr.named("E"), tr.named("F"))); err != nil {
		t.Fatal(err)
	}
	want := []string{"A in", "B in", "C in", "D in", "E in", "F in", "F out", "E out", "D out", "C out", "B out", "A out"}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	tr.events = nil
	if _, err := base.GetMe(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetMe(t.Context()); err != nil {
		t.Fatal(err)
	}
	want = []string{"A in", "B in", "C in", "C out", "B out", "A out", "A in", "B in", "C in", "X in", "X out", "C out", "B out", "A out"}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("the base client, then the other derived client (-want +got):\n%s", diff)
	}
}

// TestMiddlewareSeesEveryAttempt protects what a middleware learns of each
// attempt: its number across retries, and why it is made and after what
// wait: the 503 retried after the backoff, the 429 after its Retry-After
// (which replaces the backoff), the dropped connection, and the 401 resent
// at once with a fresh token.
func TestMiddlewareSeesEveryAttempt(t *testing.T) {
	t.Parallel()
	tr := &trace{}
	f := newFake(t, respond(503, "text/plain", "busy"), respond(429, "text/plain", "slow down", "Retry-After", "0"),
		connReset, problem(401, "invalid_token", "expired"), ok(userJSON))
	c := f.client(scribe.WithTokenSource(&tokens{list: []string{"tok-1", "tok-2"}}),
		scribe.WithRetryWait(2*time.Millisecond, 2*time.Millisecond), scribe.WithMaxRetries(3), scribe.WithMiddleware(tr.operations()))
	if _, err := c.GetMe(t.Context()); err != nil {
		t.Fatal(err)
	}
	ops := tr.ops
	if len(ops) != 5 {
		t.Fatalf("the middleware saw %d attempts, want 5: %+v", len(ops), ops)
	}
	type why struct {
		Attempt int
		Status  int // of the *Error retried; 0 for none
		Conn    bool
		Wait    time.Duration
	}
	var got []why
	for _, op := range ops {
		w := why{Attempt: op.Attempt, Wait: op.Wait}
		var apiErr *scribe.Error
		if errors.As(op.Retried, &apiErr) {
			w.Status = apiErr.StatusCode
		} else {
			w.Conn = op.Retried != nil
		}
		got = append(got, w)
	}
	want := []why{{1, 0, false, 0}, {2, 503, false, 2 * time.Millisecond}, {3, 429, false, 0}, {4, 0, true, 2 * time.Millisecond}, {5, 401, false, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// TestMiddlewareErrorIsRetried protects that an error from a middleware
// fails the attempt as a connection error does: retried by the same rules
// (never sent on), and wrapped in the call's error once retries run out.
func TestMiddlewareErrorIsRetried(t *testing.T) {
	t.Parallel()
	errFlaky := errors.New("middleware: circuit open")
	failFirst := func(n int) scribe.Middleware {
		var mu sync.Mutex
		return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			if n > 0 {
				n--
				return nil, errFlaky
			}
			return next(req)
		}
	}
	f := newFake(t, ok(userJSON))
	var r scribe.Response
	if _, err := f.client().GetMe(t.Context(), scribe.WithMiddleware(failFirst(2)), scribe.WithResponseInto(&r)); err != nil {
		t.Fatalf("GetMe after two middleware errors: %v", err)
	}
	if n := len(f.requests()); n != 1 || r.Attempts != 3 {
		t.Errorf("the service got %d requests in %d attempts; want 1 in 3", n, r.Attempts)
	}

	f = newFake(t, ok(userJSON))
	_, err := f.client().GetMe(t.Context(), scribe.WithMiddleware(failFirst(3)))
	if !errors.Is(err, errFlaky) || len(f.requests()) != 0 {
		t.Errorf("after three middleware errors: err = %v, %d requests; want the middleware's error, none sent", err, len(f.requests()))
	}

	// A middleware answering nothing at all fails the attempt too, without a panic.
	f = newFake(t, ok(userJSON))
	nothing := func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		return nil, nil
	}
	if _, err := f.client(scribe.WithMaxRetries(0)).GetMe(t.Context(), scribe.WithMiddleware(nothing)); err == nil {
		t.Error("a middleware returning (nil, nil): the call succeeded, want an error")
	}
}

// TestMiddlewareRecordsHeaders protects that a middleware sees the request
// each attempt sends, headers included (the Idempotency-Key of a POST the
// same on every attempt), and that a header it sets reaches the service.
func TestMiddlewareRecordsHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []http.Header
	record := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		mu.Lock()
		seen = append(seen, req.Header.Clone())
		mu.Unlock()
		req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		return next(req)
	}
	f := newFake(t, respond(503, "text/plain", "busy"), ok(pluginJSON))
	if _, err := f.client(scribe.WithMiddleware(record)).CreatePlugin(t.Context(), &scribe.CreatePluginParams{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(seen) != 2 || len(reqs) != 2 {
		t.Fatalf("middleware saw %d attempts, the service %d; want 2", len(seen), len(reqs))
	}
	for i, h := range seen {
		if h.Get("Authorization") != "Bearer "+testDevKey || h.Get("Idempotency-Key") == "" || h.Get("Idempotency-Key") != reqs[i].Header.Get("Idempotency-Key") {
			t.Errorf("attempt %d: the middleware saw Authorization %q, Idempotency-Key %q; the service got key %q",
				i+1, h.Get("Authorization"), h.Get("Idempotency-Key"), reqs[i].Header.Get("Idempotency-Key"))
		}
		if got := reqs[i].Header.Get("Traceparent"); got == "" {
			t.Errorf("attempt %d: the header the middleware set did not reach the service", i+1)
		}
	}
	if seen[0].Get("Idempotency-Key") != seen[1].Get("Idempotency-Key") {
		t.Errorf("Idempotency-Keys %q and %q; want one key on every attempt", seen[0].Get("Idempotency-Key"), seen[1].Get("Idempotency-Key"))
	}
}

// operationCase calls one method of the client, and says which operation it
// sends.
type operationCase struct {
	call func(context.Context, *scribe.Client) error
	want scribe.Operation
}

// operationCases holds every method of the Client that sends an operation,
// by name. TestOperationOfEveryMethod fails when a method is missing.
var operationCases = map[string]operationCase{
	"ListTranscripts": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.ListTranscripts(ctx, nil).Next()
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/transcripts"}},
	"GetTranscript": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.GetTranscript(ctx, 42)
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/transcripts/{id}"}},
	"GetMe": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.GetMe(ctx)
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/users/me"}},
	"ListPlugins": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.ListPlugins(ctx, nil).Next()
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/plugins"}},
	"GetPlugin": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.GetPlugin(ctx, 100)
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/plugins/{id}"}},
	"CreatePlugin": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "x"})
		return err
	}, scribe.Operation{Method: "POST", PathTemplate: "/plugins"}},
	"CreatePluginSecretKey": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.CreatePluginSecretKey(ctx, 100, nil)
		return err
	}, scribe.Operation{Method: "POST", PathTemplate: "/plugins/{id}/secret_keys"}},
	"ListPluginInstallations": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.ListPluginInstallations(ctx, 100, nil).Next()
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/plugins/{id}/installations"}},
	"ListWebhooks": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.ListWebhooks(ctx, 100, nil).Next()
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/plugins/{id}/webhooks"}},
	"Do": {func(ctx context.Context, c *scribe.Client) error {
		_, err := c.Do(ctx, "GET", "plugins/100/webhooks?limit=5", nil, nil)
		return err
	}, scribe.Operation{Method: "GET", PathTemplate: "/plugins/100/webhooks"}},
}

// TestOperationOfEveryMethod protects the operation every method of the
// Client names to middlewares and hooks: the method's name, the HTTP method
// and the path template, with no id in it; Attempt 1 in the first attempt's
// request and 0 in the hook. Every exported method but WithOptions must
// have its case.
func TestOperationOfEveryMethod(t *testing.T) {
	t.Parallel()
	ct := reflect.TypeFor[*scribe.Client]()
	for i := range ct.NumMethod() {
		if name := ct.Method(i).Name; name != "WithOptions" && operationCases[name].call == nil {
			t.Errorf("Client.%s has no case in operationCases: add the operation it sends", name)
		}
	}
	for name, tc := range operationCases {
		answer := userJSON
		switch {
		case tc.want.Method == "POST" && name == "CreatePlugin":
			answer = pluginJSON
		case tc.want.Method == "POST":
			answer = secretKeyJSON
		case name == "GetTranscript":
			answer = transcriptJSON
		case name == "GetPlugin":
			answer = pluginJSON
		case name != "GetMe" && name != "Do":
			answer = page(false, 0)
		}
		f := newFake(t, ok(answer))
		tr := &trace{}
		var hooked []scribe.Operation
		hook := func(ctx context.Context, op scribe.Operation) (context.Context, func(*scribe.Response, error)) {
			fromCtx, _ := scribe.OperationFromContext(ctx)
			hooked = append(hooked, op, fromCtx)
			return ctx, nil
		}
		c := f.client(scribe.WithMiddleware(tr.operations()), scribe.WithOperationHook(hook))
		if err := tc.call(t.Context(), c); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := tc.want
		want.Name = name
		wantAttempt := want
		wantAttempt.Attempt = 1
		if diff := cmp.Diff([]scribe.Operation{wantAttempt}, tr.ops, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("%s: the middleware's operations (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff([]scribe.Operation{want, want}, hooked, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("%s: the hook's operation and its context's (-want +got):\n%s", name, diff)
		}
	}
}

// spanKey carries a test's "span" from a hook to what runs inside it.
type spanKey struct{}

// TestOperationHook protects the seam for a whole operation: hooks start
// once per operation, client-level first, each given the context the one
// before returned, and end in the reverse order with the final Response
// and error; every attempt's request context, and the token source's,
// derive from the context the hooks returned; a pager runs one operation
// per page; and a call refused before it starts runs no hook.
func TestOperationHook(t *testing.T) {
	t.Parallel()
	tr := &trace{}
	hook := func(name string) scribe.OperationHook {
		return func(ctx context.Context, op scribe.Operation) (context.Context, func(*scribe.Response, error)) {
			parent, _ := ctx.Value(spanKey{}).(string)
			tr.add(name + " start " + op.Name + " under " + parent)
			return context.WithValue(ctx, spanKey{}, name), func(resp *scribe.Response, err error) {
				status, attempts := 0, 0
				if resp != nil {
					status, attempts = resp.StatusCode, resp.Attempts
				}
				tr.add(name + " end " + itoa(status) + " after " + itoa(attempts) + " attempts, error " + errText(err))
			}
		}
	}
	inSpan := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		span, _ := req.Context().Value(spanKey{}).(string)
		op, _ := scribe.OperationFromContext(req.Context())
		tr.add("attempt " + itoa(op.Attempt) + " in " + span)
		return next(req)
	}
	var tokenSpan string
	ts := tokenFunc(func(ctx context.Context) (string, error) {
		tokenSpan, _ = ctx.Value(spanKey{}).(string)
		return "tok", nil
	})
	f := newFake(t, respond(503, "text/plain", "busy"), respond(503, "text/plain", "busy"), ok(userJSON), problem(404, "not_found", "gone"))
	c := f.client(scribe.WithTokenSource(ts), scribe.WithOperationHook(hook("A"), hook("B")), scribe.WithMiddleware(inSpan))
	if _, err := c.GetMe(t.Context(), scribe.WithOperationHook(hook("C"))); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetTranscript(t.Context(), 7)
	want := []string{
		"A start GetMe under ", "B start GetMe under A", "C start GetMe under B",
		"attempt 1 in C", "attempt 2 in C", "attempt 3 in C",
		"C end 200 after 3 attempts, error <nil>", "B end 200 after 3 attempts, error <nil>", "A end 200 after 3 attempts, error <nil>",
		"A start GetTranscript under ", "B start GetTranscript under A", "attempt 1 in B",
		"B end 404 after 1 attempts, error " + errText(err), "A end 404 after 1 attempts, error " + errText(err),
	}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("hooks and attempts (-want +got):\n%s", diff)
	}
	if tokenSpan != "B" {
		t.Errorf("the token source ran in span %q, want B, the innermost hook's", tokenSpan)
	}

	tr.events = nil
	f = newFake(t, ok(page(true, 2, installationJSON)), ok(page(false, 2, `{"id":5,"uuid":"0b6d7c1e-4c1a-4f57-9a43-0d2c8e3b5a12","plugin_id":100,"user_id":9,"first_name":"","last_name":"","email_address":"","created_on":"2026-11-04T08:00:00Z","updated_on":"2026-11-04T08:00:00Z","deleted_on":null}`)))
	c = f.client(scribe.WithOperationHook(hook("P")))
	collect(t, c.ListPluginInstallations(t.Context(), 100, nil))
	want = []string{"P start ListPluginInstallations under ", "P end 200 after 1 attempts, error <nil>",
		"P start ListPluginInstallations under ", "P end 200 after 1 attempts, error <nil>"}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("a walk of two pages (-want +got):\n%s", diff)
	}

	tr.events = nil
	if _, err := c.GetMe(t.Context(), scribe.WithMaxRetries(-1)); err == nil || len(tr.get()) != 0 {
		t.Errorf("a call refused before it started: err = %v, hooks ran %v; want an error and no hook", err, tr.get())
	}
}

// tokenFunc is a TokenSource made of a function.
type tokenFunc func(context.Context) (string, error)

func (f tokenFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestOptionsBundle protects scribe.Options: the options it holds apply in
// order, where a client or a call takes them, and one that the place
// refuses makes the bundle refused there, with that option's error.
func TestOptionsBundle(t *testing.T) {
	t.Parallel()
	tr := &trace{}
	f := newFake(t, ok(userJSON), ok(userJSON))
	c := f.client(scribe.Options(scribe.WithMiddleware(tr.named("A")), scribe.Options(scribe.WithMiddleware(tr.named("B")))))
	if _, err := c.GetMe(t.Context(), scribe.Options(scribe.WithMiddleware(tr.named("C")))); err != nil {
		t.Fatal(err)
	}
	want := []string{"A in", "B in", "C in", "C out", "B out", "A out"}
	if diff := cmp.Diff(want, tr.get()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	var ae *scribe.ArgumentError
	if _, err := c.WithOptions(scribe.Options(scribe.WithMaxRetries(1), scribe.WithIdempotencyKey("k"))); !errors.As(err, &ae) || ae.Func != "WithIdempotencyKey" {
		t.Errorf("a client took a bundle holding a per-call option: %v", err)
	}
	if _, err := c.GetMe(t.Context(), scribe.Options(scribe.WithLogger(nil))); !errors.As(err, &ae) || ae.Func != "WithLogger" {
		t.Errorf("a call took a bundle holding a client option: %v", err)
	}
}
