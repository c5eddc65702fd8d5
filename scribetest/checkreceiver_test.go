package scribetest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// checkRecorder is a testing.TB that records what CheckReceiver reports, so that
// a test can assert on a check that fails. Anything else goes to the real
// test's TB.
type checkRecorder struct {
	testing.TB
	mu     sync.Mutex
	logs   []string
	errors []string
	fatal  string
}

func (r *checkRecorder) Helper() {}

func (r *checkRecorder) Log(args ...any) { r.add(&r.logs, fmt.Sprint(args...)) }

func (r *checkRecorder) Logf(format string, args ...any) {
	r.add(&r.logs, fmt.Sprintf(format, args...))
}

func (r *checkRecorder) Error(args ...any) { r.add(&r.errors, fmt.Sprint(args...)) }

func (r *checkRecorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *checkRecorder) add(list *[]string, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*list = append(*list, s)
}

// record runs check with a checkRecorder, in a goroutine of its own so that
// Fatalf can end it, and returns what it reported.
func recordCheck(t *testing.T, check func(testing.TB)) *checkRecorder {
	r := &checkRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r
}

// newReceiver starts a receiver built on webhook.NewHandler with opts,
// whose function is counted by processed.
func startCheckedReceiver(t *testing.T, secret auth.WebhookSecret, processed *scribetest.EventCounter, opts ...webhook.HandlerOption) string {
	t.Helper()
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	handle := func(context.Context, *webhook.Event) error { return nil }
	srv := httptest.NewServer(mustHandler(t, v, processed.Wrap(handle), append(opts, webhook.WithLogger(nil))...))
	t.Cleanup(srv.Close)
	return srv.URL
}

func newCheckSecret(t *testing.T) auth.WebhookSecret {
	t.Helper()
	s, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A receiver built on webhook.NewHandler keeps every rule, and runs its
// function exactly once per event it should process: CheckReceiver logs a
// PASS line per rule and the summary, and fails nothing.
func TestCheckReceiverPassesNewHandler(t *testing.T) {
	t.Parallel()
	secret := newCheckSecret(t)
	var processed scribetest.EventCounter
	url := startCheckedReceiver(t, secret, &processed)
	r := recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithProcessedCount(processed.Count))
	})
	if len(r.errors) != 0 || r.fatal != "" {
		t.Fatalf("CheckReceiver failed a correct receiver:\n%s\n%s", strings.Join(r.errors, "\n"), r.fatal)
	}
	if len(r.logs) != 10 || r.logs[9] != "scribetest: CheckReceiver: 9 passed, 0 failed" {
		t.Fatalf("logged %d lines, want 9 PASS lines and the summary:\n%s", len(r.logs), strings.Join(r.logs, "\n"))
	}
	for _, l := range r.logs[:9] {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("logged %q, want a PASS line", l)
		}
	}
	// The same check, with the test's own t, as a test would write it.
	scribetest.CheckReceiver(t, url, secret, scribetest.WithProcessedCount(processed.Count), scribetest.WithReceiverTimeout(5*time.Second))
}

// A receiver that answers every delivery correctly but runs its function
// again for a redelivery (no dedupe) keeps every rule about answers; only
// the exactly-once assertion of WithProcessedCount catches it, in the two
// rules that deliver one event more than once, with the number of runs.
func TestCheckReceiverCatchesDoubleProcessing(t *testing.T) {
	t.Parallel()
	secret := newCheckSecret(t)
	var processed scribetest.EventCounter
	url := startCheckedReceiver(t, secret, &processed, webhook.WithoutDedupe())

	// Without a count or a server, processing cannot be seen: the two rules
	// are not checked, never passed, and WithRequireChecked fails them.
	r := recordCheck(t, func(tb testing.TB) { scribetest.CheckReceiver(tb, url, secret) })
	if len(r.errors) != 0 || r.fatal != "" {
		t.Errorf("without WithProcessedCount, CheckReceiver failed:\n%s\n%s", strings.Join(r.errors, "\n"), r.fatal)
	}
	for _, rule := range []string{"redelivery", "concurrent"} {
		if l := lineOf(r.logs, rule); !strings.HasPrefix(l, "NOT CHECKED ") || !strings.Contains(l, "processing is not checked: without -server (WithServer or WithProcessedCount in Go)") {
			t.Errorf("%s: %q, want NOT CHECKED saying processing cannot be seen without a server", rule, l)
		}
	}
	if got := r.logs[len(r.logs)-1]; got != "scribetest: CheckReceiver: 7 passed, 0 failed, 2 not checked" {
		t.Errorf("summary = %q", got)
	}
	r = recordCheck(t, func(tb testing.TB) { scribetest.CheckReceiver(tb, url, secret, scribetest.WithRequireChecked()) })
	for _, rule := range []string{"redelivery", "concurrent"} {
		if l := lineOf(r.errors, rule); !strings.HasPrefix(l, "FAIL ") || !strings.Contains(l, "processing is not checked, and the check requires it (-require-checked)") {
			t.Errorf("WithRequireChecked: %s: %q, want a FAIL for not being checked", rule, l)
		}
	}
	if got := r.logs[len(r.logs)-1]; len(r.errors) != 2 || got != "scribetest: CheckReceiver: 7 passed, 2 failed" {
		t.Errorf("WithRequireChecked: %d errors, summary %q; want 2 and 7 passed, 2 failed", len(r.errors), got)
	}

	r = recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithProcessedCount(processed.Count))
	})
	want := []string{
		"FAIL redelivery: ", "the receiver's function ran 2 times for it, want once",
		"FAIL concurrent: ", fmt.Sprintf("the receiver's function ran %d times for it, want once", 10),
	}
	if len(r.errors) != 2 {
		t.Fatalf("CheckReceiver reported %d errors, want 2 (redelivery, concurrent):\n%s", len(r.errors), strings.Join(r.errors, "\n"))
	}
	for i, e := range r.errors {
		if !strings.HasPrefix(e, want[2*i]) || !strings.Contains(e, want[2*i+1]) {
			t.Errorf("error %d = %q, want it to begin %q and say %q", i, e, want[2*i], want[2*i+1])
		}
	}
	if got := r.logs[len(r.logs)-1]; got != "scribetest: CheckReceiver: 7 passed, 2 failed" {
		t.Errorf("summary = %q", got)
	}
}

// A check that cannot start stops the test, saying why, without the secret.
func TestCheckReceiverStopsOnBadArguments(t *testing.T) {
	t.Parallel()
	secret := newCheckSecret(t)
	for _, tc := range []struct {
		name   string
		url    string
		secret auth.WebhookSecret
		opts   []scribetest.CheckOption
		want   string
	}{
		{"relative URL", "/hook", secret, nil, "not an absolute http:// or https:// URL"},
		{"other scheme", "ftp://127.0.0.1/hook", secret, nil, "not an absolute http:// or https:// URL"},
		{"zero secret", "http://127.0.0.1:9/hook", auth.WebhookSecret{}, nil, "no signing secret"},
		{"negative timeout", "http://127.0.0.1:9/hook", secret, []scribetest.CheckOption{scribetest.WithReceiverTimeout(-time.Second)}, "timeout -1s is negative"},
		{"unknown event type", "http://127.0.0.1:9/hook", secret, []scribetest.CheckOption{scribetest.WithEventTypes("transcript.deleted")},
			`the event type "transcript.deleted" is not one the service sends; give one of installation.created, transcript.created, transcript.updated, installation.deleted`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := recordCheck(t, func(tb testing.TB) { scribetest.CheckReceiver(tb, tc.url, tc.secret, tc.opts...) })
			if !strings.Contains(r.fatal, tc.want) || strings.Contains(r.fatal, secret.Reveal()) {
				t.Errorf("fatal = %q, want it to say %q, without the secret", r.fatal, tc.want)
			}
			if len(r.errors) != 0 {
				t.Errorf("errors before the check started: %q", r.errors)
			}
		})
	}
}

// EventCounter counts every run of the wrapped function by event id, from
// any number of goroutines, and passes the function's error through.
func TestEventCounter(t *testing.T) {
	t.Parallel()
	var c scribetest.EventCounter
	if n := c.Count("evt_1"); n != 0 {
		t.Fatalf("zero EventCounter: Count = %d", n)
	}
	errBoom := fmt.Errorf("boom")
	fn := c.Wrap(func(_ context.Context, e *webhook.Event) error {
		if e.ID == "evt_2" {
			return errBoom
		}
		return nil
	})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { _ = fn(t.Context(), &webhook.Event{ID: "evt_1"}) })
	}
	wg.Wait()
	if err := fn(t.Context(), &webhook.Event{ID: "evt_2"}); err != errBoom {
		t.Errorf("Wrap's function returned %v, want fn's error", err)
	}
	if a, b, c := c.Count("evt_1"), c.Count("evt_2"), c.Count("evt_3"); a != 50 || b != 1 || c != 0 {
		t.Errorf("counts = %d, %d, %d; want 50, 1, 0", a, b, c)
	}
}
