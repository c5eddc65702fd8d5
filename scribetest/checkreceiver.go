package scribetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/webhook"
)

// CheckOption configures CheckReceiver.
type CheckOption func(*checkConfig)

// checkConfig is the configuration of the check the options set.
type checkConfig = receivercheck.Config

// WithReceiverTimeout sets how long the receiver has to answer a valid
// delivery: by default 15 s, the service's delivery timeout. It must not be
// negative; zero keeps the default.
func WithReceiverTimeout(d time.Duration) CheckOption {
	return func(cfg *checkConfig) { cfg.Timeout = d }
}

// WithProcessedCount makes CheckReceiver also assert exactly-once
// processing: count reports how many times the receiver's function ran for
// an event id (EventCounter.Count does), and each event that should be
// processed must have run once, through redeliveries and concurrent
// deliveries, and each forged, tampered or stale one never. count is read
// once a delivery has been answered, so it suits a receiver that processes
// an event before it answers, such as one built on webhook.NewHandler.
func WithProcessedCount(count func(eventID string) int) CheckOption {
	return func(cfg *checkConfig) { cfg.Processed = count }
}

// CheckReceiver checks the webhook receiver at url against the delivery
// rules the service relies on, as "scribe-server check-receiver" does from
// the command line (docs/webhooks.md, "Check your receiver"). It sends the
// receiver real deliveries of every event type signed with secret, and
// forged, tampered, stale, repeated and concurrent ones, then fails t with
// t.Error once per rule the receiver broke, saying what was sent, what came
// back and why it matters; it logs the rules kept and a summary. It stops t
// with t.Fatal if url is not an absolute http:// or https:// URL, or secret
// is the zero Secret.
//
// The receiver may run in the test's process (an httptest.Server) or
// anywhere else, in any language; the check never prints secret.
func CheckReceiver(t testing.TB, url string, secret webhook.Secret, opts ...CheckOption) {
	t.Helper()
	cfg := checkConfig{URL: url, Secret: secret}
	for _, opt := range opts {
		opt(&cfg)
	}
	sum, err := receivercheck.Run(t.Context(), cfg, func(r receivercheck.Result) {
		if r.Passed {
			t.Log(r)
		} else {
			t.Error(r)
		}
	})
	if err != nil {
		t.Fatalf("scribetest: CheckReceiver: %v", err)
	}
	t.Logf("scribetest: CheckReceiver: %s", sum)
}

// EventCounter counts how many times a receiver's function ran for each
// event id, for CheckReceiver's exactly-once assertion: wrap the function
// you give webhook.NewHandler with Wrap, and pass Count to
// WithProcessedCount. The zero EventCounter is ready to use; it is safe for
// concurrent use.
type EventCounter struct {
	mu   sync.Mutex
	runs map[string]int
}

// Wrap returns a function that counts a run of the event's id, then calls fn.
func (c *EventCounter) Wrap(fn func(context.Context, *webhook.Event) error) func(context.Context, *webhook.Event) error {
	return func(ctx context.Context, e *webhook.Event) error {
		c.mu.Lock()
		if c.runs == nil {
			c.runs = map[string]int{}
		}
		c.runs[e.ID]++
		c.mu.Unlock()
		return fn(ctx, e)
	}
}

// Count returns how many times the wrapped function ran for the event id.
func (c *EventCounter) Count(eventID string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[eventID]
}
