package scribetest_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// The end-to-end check of webhook delivery: the reference server delivers
// to a receiver built with the SDK's webhook.NewHandler, the receiver is
// down for the first attempts, and once it is back every event reaches the
// receiver's function exactly once.

// e2eSchedule keeps the retries within a second.
var e2eSchedule = scribetest.WithWebhookSchedule(0, 5*time.Millisecond, 10*time.Millisecond,
	20*time.Millisecond, 40*time.Millisecond, 80*time.Millisecond, 160*time.Millisecond, 320*time.Millisecond)

// sdkReceiver is what a plugin developer writes: webhook.NewHandler with the
// webhook's signing secret, and a function that records the events it sees.
type sdkReceiver struct {
	handler http.Handler
	mu      sync.Mutex
	seen    map[string]int // event id -> calls of the function
}

func newSDKReceiver(t *testing.T, hook scribe.Webhook) *sdkReceiver {
	t.Helper()
	v, err := webhook.NewVerifier(hook.SigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	r := &sdkReceiver{seen: map[string]int{}}
	r.handler = mustHandler(t, v, func(_ context.Context, e *webhook.Event) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.seen[e.ID]++
		return nil
	})
	return r
}

func (r *sdkReceiver) calls() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.seen))
	for k, v := range r.seen {
		out[k] = v
	}
	return out
}

// produceEvents makes five events for plugin: an installation, two
// transcripts, an update, the uninstallation.
func produceEvents(t *testing.T, s *scribetest.Server, pluginID, userID int64) {
	t.Helper()
	inst, err := s.Install(pluginID, userID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range []string{"Standup", "Call with ACME"} {
		tr, err := s.CreateTranscript(userID, scribetest.TranscriptParams{Headline: h, Type: "meeting"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	if _, err := s.UpdateTranscript(ids[0], func(t *scribe.Transcript) { t.Headline = "Standup (edited)" }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uninstall(inst.UUID); err != nil {
		t.Fatal(err)
	}
}

// eventIDs returns the distinct event ids of the attempts, sorted.
func eventIDs(attempts []scribetest.DeliveryAttempt) []string {
	var ids []string
	for _, a := range attempts {
		if !slices.Contains(ids, a.EventID) {
			ids = append(ids, a.EventID)
		}
	}
	slices.Sort(ids)
	return ids
}

func onceEach(ids []string) map[string]int {
	m := make(map[string]int, len(ids))
	for _, id := range ids {
		m[id] = 1
	}
	return m
}

// downAttempts is how many attempts of each event find the receiver down.
const downAttempts = 2

// attemptCounter counts the attempts of each event by webhook-id, so that a
// receiver's down state ends on the event's own attempts rather than when
// the test goroutine gets to run.
type attemptCounter struct {
	mu sync.Mutex
	n  map[string]int
}

// next counts an attempt of the event r carries and returns its number.
func (c *attemptCounter) next(r *http.Request) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Header.Get(webhook.HeaderID)]++
	return c.n[r.Header.Get(webhook.HeaderID)]
}

// refuseFirst is a webhook transport on which the first downAttempts
// attempts of each event fail to connect, as to a receiver not listening,
// and later ones go through next.
type refuseFirst struct {
	attempts attemptCounter
	next     http.RoundTripper
}

func (rt *refuseFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if rt.attempts.next(r) <= downAttempts {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	return rt.next.RoundTrip(r)
}

// While the receiver is down (answering 503, or not even listening) the
// server retries; once it is back every event is handled exactly once.
//
// The receiver is down for the first downAttempts attempts of each event,
// counted by webhook-id where the attempt arrives, so the outcome does not
// depend on when the test goroutine runs: the schedule (8 attempts) always
// has room for the third attempt, however late the retries fire. A fake
// clock is not needed for that, and would only put the test goroutine back
// in the loop (it would have to advance the clock past every retry).
func TestEndToEndReceiverDownThenBack(t *testing.T) {
	t.Parallel()
	const events = 5
	tests := []struct {
		name string
		// setup returns the server's options and the receiver's URL, serving
		// h once the receiver is back for an event.
		setup func(t *testing.T, h http.Handler) ([]scribetest.Option, string)
	}{
		{"answers 503", func(t *testing.T, h http.Handler) ([]scribetest.Option, string) {
			var attempts attemptCounter
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if attempts.next(r) <= downAttempts {
					http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
					return
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			return nil, srv.URL + "/hooks/scribe"
		}},
		{"not listening", func(t *testing.T, h http.Handler) ([]scribetest.Option, string) {
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			rt := &refuseFirst{next: srv.Client().Transport}
			return []scribetest.Option{scribetest.WithWebhookTransport(rt)}, srv.URL + "/hooks/scribe"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var h http.Handler // set once the webhook's secret is known
			opts, url := tt.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
			s := scribetest.NewTestServer(t, append([]scribetest.Option{e2eSchedule}, opts...)...)
			dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
			if err != nil {
				t.Fatal(err)
			}
			plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
				Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
			if err != nil {
				t.Fatal(err)
			}
			user, err := s.CreateUser(scribe.User{FirstName: "Grace"})
			if err != nil {
				t.Fatal(err)
			}
			hook, err := s.CreateWebhook(plugin.ID, url)
			if err != nil {
				t.Fatal(err)
			}
			rcv := newSDKReceiver(t, hook)
			h = rcv.handler

			produceEvents(t, s, plugin.ID, user.ID)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if err := s.WaitForDeliveries(ctx); err != nil {
				t.Fatalf("WaitForDeliveries: %v; pending %+v\nattempts:\n%s", err, s.PendingDeliveries(), attemptLines(s.Deliveries()))
			}

			attempts := s.Deliveries()
			ids := eventIDs(attempts)
			if len(ids) != events {
				t.Fatalf("%d events attempted, want %d:\n%s", len(ids), events, attemptLines(attempts))
			}
			// Each event: downAttempts failures, then delivered once.
			want, got := map[string]string{}, map[string]string{}
			for _, id := range ids {
				want[id] = "failed failed delivered"
			}
			for _, a := range attempts {
				outcome := "failed"
				if a.Delivered {
					outcome = "delivered"
				}
				got[a.EventID] = strings.TrimSpace(got[a.EventID] + " " + outcome)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attempts per event id (-want +got):\n%s\nattempts:\n%s", diff, attemptLines(attempts))
			}
			if diff := cmp.Diff(onceEach(ids), rcv.calls()); diff != "" {
				t.Errorf("calls of the receiver's function per event id (-want +got):\n%s\nattempts:\n%s", diff, attemptLines(attempts))
			}
			for _, a := range attempts {
				if a.Final && !a.Delivered {
					t.Errorf("event %s was given up: %v\nattempts:\n%s", a.EventID, a, attemptLines(attempts))
				}
				if !a.Delivered && tt.name == "not listening" && (a.StatusCode != 0 || !strings.Contains(a.Error, "refused")) {
					t.Errorf("event %s, %v: want a connection error and no status", a.EventID, a)
				}
				if !a.Delivered && tt.name == "answers 503" && a.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("event %s, %v: want 503", a.EventID, a)
				}
			}
		})
	}
}

// loseFirstAck runs the handler, then, the first time it sees an event id,
// drops the connection instead of sending the handler's answer: the
// receiver handled the event but the server saw a failure and retries.
func loseFirstAck(t *testing.T, h http.Handler) (http.Handler, func() map[string][]int) {
	var mu sync.Mutex
	statuses := map[string][]int{} // the handler's answers per event id
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			id := r.Header.Get(webhook.HeaderID)
			mu.Lock()
			statuses[id] = append(statuses[id], rec.Code)
			first := len(statuses[id]) == 1
			mu.Unlock()
			if first {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				conn.Close() // the 200 is lost on the way back
				return
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}), func() map[string][]int {
			mu.Lock()
			defer mu.Unlock()
			out := make(map[string][]int, len(statuses))
			for k, v := range statuses {
				out[k] = slices.Clone(v)
			}
			return out
		}
}

// When the receiver's acknowledgement is lost, the server delivers the event
// again with the same webhook-id, and the SDK's handler dedupes it: the
// function runs once per event, the second delivery is answered 200 without
// running it.
func TestEndToEndLostAcknowledgementIsDeduped(t *testing.T) {
	t.Parallel()
	const events = 5
	s := scribetest.NewTestServer(t, e2eSchedule)
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	user, err := s.CreateUser(scribe.User{FirstName: "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	hook, err := s.CreateWebhook(plugin.ID, srv.URL+"/hooks/scribe")
	if err != nil {
		t.Fatal(err)
	}
	rcv := newSDKReceiver(t, hook)
	var statuses func() map[string][]int
	h, statuses = loseFirstAck(t, rcv.handler)

	produceEvents(t, s, plugin.ID, user.ID)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		t.Fatalf("WaitForDeliveries: %v; pending %+v\nattempts:\n%sthe handler's answers per event id: %v", err, s.PendingDeliveries(), attemptLines(s.Deliveries()), statuses())
	}

	attempts := s.Deliveries()
	ids := eventIDs(attempts)
	if len(ids) != events || len(attempts) != 2*events {
		t.Fatalf("%d attempts of %d events; want 2 attempts of each of %d:\n%sthe handler's answers per event id: %v", len(attempts), len(ids), events, attemptLines(attempts), statuses())
	}
	if diff := cmp.Diff(onceEach(ids), rcv.calls()); diff != "" {
		t.Errorf("calls of the receiver's function per event id (-want +got):\n%s\nattempts:\n%s", diff, attemptLines(attempts))
	}
	want := map[string][]int{}
	for _, id := range ids {
		want[id] = []int{http.StatusOK, http.StatusOK} // "ok" (lost), then "duplicate"
	}
	if diff := cmp.Diff(want, statuses()); diff != "" {
		t.Errorf("the handler's answers per event (-want +got):\n%s\nattempts:\n%s", diff, attemptLines(attempts))
	}
}

// The largest transcript the server delivers, an event of exactly
// MaxEventBytes, goes end to end, signed, to a receiver built with
// webhook.NewHandler and its default options, which verifies it and hands the
// whole text to the function. A transcript one byte longer is not sent (no
// receiver would admit it) and the attempt record says why.
func TestEndToEndLargestEvent(t *testing.T) {
	t.Parallel()
	e := newHookEnvWith(t, scribetest.WithLogger(slog.New(slog.DiscardHandler))) // the default schedule
	s, plugin, user := e.s, e.plugin, e.user
	var mu sync.Mutex
	texts := map[string]int{} // event id -> length of the text fn got
	bodies := map[string]int{}
	srv := httptest.NewUnstartedServer(nil)
	t.Cleanup(srv.Close)
	hook, err := s.CreateWebhook(plugin.ID, "http://"+srv.Listener.Addr().String()+"/hook")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.WebhookVerifier(hook) // default options: DefaultMaxBodyBytes
	if err != nil {
		t.Fatal(err)
	}
	h := mustHandler(t, v, func(_ context.Context, e *webhook.Event) error {
		if e.Type != webhook.EventTranscriptCreated {
			return nil
		}
		tr, err := e.Transcript()
		if err != nil {
			return err
		}
		mu.Lock()
		texts[e.ID] = len(tr.Text)
		mu.Unlock()
		return nil
	})
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		bodies[r.Header.Get(webhook.HeaderID)] = int(r.ContentLength)
		mu.Unlock()
		h.ServeHTTP(w, r)
	})
	srv.Start()
	if _, err := s.Install(plugin.ID, user.ID); err != nil {
		t.Fatal(err)
	}

	// Measure the envelope around the text with a small transcript; the
	// big ones differ only by their text (ASCII letters, not escaped).
	p := scribetest.TranscriptParams{ID: 10, Headline: "All hands", Type: "meeting", Text: "x"}
	if _, err := s.CreateTranscript(user.ID, p); err != nil {
		t.Fatal(err)
	}
	var smallID string
	for _, a := range s.RequireDelivered(t) {
		if a.EventType == webhook.EventTranscriptCreated {
			smallID = a.EventID
		}
	}
	overhead := bodies[smallID] - 1

	p.ID, p.Text = 11, strings.Repeat("a", scribetest.MaxEventBytes-overhead)
	if _, err := s.CreateTranscript(user.ID, p); err != nil {
		t.Fatal(err)
	}
	p.ID, p.Text = 12, strings.Repeat("a", scribetest.MaxEventBytes-overhead+1)
	if _, err := s.CreateTranscript(user.ID, p); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitForDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	var largest, tooLarge scribetest.DeliveryAttempt
	for _, a := range s.Deliveries() {
		switch {
		case a.EventID == smallID || a.EventType != webhook.EventTranscriptCreated:
		case a.Delivered:
			largest = a
		default:
			tooLarge = a
		}
	}
	s.RequireDelivered(t, largest.EventID)
	mu.Lock()
	defer mu.Unlock()
	if bodies[largest.EventID] != scribetest.MaxEventBytes || texts[largest.EventID] != scribetest.MaxEventBytes-overhead {
		t.Errorf("the largest event: body of %d bytes, text of %d reached the function; want %d and %d",
			bodies[largest.EventID], texts[largest.EventID], scribetest.MaxEventBytes, scribetest.MaxEventBytes-overhead)
	}
	if !tooLarge.Final || tooLarge.Delivered || !strings.Contains(tooLarge.Error, "more than MaxEventBytes") {
		t.Errorf("the event one byte over: %v; want a final record saying it was not sent", tooLarge)
	}
	if _, sent := bodies[tooLarge.EventID]; sent {
		t.Error("the event one byte over MaxEventBytes was sent")
	}
}

// The test of docs/testing.md, "The shape of a test", kept here so that it
// compiles and passes: one FakeClock given once, the receiver's verifier
// from the server, RequireDelivered instead of a sleep.
func TestReceiverHandlesNewTranscripts(t *testing.T) {
	clock := scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	srv := scribetest.NewTestServer(t, scribetest.WithClock(clock)) // the one place the clock is given

	dev, _ := srv.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := srv.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	user, _ := srv.CreateUser(scribe.User{FirstName: "Grace"})

	// The receiver, as in production, on a port the webhook can name.
	receiver := httptest.NewUnstartedServer(nil)
	t.Cleanup(receiver.Close)
	hook, _ := srv.CreateWebhook(plugin.ID, "http://"+receiver.Listener.Addr().String()+"/hook")
	verifier, err := srv.WebhookVerifier(hook) // hook's secret, the server's clock
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var headlines []string
	receiver.Config.Handler, err = webhook.NewHandler(verifier, func(ctx context.Context, e *webhook.Event) error {
		if e.Type != webhook.EventTranscriptCreated {
			return nil // acknowledge what you do not handle
		}
		tr, err := e.Transcript()
		if err != nil {
			return webhook.Permanent(err) // will not decode on a retry either
		}
		mu.Lock()
		defer mu.Unlock()
		headlines = append(headlines, tr.Headline)
		return nil
	}, webhook.WithErrorDetails()) // a failure's answer says why, for RequireDelivered
	if err != nil {
		t.Fatal(err)
	}
	receiver.Start()

	if _, err := srv.Install(plugin.ID, user.ID); err != nil { // installation.created
		t.Fatal(err)
	}
	if _, err := srv.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Standup"}); err != nil { // transcript.created
		t.Fatal(err)
	}

	srv.RequireDelivered(t) // every event got a 2xx, or the test fails saying why
	mu.Lock()
	defer mu.Unlock()
	if len(headlines) != 1 || headlines[0] != "Standup" {
		t.Errorf("the receiver handled %q, want [Standup]", headlines)
	}
}
