package scribe_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/scribehq/scribe-go"
)

// TestRetryPolicy protects the retry table of docs/contract.md ("Rate limits
// and idempotency"): which answers are
// retried, for which method, and how many attempts a call makes.
func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	getMe := func(ctx context.Context, c *scribe.Client, opts ...scribe.Option) error {
		_, err := c.GetMe(ctx, opts...)
		return err
	}
	create := func(ctx context.Context, c *scribe.Client, opts ...scribe.Option) error {
		_, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "x"}, opts...)
		return err
	}
	noKey := []scribe.Option{scribe.WithIdempotencyKey("")}
	tests := []struct {
		name         string
		call         func(context.Context, *scribe.Client, ...scribe.Option) error
		opts         []scribe.Option
		fail         httpmock.Responder
		wantAttempts int // with the default 2 retries
	}{
		{"GET 429", getMe, nil, problem(429, scribe.CodeRateLimited, "slow down"), 3},
		{"GET 500", getMe, nil, problem(500, scribe.CodeInternalError, "oops"), 3},
		{"GET 502", getMe, nil, respond(502, "text/html", "<h1>Bad Gateway</h1>"), 3},
		{"GET 503", getMe, nil, problem(503, scribe.CodeServiceUnavailable, "down"), 3},
		{"GET 504", getMe, nil, respond(504, "", ""), 3},
		{"GET connection reset", getMe, nil, connReset, 3},
		{"GET 400 not retried", getMe, nil, problem(400, scribe.CodeInvalidParameter, "bad"), 1},
		{"GET 403 not retried", getMe, nil, problem(403, scribe.CodePermissionDenied, "no"), 1},
		{"GET 404 not retried", getMe, nil, problem(404, scribe.CodeNotFound, "gone"), 1},
		{"GET 501 not retried", getMe, nil, respond(501, "", ""), 1},
		{"GET with retries disabled", getMe, []scribe.Option{scribe.WithMaxRetries(0)}, problem(503, scribe.CodeServiceUnavailable, "down"), 1},
		{"GET with 4 retries", getMe, []scribe.Option{scribe.WithMaxRetries(4)}, problem(503, scribe.CodeServiceUnavailable, "down"), 5},
		{"POST 503 with key", create, nil, problem(503, scribe.CodeServiceUnavailable, "down"), 3},
		{"POST 429 with key", create, nil, problem(429, scribe.CodeRateLimited, "slow"), 3},
		{"POST connection reset with key", create, nil, connReset, 3},
		{"POST 500 not retried", create, nil, problem(500, scribe.CodeInternalError, "oops"), 1},
		{"POST 409 not retried", create, nil, problem(409, scribe.CodeIdempotencyKeyReused, "other body"), 1},
		{"POST 503 without key not retried", create, noKey, problem(503, scribe.CodeServiceUnavailable, "down"), 1},
		{"POST connection reset without key not retried", create, noKey, connReset, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.fail)
			err := tt.call(context.Background(), f.client(), tt.opts...)
			if err == nil {
				t.Fatal("err = nil, want the failure")
			}
			if n := len(f.requests()); n != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d (err %v)", n, tt.wantAttempts, err)
			}
			if strings.Contains(err.Error(), "giving up") {
				t.Errorf("err = %q: want the last answer's error, not a give-up wrapper", err)
			}
		})
	}
}

// TestRetrySucceeds protects that a retried call returns the answer of the
// attempt that succeeded.
func TestRetrySucceeds(t *testing.T) {
	t.Parallel()
	f := newFake(t, connReset, problem(503, scribe.CodeServiceUnavailable, "down"), ok(userJSON))
	u, err := f.client().GetMe(context.Background())
	if err != nil || u.ID != 8 {
		t.Fatalf("GetMe = %+v, %v; want user 8", u, err)
	}
}

// TestPOSTRetriedWithSameKey protects that every attempt of one POST carries
// the same Idempotency-Key, generated or supplied.
func TestPOSTRetriedWithSameKey(t *testing.T) {
	t.Parallel()
	for _, supplied := range []string{"", "order-7"} {
		f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down"), connReset, ok(secretKeyJSON))
		var opts []scribe.Option
		if supplied != "" {
			opts = append(opts, scribe.WithIdempotencyKey(supplied))
		}
		if _, err := f.client().CreatePluginSecretKey(context.Background(), 100, nil, opts...); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		if len(reqs) != 3 {
			t.Fatalf("attempts = %d, want 3", len(reqs))
		}
		key := reqs[0].Header.Get("Idempotency-Key")
		if key == "" || (supplied != "" && key != supplied) {
			t.Errorf("first key = %q, want %q or a generated one", key, supplied)
		}
		for i, r := range reqs {
			if got := r.Header.Get("Idempotency-Key"); got != key {
				t.Errorf("attempt %d key = %q, want %q", i+1, got, key)
			}
			if r.Body != "{}" {
				t.Errorf("attempt %d body = %q, want the same body {}", i+1, r.Body)
			}
		}
	}
}

// TestPOSTWithoutKeySendsNone protects that WithIdempotencyKey("") sends no
// key (and, per TestRetryPolicy, disables retries).
func TestPOSTWithoutKeySendsNone(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(pluginJSON))
	if _, err := f.client().CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}, scribe.WithIdempotencyKey("")); err != nil {
		t.Fatal(err)
	}
	if h, ok := f.requests()[0].Header["Idempotency-Key"]; ok {
		t.Errorf("Idempotency-Key sent: %q", h)
	}
}

// TestRetriesExhausted protects that the caller gets the last answer as an
// *Error, with its status, code and request id.
func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	f := newFake(t, connReset, problem(503, scribe.CodeServiceUnavailable, "maintenance"))
	_, err := f.client().GetMe(context.Background())
	var e *scribe.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *scribe.Error", err, err)
	}
	if e.StatusCode != 503 || e.Code != scribe.CodeServiceUnavailable || e.RequestID != "req_test" || e.Detail != "maintenance" {
		t.Errorf("error = %+v", e)
	}
}

// TestConnectionErrorsExhausted protects that a call whose every attempt
// failed to connect says so, names the operation and the attempts.
func TestConnectionErrorsExhausted(t *testing.T) {
	t.Parallel()
	f := newFake(t, connReset)
	_, err := f.client().GetMe(context.Background())
	if err == nil {
		t.Fatal("err = nil")
	}
	for _, want := range []string{"GET /users/me", "3 attempts", "connection reset"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}
}

// TestRetryAfter protects that Retry-After is honoured in both forms, and
// that a wait beyond the cap is not retried but reported in RetryAfter.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name           string
		retryAfter     string
		wantAttempts   int
		wantRetryAfter time.Duration
	}{
		{"seconds", "0", 3, 0},
		{"HTTP date in the past", past, 3, 0},
		{"beyond the 60 s cap", "120", 1, 120 * time.Second},
		{"malformed", "soon", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, problem(429, scribe.CodeRateLimited, "slow down", "Retry-After", tt.retryAfter))
			_, err := f.client().GetMe(context.Background())
			var e *scribe.Error
			if !errors.As(err, &e) || !errors.Is(err, scribe.ErrRateLimited) {
				t.Fatalf("err = %v, want a rate-limited *Error", err)
			}
			if n := len(f.requests()); n != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", n, tt.wantAttempts)
			}
			if e.RetryAfter != tt.wantRetryAfter {
				t.Errorf("RetryAfter = %s, want %s", e.RetryAfter, tt.wantRetryAfter)
			}
		})
	}
}

// signalHandler is a slog.Handler that reports each record's message.
type signalHandler struct{ msgs chan<- string }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.msgs <- r.Message:
	default:
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// TestCancelDuringBackoff protects that cancelling the context ends a backoff
// wait at once: with an hour-long wait, the call returns context.Canceled.
func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	msgs := make(chan string, 16)
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down"))
	c := f.client(scribe.WithRetryWait(time.Hour, time.Hour), scribe.WithLogger(slog.New(signalHandler{msgs})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for m := range msgs {
			if m == "scribe: retrying" {
				cancel()
				return
			}
		}
	}()
	_, err := c.GetMe(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}
}

// TestAttemptTimeout protects WithRequestTimeout: an attempt that hangs is
// cut off and retried, and the error says it timed out in the ways Go code
// checks for one (errors.Is DeadlineExceeded, Timeout()).
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	hang := func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	f := newFake(t, hang)
	// Long enough for the request to reach the fake on a loaded machine (a
	// context that ends first is refused by httpmock before it records it).
	_, err := f.client(scribe.WithRequestTimeout(50*time.Millisecond), scribe.WithMaxRetries(1)).GetMe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "attempt timed out") {
		t.Errorf("err = %v, want an attempt timeout", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v; callers must be able to detect a timeout", err)
	}
	var te interface{ Timeout() bool }
	if !errors.As(err, &te) || !te.Timeout() {
		t.Errorf("err = %v has no Timeout() true in its chain", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("attempts = %d, want 2 (err %v)", n, err)
	}
}

// TestRetryAfterPastTheDeadline protects that a Retry-After the call's
// context cannot wait for ends the call at once with the answer, instead of
// sleeping until the deadline: one request, and the *Error says how long
// the service asked to wait.
func TestRetryAfterPastTheDeadline(t *testing.T) {
	t.Parallel()
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "busy", "Retry-After", "30"), ok(userJSON))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := f.client().GetMe(ctx)
	var e *scribe.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.RetryAfter != 30*time.Second {
		t.Fatalf("err = %v, want the 503 with its RetryAfter", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if ctx.Err() != nil {
		t.Error("the call waited until its deadline")
	}
}
