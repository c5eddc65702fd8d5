package scribetest_test

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// liveScene is a server with a plugin that reads users and transcripts,
// and its secret key: what a receiver checked WithServer calls back with.
type liveScene struct {
	s      *scribetest.Server
	plugin scribe.Plugin
	key    auth.SecretKey
}

func newLiveScene(t *testing.T) *liveScene {
	t.Helper()
	s := scribetest.NewTestServer(t, scribetest.WithBasePath("/v1"))
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateSecretKey(plugin.ID, "backend")
	if err != nil {
		t.Fatal(err)
	}
	return &liveScene{s: s, plugin: plugin, key: key.Key}
}

// callingBack is a receiver's function as docs/webhooks.md advises: it
// fetches the user of an installation.created and the transcript of a
// transcript event with an installation client of key, acknowledges an
// installation that is gone, and fails when a call fails.
func callingBack(t *testing.T, baseURL string, key auth.SecretKey) func(context.Context, *webhook.Event) error {
	t.Helper()
	cache, err := auth.NewCache(key)
	if err != nil {
		t.Fatal(err)
	}
	return callingBackWith(t, baseURL, cache)
}

// callingBackWith is callingBack with the tokens of cache, acting on the
// event types only, when given, and acknowledging the others.
func callingBackWith(t *testing.T, baseURL string, cache *auth.Cache, only ...webhook.EventType) func(context.Context, *webhook.Event) error {
	t.Helper()
	clients, err := scribe.NewInstallationClients(baseURL, cache, scribe.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, e *webhook.Event) error {
		client, err := clients.For(e.PluginInstallationUUID)
		if err != nil {
			return webhook.Permanent(err)
		}
		if len(only) > 0 && !slices.Contains(only, e.Type) {
			return nil
		}
		switch e.Type {
		case webhook.EventInstallationCreated:
			_, err = client.GetMe(ctx)
		case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
			var tr *scribe.Transcript
			if tr, err = e.Transcript(); err == nil {
				_, err = client.GetTranscript(ctx, tr.ID)
			}
		case webhook.EventInstallationDeleted:
			clients.Forget(e.PluginInstallationUUID)
		}
		return err
	}
}

// serveReceiver serves h until the test ends and returns its URL.
func serveReceiver(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/hook"
}

// handlerOf is webhook.NewHandler with secret's verifier, no logging, and
// the function's errors in the answers, which the check quotes.
func handlerOf(t *testing.T, secret auth.WebhookSecret, fn func(context.Context, *webhook.Event) error, opts ...webhook.HandlerOption) http.Handler {
	t.Helper()
	return mustHandler(t, newCheckVerifier(t, secret), fn, append(opts, webhook.WithLogger(nil), webhook.WithErrorDetails())...)
}

func newCheckVerifier(t *testing.T, secret auth.WebhookSecret) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lineOf returns the reported line of rule, or "".
func lineOf(lines []string, rule string) string {
	for _, l := range lines {
		for _, verdict := range []string{"PASS ", "FAIL ", "NOT CHECKED "} {
			if strings.HasPrefix(l, verdict+rule+": ") {
				return l
			}
		}
	}
	return ""
}

// WithServer, the live scene: every event names an installation and a
// transcript made on the server, so a receiver that calls the server back
// with the plugin's secret key keeps every rule; the same receiver without
// dedupe fails redelivery and concurrent with a line saying it processed
// the event again; one that makes no call gets "not checked" for them,
// counted in the summary, and fails nothing. The scenes emit no event, and
// are gone when the check ends: the users and the plugin's installations
// are what they were before.
func TestCheckReceiverWithServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fn      func(*testing.T, *liveScene) func(context.Context, *webhook.Event) error
		opts    []webhook.HandlerOption
		fail    map[string]string // rule -> what its FAIL line says
		unsure  []string          // the rules "not checked"
		summary string
		// rule -> the event type it delivered; by default the fallback,
		// transcript.updated for redelivery, transcript.created for concurrent
		types map[string]webhook.EventType
	}{
		{name: "calls back, dedupes", summary: "9 passed, 0 failed",
			fn: func(t *testing.T, l *liveScene) func(context.Context, *webhook.Event) error {
				return callingBack(t, l.s.URL(), l.key)
			}},
		{name: "calls back, no dedupe", summary: "7 passed, 2 failed", opts: []webhook.HandlerOption{webhook.WithoutDedupe()},
			fn: func(t *testing.T, l *liveScene) func(context.Context, *webhook.Event) error {
				return callingBack(t, l.s.URL(), l.key)
			},
			fail: map[string]string{
				"redelivery": "the receiver processed the event again: after the redelivery it called the server once more with the event's installation (GET /v1/transcripts/",
				"concurrent": "the receiver processed the event more than once: it called the server 10 times",
			}},
		{name: "calls back on transcript.created only, no dedupe", summary: "7 passed, 2 failed", opts: []webhook.HandlerOption{webhook.WithoutDedupe()},
			fn: func(t *testing.T, l *liveScene) func(context.Context, *webhook.Event) error {
				cache, err := auth.NewCache(l.key)
				if err != nil {
					t.Fatal(err)
				}
				return callingBackWith(t, l.s.URL(), cache, webhook.EventTranscriptCreated)
			},
			types: map[string]webhook.EventType{"redelivery": webhook.EventTranscriptCreated, "concurrent": webhook.EventTranscriptCreated},
			fail: map[string]string{
				"redelivery": "Sent transcript.created evt_",
				"concurrent": "the receiver processed the event more than once: it called the server 10 times",
			}},
		{name: "no calls", summary: "7 passed, 0 failed, 2 not checked", unsure: []string{"redelivery", "concurrent"},
			fn: func(*testing.T, *liveScene) func(context.Context, *webhook.Event) error {
				return func(context.Context, *webhook.Event) error { return nil }
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			live := newLiveScene(t)
			secret := newCheckSecret(t)
			url := serveReceiver(t, handlerOf(t, secret, tt.fn(t, live), tt.opts...))
			// The plugin's webhook: the scenes must deliver nothing to it.
			if _, err := live.s.CreateWebhook(live.plugin.ID, url); err != nil {
				t.Fatal(err)
			}
			users, installs := live.s.Users(), live.s.Installations(live.plugin.ID)
			r := recordCheck(t, func(tb testing.TB) {
				scribetest.CheckReceiver(tb, url, secret, scribetest.WithServer(live.s, live.plugin.ID))
			})
			lines := append(append([]string{}, r.logs...), r.errors...)
			if r.fatal != "" {
				t.Fatal(r.fatal)
			}
			if !strings.Contains(r.logs[0], "each event names an installation and a transcript made on the server") {
				t.Errorf("first log %q, want the note on how processing is seen", r.logs[0])
			}
			for _, rule := range []string{"valid", "redelivery", "wrong-secret", "tampered-body", "missing-headers", "stale-timestamp", "rotation", "unknown-type", "concurrent"} {
				l := lineOf(lines, rule)
				want, fails := tt.fail[rule]
				switch {
				case fails && (!strings.HasPrefix(l, "FAIL ") || !strings.Contains(l, want)):
					t.Errorf("%s: %q, want FAIL saying %q", rule, l, want)
				case fails && !strings.Contains(l, "webhook/redisdedupe"):
					t.Errorf("%s: %q, want the hint about replicas sharing the store", rule, l)
				case slices.Contains(tt.unsure, rule) && (!strings.HasPrefix(l, "NOT CHECKED ") || !strings.Contains(l, "not checked: the receiver made no call to the server")):
					t.Errorf("%s: %q, want NOT CHECKED saying it made no call", rule, l)
				case !fails && !slices.Contains(tt.unsure, rule) && !strings.HasPrefix(l, "PASS "):
					t.Errorf("%s: %q, want PASS", rule, l)
				case !namesEvents.MatchString(l):
					t.Errorf("%s: %q names no event it sent", rule, l)
				}
			}
			for rule, fallback := range map[string]webhook.EventType{"redelivery": webhook.EventTranscriptUpdated, "concurrent": webhook.EventTranscriptCreated} {
				want := cmp.Or(tt.types[rule], fallback)
				if l := lineOf(lines, rule); !strings.Contains(l, " ["+string(want)+" evt_") {
					t.Errorf("%s: %q, want it to deliver a %s event", rule, l, want)
				}
			}
			if got := r.logs[len(r.logs)-1]; got != "scribetest: CheckReceiver: "+tt.summary {
				t.Errorf("summary %q, want %q", got, tt.summary)
			}
			if len(tt.fail) != len(r.errors) {
				t.Errorf("%d errors, want %d:\n%s", len(r.errors), len(tt.fail), strings.Join(r.errors, "\n"))
			}
			if as := live.s.Deliveries(); len(as) != 0 {
				t.Errorf("the scenes emitted events to the plugin's webhook: %v", as)
			}
			if diff := gocmp.Diff(users, live.s.Users()); diff != "" {
				t.Errorf("the users after the check (-before +after):\n%s", diff)
			}
			if diff := gocmp.Diff(installs, live.s.Installations(live.plugin.ID)); diff != "" {
				t.Errorf("the plugin's installations after the check (-before +after):\n%s", diff)
			}
		})
	}
}

// namesEvents matches a line's list of the events its rule sent.
var namesEvents = regexp.MustCompile(`: [^\[]+ \[([a-z]+\.[a-z]+ evt_[A-Z0-9]+(, )?)+\]`)

// A 5xx answered to a valid delivery is reported as the receiver failing
// to handle the event, with its answer, and not blamed on what a later rule
// is about. With a server, the line says what the server saw of the
// receiver's calls; without one, that a receiver calling back needs one.
func TestCheckReceiverReportsFailedHandling(t *testing.T) {
	t.Parallel()
	live := newLiveScene(t)
	other, err := auth.ParseSecretKey("ask_live_" + strings.Repeat("A", 43))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fn   func(context.Context, *webhook.Event) error
		opts []scribetest.CheckOption
		says []string
	}{
		{name: "another key, with a server", fn: callingBack(t, live.s.URL(), other),
			opts: []scribetest.CheckOption{scribetest.WithServer(live.s, live.plugin.ID)},
			says: []string{"A 5xx to a valid delivery: the receiver failed while handling the event", "The server saw no call from it with the event's installation",
				"does it sign with the plugin's secret key?"}},
		{name: "calls back without a server", fn: callingBack(t, live.s.URL(), live.key),
			says: []string{"A 5xx to a valid delivery: the receiver failed while handling the event", "run the check against a server (-server)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := newCheckSecret(t)
			url := serveReceiver(t, handlerOf(t, secret, tc.fn))
			r := recordCheck(t, func(tb testing.TB) { scribetest.CheckReceiver(tb, url, secret, tc.opts...) })
			valid, rotation := lineOf(r.errors, "valid"), lineOf(r.errors, "rotation")
			for _, want := range tc.says {
				if !strings.Contains(valid, want) || !strings.Contains(rotation, want) {
					t.Errorf("want the valid and rotation FAIL lines to say %q:\n%s\n%s", want, valid, rotation)
				}
			}
			if want := `got 500 Internal Server Error "the event handler failed; retry later: scribe: GET /`; !strings.Contains(valid, want) {
				t.Errorf("the valid FAIL line does not quote the receiver's answer %q:\n%s", want, valid)
			}
			if want := "as it did in the valid rule: fix that first; it is not about the rotation's two signature entries"; !strings.Contains(rotation, want) {
				t.Errorf("the rotation FAIL line blames the rotation:\n%s", rotation)
			}
		})
	}
}

// Calls are read by installation, so a call made while refusing a delivery
// shows: a receiver that acts on an event before verifying it fails the
// refusal rules though it answers 4xx.
func TestCheckReceiverSeesActingOnRefused(t *testing.T) {
	t.Parallel()
	live := newLiveScene(t)
	secret := newCheckSecret(t)
	v := newCheckVerifier(t, secret)
	act := callingBack(t, live.s.URL(), live.key)
	url := serveReceiver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if e, err := webhook.ParseEvent(body); err == nil {
			_ = act(r.Context(), e) // the mistake: acting before verifying
		}
		if err := v.Verify(r.Header, body); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
	}))
	r := recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithServer(live.s, live.plugin.ID))
	})
	l := lineOf(r.errors, "wrong-secret")
	if !strings.Contains(l, "got 401 Unauthorized") || !strings.Contains(l, "yet the receiver called the server once with the event's installation (GET /v1/users/me 200)") {
		t.Errorf("wrong-secret: %q, want a FAIL for the call made while refusing", l)
	}
}

// Two replicas behind one URL, each with its own in-memory store, dedupe
// on webhook-id and still process a redelivery that reaches the other one
// again: the check fails them, and its hint names the fix, a shared store.
func TestCheckReceiverReplicasWithOwnStores(t *testing.T) {
	t.Parallel()
	live := newLiveScene(t)
	secret := newCheckSecret(t)
	replicas := []http.Handler{
		handlerOf(t, secret, callingBack(t, live.s.URL(), live.key)),
		handlerOf(t, secret, callingBack(t, live.s.URL(), live.key)),
	}
	var next atomic.Int64
	url := serveReceiver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replicas[next.Add(1)%2].ServeHTTP(w, r) // a round-robin load balancer
	}))
	r := recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithServer(live.s, live.plugin.ID))
	})
	l := lineOf(r.errors, "redelivery")
	for _, want := range []string{"the receiver processed the event again", "they must share the store (Redis: webhook/redisdedupe"} {
		if !strings.Contains(l, want) {
			t.Errorf("redelivery: %q, want it to say %q", l, want)
		}
	}
}

// WithServer signs on the server's clock: on a FakeClock set days from the
// system clock, a receiver that verifies with the server's WebhookVerifier
// and calls back with the server's TokenCache keeps every rule, the
// stale-timestamp rule included (it signs 6 minutes from the fake now); the
// same receiver without dedupe fails redelivery and concurrent, as on the
// system clock.
func TestCheckReceiverOnFakeClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    []webhook.HandlerOption
		fail    []string
		summary string
	}{
		{name: "dedupes", summary: "9 passed, 0 failed"},
		{name: "no dedupe", opts: []webhook.HandlerOption{webhook.WithoutDedupe()}, fail: []string{"redelivery", "concurrent"}, summary: "7 passed, 2 failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := scribetest.NewFakeClock(time.Now().Add(-72 * time.Hour))
			s := scribetest.NewTestServer(t, scribetest.WithClock(clock))
			dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
			if err != nil {
				t.Fatal(err)
			}
			plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
				Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
			if err != nil {
				t.Fatal(err)
			}
			key, err := s.CreateSecretKey(plugin.ID, "backend")
			if err != nil {
				t.Fatal(err)
			}
			recv := httptest.NewUnstartedServer(nil) // its URL first, for the webhook that gives the verifier
			url := "http://" + recv.Listener.Addr().String() + "/hook"
			hook, err := s.CreateWebhook(plugin.ID, url)
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.WebhookVerifier(hook)
			if err != nil {
				t.Fatal(err)
			}
			cache, err := s.TokenCache(key.Key)
			if err != nil {
				t.Fatal(err)
			}
			recv.Config.Handler, err = webhook.NewHandler(v, callingBackWith(t, s.URL(), cache), append(tc.opts, webhook.WithLogger(nil))...)
			if err != nil {
				t.Fatal(err)
			}
			recv.Start()
			t.Cleanup(recv.Close)
			r := recordCheck(t, func(tb testing.TB) {
				scribetest.CheckReceiver(tb, url, hook.SigningSecret, scribetest.WithServer(s, plugin.ID))
			})
			if r.fatal != "" {
				t.Fatal(r.fatal)
			}
			if got := r.logs[len(r.logs)-1]; got != "scribetest: CheckReceiver: "+tc.summary {
				t.Errorf("summary %q, want %q; failures:\n%s", got, tc.summary, strings.Join(r.errors, "\n"))
			}
			for _, rule := range tc.fail {
				if l := lineOf(r.errors, rule); !strings.Contains(l, "the receiver processed the event") {
					t.Errorf("%s: %q, want a FAIL for processing the event again", rule, l)
				}
			}
			if len(r.errors) != len(tc.fail) {
				t.Errorf("%d failures, want %d:\n%s", len(r.errors), len(tc.fail), strings.Join(r.errors, "\n"))
			}
		})
	}
}

// WithEventTypes chooses the types redelivery and concurrent deliver, each
// in turn, and their lines name an event of each; WithRequireChecked fails
// a rule whose processing the server could not see, here the type the
// receiver does not act on.
func TestCheckReceiverEventTypes(t *testing.T) {
	t.Parallel()
	live := newLiveScene(t)
	secret := newCheckSecret(t)
	cache, err := auth.NewCache(live.key)
	if err != nil {
		t.Fatal(err)
	}
	url := serveReceiver(t, handlerOf(t, secret, callingBackWith(t, live.s.URL(), cache, webhook.EventInstallationCreated)))
	types := scribetest.WithEventTypes(webhook.EventInstallationCreated, webhook.EventTranscriptUpdated)

	r := recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithServer(live.s, live.plugin.ID), types)
	})
	for _, rule := range []string{"redelivery", "concurrent"} {
		l := lineOf(r.logs, rule)
		if !regexp.MustCompile(` \[installation\.created evt_\w+, transcript\.updated evt_\w+\]\. `).MatchString(l) ||
			!strings.HasPrefix(l, "NOT CHECKED ") || !strings.Contains(l, "no call to the server for the transcript.updated event evt_") ||
			!strings.Contains(l, "Its type was chosen with -event (WithEventTypes in Go)") {
			t.Errorf("%s: %q, want NOT CHECKED for the transcript.updated event alone, naming both events", rule, l)
		}
	}
	if len(r.errors) != 0 || r.fatal != "" {
		t.Errorf("failures:\n%s\n%s", strings.Join(r.errors, "\n"), r.fatal)
	}

	r = recordCheck(t, func(tb testing.TB) {
		scribetest.CheckReceiver(tb, url, secret, scribetest.WithServer(live.s, live.plugin.ID), types, scribetest.WithRequireChecked())
	})
	if got := r.logs[len(r.logs)-1]; len(r.errors) != 2 || got != "scribetest: CheckReceiver: 7 passed, 2 failed" {
		t.Errorf("WithRequireChecked: summary %q, failures:\n%s", got, strings.Join(r.errors, "\n"))
	}
}
