package scribetest_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// answers is a receiver's script: the status of each attempt, by order of
// arrival, 204 once the script is used up.
type answers struct {
	mu     sync.Mutex
	script []int
}

func (a *answers) answer(_ int, w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	code := http.StatusNoContent
	if len(a.script) > 0 {
		code, a.script = a.script[0], a.script[1:]
	}
	a.mu.Unlock()
	w.WriteHeader(code)
}

// attemptsOf returns the attempts of event id, oldest first.
func attemptsOf(s *scribetest.Server, id string) []scribetest.DeliveryAttempt {
	var out []scribetest.DeliveryAttempt
	for _, a := range s.Deliveries() {
		if a.EventID == id {
			out = append(out, a)
		}
	}
	return out
}

// A resend of a settled delivery is one more attempt: the same webhook-id
// and body, signed anew at the time of the resend, recorded with the next
// attempt number and final whatever its answer, so that a failed resend is
// not retried and nothing stays pending.
func TestResendSettledDelivery(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	script := &answers{script: []int{http.StatusNoContent, http.StatusInternalServerError}}
	rc := newReceiver(t, script.answer)
	e.hook(t, e.plugin.ID, rc.url())
	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := e.s.RequireDelivered(t)
	if len(first) != 1 || first[0].Attempt != 1 || !first[0].Delivered {
		t.Fatalf("first delivery: %v", first)
	}
	id := first[0].EventID

	e.clock.Advance(time.Hour) // the resend is signed an hour later
	if err := e.s.Resend(id); err != nil {
		t.Fatalf("Resend(%s): %v", id, err)
	}
	e.settle(t)
	got := rc.got()
	if len(got) != 2 {
		t.Fatalf("the receiver got %d requests, want 2", len(got))
	}
	orig, again := got[0], got[1]
	if again.header.Get(webhook.HeaderID) != id || !bytes.Equal(again.body, orig.body) {
		t.Errorf("resend: webhook-id %q and body %s, want %q and the first body %s", again.header.Get(webhook.HeaderID), again.body, id, orig.body)
	}
	if again.header.Get(webhook.HeaderTimestamp) == orig.header.Get(webhook.HeaderTimestamp) ||
		again.header.Get(webhook.HeaderSignature) == orig.header.Get(webhook.HeaderSignature) {
		t.Errorf("resend: the timestamp and signature are the first attempt's: %v", again.header)
	}
	v, err := e.s.WebhookVerifier(e.s.Webhooks(e.plugin.ID)[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(again.header, again.body); err != nil {
		t.Errorf("the resend does not verify with the webhook's secret at the server's time: %v", err)
	}
	if again.event.PluginInstallationUUID != inst.UUID {
		t.Errorf("resent event names installation %q, want %q", again.event.PluginInstallationUUID, inst.UUID)
	}

	as := attemptsOf(e.s, id)
	if len(as) != 2 {
		t.Fatalf("attempts of %s:\n%s", id, attemptLines(as))
	}
	if r := as[1]; r.Attempt != 2 || r.StatusCode != http.StatusInternalServerError || r.Delivered || !r.Final || !r.Time.Equal(t0.Add(time.Hour)) {
		t.Errorf("the resend's record = %+v, want attempt 2, 500, final, at t0+1h", r)
	}
	if p := e.s.PendingDeliveries(); len(p) != 0 {
		t.Errorf("a failed resend of a settled delivery is retried: pending %+v", p)
	}
}

// A resend of a delivery that waits for a retry is its next attempt, made
// now rather than when the schedule says; it is retried on the schedule if
// it fails, and ends the delivery if it succeeds.
func TestResendPendingDelivery(t *testing.T) {
	t.Parallel()
	e := newHookEnvWith(t) // the default schedule: the second attempt waits 5 s of the fake clock
	script := &answers{script: []int{http.StatusServiceUnavailable, http.StatusServiceUnavailable}}
	rc := newReceiver(t, script.answer)
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a retry is timed", func() bool {
		p := e.s.PendingDeliveries()
		return len(p) == 1 && p[0].Attempts == 1 && !p[0].NextAttempt.IsZero()
	}, attemptsSeen(e.s))
	id := e.s.PendingDeliveries()[0].EventID

	if err := e.s.Resend(id); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the resend fails and the next retry is timed", func() bool {
		p := e.s.PendingDeliveries()
		return len(attemptsOf(e.s, id)) == 2 && len(p) == 1 && !p[0].NextAttempt.IsZero()
	}, attemptsSeen(e.s))
	as := attemptsOf(e.s, id)
	if r := as[1]; r.Attempt != 2 || !r.Time.Equal(t0) || r.Final {
		t.Errorf("the resend's record = %+v, want attempt 2 at t0 (the clock did not move), not final", r)
	}
	if next := e.s.PendingDeliveries()[0].NextAttempt; next.Sub(t0) < 4*time.Minute {
		t.Errorf("after the resend as second attempt, the next is due at t0+%v, want the third's wait (5 min ±20%%)", next.Sub(t0))
	}

	if err := e.s.Resend(id); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	as = attemptsOf(e.s, id)
	if len(as) != 3 || as[2].Attempt != 3 || !as[2].Delivered || !as[2].Final || !as[2].Time.Equal(t0) {
		t.Errorf("attempts after a second resend:\n%s\nwant a third, delivered at t0", attemptLines(as))
	}
}

// Resend refuses what it cannot send: an id the server never emitted
// (ErrNotFound), an event that went to no webhook (ErrConflict: here, one
// larger than MaxEventBytes), and anything after Close (ErrClosed).
func TestResendRefusals(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	rc := newReceiver(t, nil)
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Text: strings.Repeat("x", scribetest.MaxEventBytes)}); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	// Deliveries lists attempts as they finish, which orders the two events
	// by scheduling, not by emission: tell them apart by their outcome.
	as := e.s.Deliveries()
	if len(as) != 2 || as[0].Delivered == as[1].Delivered {
		t.Fatalf("want one event delivered, one too large to send:\n%s", attemptLines(as))
	}
	sent, unsent := as[0].EventID, as[1].EventID
	if !as[0].Delivered {
		sent, unsent = unsent, sent
	}

	if err := e.s.Resend("evt_nope"); !errors.Is(err, scribetest.ErrNotFound) || !strings.Contains(err.Error(), "evt_nope") {
		t.Errorf("Resend(unknown) = %v, want ErrNotFound naming the id", err)
	}
	if err := e.s.Resend(unsent); !errors.Is(err, scribetest.ErrConflict) || !strings.Contains(err.Error(), "no webhook") {
		t.Errorf("Resend(an event sent to no webhook) = %v, want ErrConflict saying so", err)
	}
	e.s.Close()
	if err := e.s.Resend(sent); !errors.Is(err, scribetest.ErrClosed) {
		t.Errorf("Resend after Close = %v, want ErrClosed", err)
	}
}
