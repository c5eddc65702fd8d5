package scribetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// waitLimit bounds every wait of these tests: a liveness bound that fails a
// hung test, never a measure of speed.
const waitLimit = 10 * time.Second

// fastSchedule makes retries follow each other within milliseconds.
var fastSchedule = scribetest.WithWebhookSchedule(0, 2*time.Millisecond, 4*time.Millisecond, 8*time.Millisecond)

// hookEnv is a server with a developer, a plugin that may read transcripts,
// and a user.
type hookEnv struct {
	s      *scribetest.Server
	clock  *scribetest.FakeClock
	dev    scribetest.Developer
	plugin scribe.Plugin
	user   scribe.User
}

// newHookEnv makes a hookEnv whose retries follow fastSchedule.
func newHookEnv(t *testing.T, opts ...scribetest.Option) *hookEnv {
	t.Helper()
	return newHookEnvWith(t, append([]scribetest.Option{fastSchedule}, opts...)...)
}

// newHookEnvWith makes a hookEnv on a FakeClock at t0 with opts only: the
// server's default (27-hour) retry schedule unless opts change it.
func newHookEnvWith(t *testing.T, opts ...scribetest.Option) *hookEnv {
	t.Helper()
	e := &hookEnv{clock: scribetest.NewFakeClock(t0)}
	e.s = scribetest.NewTestServer(t, append([]scribetest.Option{scribetest.WithClock(e.clock)}, opts...)...)
	var err error
	if e.dev, err = e.s.CreateDeveloper(scribe.User{FirstName: "Ada"}); err != nil {
		t.Fatal(err)
	}
	e.plugin = e.newPlugin(t, scribe.PermissionRead)
	if e.user, err = e.s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *hookEnv) newPlugin(t *testing.T, transcript scribe.Permission) scribe.Plugin {
	t.Helper()
	p, err := e.s.CreatePlugin(e.dev.User.ID, scribe.Plugin{Name: "plugin " + string(transcript),
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: transcript}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *hookEnv) hook(t *testing.T, pluginID int64, uri string) scribe.Webhook {
	t.Helper()
	w, err := e.s.CreateWebhook(pluginID, uri)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// settle waits until every delivery is delivered or given up.
func (e *hookEnv) settle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := e.s.WaitForDeliveries(ctx); err != nil {
		t.Fatalf("WaitForDeliveries: %v; %s", err, attemptsSeen(e.s)())
	}
}

// got is one request a receiver got.
type got struct {
	header http.Header
	body   []byte
	event  webhook.Event
}

// receiver is a webhook endpoint that records every request. answer, when
// set, writes the answer to the n-th request (from 1); the default is 204.
type receiver struct {
	srv    *httptest.Server
	answer func(n int, w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []got
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev webhook.Event
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, got{header: r.Header.Clone(), body: body, event: ev})
		n := len(rc.reqs)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(n, w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url() string { return rc.srv.URL + "/hook" }

func (rc *receiver) got() []got {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// status answers every request with code.
func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// failFirst answers 503 to the first k attempts of each event (by
// webhook-id), then 204.
func failFirst(k int) func(int, http.ResponseWriter, *http.Request) {
	var mu sync.Mutex
	seen := map[string]int{}
	return func(_ int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get(webhook.HeaderID)]++
		n := seen[r.Header.Get(webhook.HeaderID)]
		mu.Unlock()
		if n <= k {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// eventually polls cond until it holds, failing t after waitLimit (a
// liveness bound, not a measure of speed) with the last state it saw: what
// each seen function describes, such as a server's delivery attempts
// (attemptsSeen) or what a receiver got. The tests of this package share it.
func eventually(t *testing.T, what string, cond func() bool, seen ...func() string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			last := ""
			for _, f := range seen {
				last += "\n" + f()
			}
			t.Fatalf("gave up waiting after %v: %s; last seen:%s", waitLimit, what, last)
		case <-tick.C:
		}
	}
}

// attemptsSeen describes a server's delivery records for eventually.
func attemptsSeen(s *scribetest.Server) func() string {
	return func() string {
		return fmt.Sprintf("attempts:\n%spending: %+v", attemptLines(s.Deliveries()), s.PendingDeliveries())
	}
}

// getJSON sends an authenticated GET and returns the body decoded as any.
func getJSON(t *testing.T, s *scribetest.Server, path, token string) any {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
	}
	return v
}

func asAny(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return v
}

var eventIDPattern = regexp.MustCompile(`^evt_[A-Za-z0-9_-]+$`)

// A delivery is a POST of the event envelope, with data exactly as the API
// renders the resource, signed so that the SDK's Verifier accepts it with the
// webhook's signing secret, and conforming to api/openapi.yaml's webhooks.
func TestWebhookDeliveryIsSignedAndShaped(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	rc := newReceiver(t, nil)
	hook := e.hook(t, e.plugin.ID, rc.url())
	key, err := e.s.CreateSecretKey(e.plugin.ID, "")
	if err != nil {
		t.Fatal(err)
	}

	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(90 * time.Second)
	tr, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Headline: "Standup", Text: "Hello.", Type: "meeting",
		Metadata: map[string]any{"room": "B2"}})
	if err != nil {
		t.Fatal(err)
	}
	e.settle(t)

	v, err := webhook.NewVerifier(hook.SigningSecret, webhook.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	devKey := e.dev.Key.Reveal()
	jwt, err := auth.Mint(key.Key, inst.UUID, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	wantData := map[webhook.EventType]any{
		webhook.EventInstallationCreated: getJSON(t, e.s, fmt.Sprintf("/plugins/%d/installations", e.plugin.ID), devKey).(map[string]any)["data"].([]any)[0],
		webhook.EventTranscriptCreated:   getJSON(t, e.s, fmt.Sprintf("/transcripts/%d", tr.ID), jwt),
	}
	wantCreated := map[webhook.EventType]time.Time{
		webhook.EventInstallationCreated: t0,
		webhook.EventTranscriptCreated:   t0.Add(90 * time.Second),
	}

	deliveries := rc.got()
	if len(deliveries) != 2 {
		t.Fatalf("the receiver got %d deliveries, want 2 (installation.created, transcript.created)", len(deliveries))
	}
	validator := apitest.NewValidator(t)
	for _, d := range deliveries {
		ev := d.event
		t.Run(string(ev.Type), func(t *testing.T) {
			if ct := d.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if id := d.header.Get(webhook.HeaderID); id != ev.ID || !eventIDPattern.MatchString(id) {
				t.Errorf("webhook-id = %q, body id = %q; want equal, matching %v", id, ev.ID, eventIDPattern)
			}
			if err := v.Verify(d.header, d.body); err != nil {
				t.Errorf("the SDK's Verifier refuses the delivery: %v", err)
			}
			r := httptest.NewRequest(http.MethodPost, rc.url(), bytes.NewReader(d.body))
			r.Header = d.header
			if err := validator.ValidateWebhook(r, d.body); err != nil {
				t.Error(err)
			}
			if bytes.Contains(d.body, []byte(auth.WebhookSecretPrefix)) {
				t.Errorf("the body carries a signing secret: %s", d.body)
			}
			wantEnvelope := webhook.Event{ID: ev.ID, Type: ev.Type, CreatedOn: wantCreated[ev.Type],
				PluginID: e.plugin.ID, PluginInstallationUUID: inst.UUID}
			if diff := cmp.Diff(wantEnvelope, ev, cmpopts.IgnoreFields(webhook.Event{}, "Data")); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(d.body), `"created_on":"`+wantCreated[ev.Type].Format(time.RFC3339)+`"`) {
				t.Errorf("created_on is not RFC 3339 UTC: %s", d.body)
			}
			if diff := cmp.Diff(wantData[ev.Type], asAny(t, ev.Data)); diff != "" {
				t.Errorf("data differs from what the API answers (-API +event):\n%s", diff)
			}
		})
	}
}

// Events go to every webhook of the plugin concerned and nowhere else:
// installation events to the installed plugin, transcript events only to
// plugins with transcript permission that the transcript's user has
// installed now; an uninstalled installation gets installation.deleted and
// nothing after it.
func TestWebhookRouting(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	pluginNone := e.newPlugin(t, scribe.PermissionNone)
	pluginOther := e.newPlugin(t, scribe.PermissionRead) // never installed by the user
	alan, err := e.s.CreateUser(scribe.User{FirstName: "Alan"})
	if err != nil {
		t.Fatal(err)
	}
	receivers := map[string]*receiver{}
	for _, name := range []string{"plugin#1", "plugin#2", "none", "other"} {
		receivers[name] = newReceiver(t, nil)
	}
	e.hook(t, e.plugin.ID, receivers["plugin#1"].url())
	e.hook(t, e.plugin.ID, receivers["plugin#2"].url())
	e.hook(t, pluginNone.ID, receivers["none"].url())
	e.hook(t, pluginOther.ID, receivers["other"].url())

	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	instNone, err := e.s.Install(pluginNone.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	alanInst, err := e.s.Install(pluginOther.ID, alan.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Headline: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdateTranscript(tr.ID, func(t *scribe.Transcript) { t.Headline = "one, edited" }); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateTranscript(alan.ID, scribetest.TranscriptParams{Headline: "Alan's"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Uninstall(inst.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Headline: "after uninstall"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdateTranscript(tr.ID, func(t *scribe.Transcript) { t.Text = "after uninstall" }); err != nil {
		t.Fatal(err)
	}
	e.settle(t)

	// what names one event as the receiver saw it: type, installation, and
	// the transcript's headline or the installation's state.
	type what struct {
		Type webhook.EventType
		UUID string
		Note string
	}
	pluginEvents := []what{
		{webhook.EventInstallationCreated, inst.UUID, "active"},
		{webhook.EventTranscriptCreated, inst.UUID, "one"},
		{webhook.EventTranscriptUpdated, inst.UUID, "one, edited"},
		{webhook.EventInstallationDeleted, inst.UUID, "deleted"},
	}
	want := map[string][]what{
		"plugin#1": pluginEvents,
		"plugin#2": pluginEvents,
		// No transcript permission: installation events only.
		"none": {{webhook.EventInstallationCreated, instNone.UUID, "active"}},
		// Not installed by the user: Alan's events only.
		"other": {
			{webhook.EventInstallationCreated, alanInst.UUID, "active"},
			{webhook.EventTranscriptCreated, alanInst.UUID, "Alan's"},
		},
	}
	for name, rc := range receivers {
		var gotWhat []what
		for _, g := range rc.got() {
			w := what{Type: g.event.Type, UUID: g.event.PluginInstallationUUID}
			switch g.event.Type {
			case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
				tr, err := g.event.Transcript()
				if err != nil {
					t.Fatal(err)
				}
				w.Note = tr.Headline
			default:
				in, err := g.event.Installation()
				if err != nil {
					t.Fatal(err)
				}
				w.Note = "active"
				if in.DeletedOn != nil {
					w.Note = "deleted"
				}
			}
			gotWhat = append(gotWhat, w)
		}
		// No order is guaranteed: compare as sets.
		sortWhat := cmpopts.SortSlices(func(a, b what) bool { return fmt.Sprint(a) < fmt.Sprint(b) })
		if diff := cmp.Diff(want[name], gotWhat, sortWhat); diff != "" {
			t.Errorf("receiver %s (-want +got):\n%s", name, diff)
		}
	}
	// One event reaches both webhooks of a plugin with the same id.
	ids := func(rc *receiver) []string {
		var out []string
		for _, g := range rc.got() {
			out = append(out, g.event.ID)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff(ids(receivers["plugin#1"]), ids(receivers["plugin#2"])); diff != "" {
		t.Errorf("the two webhooks of one plugin got different event ids (-#1 +#2):\n%s", diff)
	}
}

// attemptOpts compare the attempts without what varies between runs.
var attemptOpts = cmpopts.IgnoreFields(scribetest.DeliveryAttempt{}, "EventID", "Duration", "Time", "Error", "RequestHeaders", "ResponseHeaders") // headers: TestAttemptHeaders

// A failed attempt (a 5xx, a redirect that is not followed, a refused
// connection) is retried with the same webhook-id, each attempt signed anew
// with its own timestamp and recorded; a 2xx ends the delivery.
func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answers   []int  // the receiver's answers, in order; 204 after them
		wantError string // in the first attempt's Error
	}{
		{"500 then 204", []int{500}, "answered 500 Internal Server Error"},
		{"302 not followed then 204", []int{302}, `answered 302 Found (redirect to`},
		{"503, 429, then 200", []int{503, 429}, "answered 503 Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newHookEnv(t)
			target := newReceiver(t, nil) // where the redirect points
			rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
				e.clock.Advance(time.Minute) // the next attempt is signed a minute later
				if n > len(tt.answers) {
					w.WriteHeader(http.StatusNoContent)
					return
				}
				if tt.answers[n-1] == http.StatusFound {
					http.Redirect(w, r, target.url(), http.StatusFound)
					return
				}
				w.WriteHeader(tt.answers[n-1])
			})
			hook := e.hook(t, e.plugin.ID, rc.url())
			if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
				t.Fatal(err)
			}
			e.settle(t)

			var want []scribetest.DeliveryAttempt
			for i, code := range append(slices.Clone(tt.answers), http.StatusNoContent) {
				want = append(want, scribetest.DeliveryAttempt{EventType: webhook.EventInstallationCreated, WebhookID: hook.ID,
					URI: hook.URI, Attempt: i + 1, StatusCode: code, Delivered: code == http.StatusNoContent, Final: code == http.StatusNoContent})
			}
			attempts := e.s.Deliveries()
			if diff := cmp.Diff(want, attempts, attemptOpts); diff != "" {
				t.Fatalf("attempts (-want +got):\n%s", diff)
			}
			if !strings.Contains(attempts[0].Error, tt.wantError) || attempts[len(attempts)-1].Error != "" {
				t.Errorf("errors = %q ... %q; want the first to contain %q and the last empty", attempts[0].Error, attempts[len(attempts)-1].Error, tt.wantError)
			}
			if n := len(target.got()); n != 0 {
				t.Errorf("the redirect was followed: its target got %d requests", n)
			}
			reqs := rc.got()
			for i, a := range attempts {
				h := reqs[i].header
				if h.Get(webhook.HeaderID) != a.EventID || a.EventID != attempts[0].EventID {
					t.Errorf("attempt %d: webhook-id %q, record %q, first %q: want one id for every attempt", a.Attempt, h.Get(webhook.HeaderID), a.EventID, attempts[0].EventID)
				}
				if ts := h.Get(webhook.HeaderTimestamp); ts != strconv.FormatInt(a.Time.Unix(), 10) || !a.Time.Truncate(time.Second).Equal(t0.Add(time.Duration(i)*time.Minute)) {
					t.Errorf("attempt %d: webhook-timestamp %s, recorded %v; want each attempt signed at its own time", a.Attempt, ts, a.Time)
				}
			}
			if p := e.s.PendingDeliveries(); len(p) != 0 {
				t.Errorf("pending after delivery: %+v", p)
			}
		})
	}
}

// A receiver that cannot be reached fails the attempt with no status.
func TestWebhookUnreachableReceiver(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Millisecond))
	// The port stays bound by the test for the whole test, so no other
	// test's listener can be given it; every connection is closed before
	// anything is read or answered.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			conns.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-accepted })
	e.hook(t, e.plugin.ID, "http://"+ln.Addr().String()+"/hook")
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	attempts := e.s.Deliveries()
	if len(attempts) != 2 {
		t.Fatalf("got %d attempts, want 2 (the whole schedule); %d connections closed unanswered:\n%s", len(attempts), conns.Load(), attemptLines(attempts))
	}
	for _, a := range attempts {
		if a.StatusCode != 0 || a.Delivered || a.Error == "" {
			t.Errorf("attempt %d = %+v; want no status, not delivered, an error", a.Attempt, a)
		}
	}
	if !attempts[1].Final || attempts[0].Final {
		t.Errorf("Final = %v, %v; want only the last attempt final", attempts[0].Final, attempts[1].Final)
	}
}

// After the last attempt of the schedule the delivery is given up: the last
// record is Final and not Delivered, and nothing stays pending.
func TestWebhookGivesUpAfterSchedule(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t) // fastSchedule: 4 attempts
	rc := newReceiver(t, status(http.StatusInternalServerError))
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	attempts := e.s.Deliveries()
	if len(attempts) != 4 || len(rc.got()) != 4 {
		t.Fatalf("%d attempts recorded, %d received; want 4:\n%sreceived:\n%s", len(attempts), len(rc.got()), attemptLines(attempts), gotLines(rc.got()))
	}
	last := attempts[3]
	if !last.Final || last.Delivered || last.StatusCode != 500 {
		t.Errorf("last attempt = %+v; want Final, not Delivered, 500\nattempts:\n%s", last, attemptLines(attempts))
	}
	if p := e.s.PendingDeliveries(); len(p) != 0 {
		t.Errorf("pending after giving up: %+v", p)
	}
}

// WithWebhookScheduleScale scales the schedule's delays: an hour scaled by
// 1e-6 is 3.6 ms, so the second attempt comes within the test's wait.
func TestWebhookScheduleScale(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Hour), scribetest.WithWebhookScheduleScale(1e-6))
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	if a := e.s.Deliveries(); len(a) != 2 || a[0].StatusCode != 503 || !a[1].Delivered {
		t.Errorf("%d attempts, want 2 (503, then delivered):\n%sreceived:\n%s", len(a), attemptLines(a), gotLines(rc.got()))
	}
}

// TestWebhookScheduleScaleSaturates: a huge factor does not wrap a delay
// around to an immediate retry (float64(math.MaxInt64) rounds up to 2^63,
// so an unclamped conversion went negative): every retry waits, and no
// wait, jitter included, is longer than MaxWebhookDelay.
func TestWebhookScheduleScaleSaturates(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{1e12, 1e300, math.MaxFloat64} {
		e := newHookEnvWith(t, scribetest.WithWebhookScheduleScale(f))
		rc := newReceiver(t, status(http.StatusServiceUnavailable))
		e.hook(t, e.plugin.ID, rc.url())
		if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the first attempt", func() bool { return len(e.s.Deliveries()) == 1 }, attemptsSeen(e.s))
		var next time.Time
		eventually(t, "the retry is scheduled", func() bool {
			p := e.s.PendingDeliveries()
			if len(p) == 1 && !p[0].NextAttempt.IsZero() {
				next = p[0].NextAttempt
				return true
			}
			return false
		}, attemptsSeen(e.s))
		if wait := next.Sub(e.clock.Now()); wait <= 0 || wait > scribetest.MaxWebhookDelay {
			t.Errorf("scale %g: the retry is due in %v, want within (0, %v]", f, wait, scribetest.MaxWebhookDelay)
		}
		if n := len(e.s.Deliveries()); n != 1 {
			t.Errorf("scale %g: %d attempts at once, want 1 and a wait", f, n)
		}
	}
	for _, f := range []float64{math.Inf(1), math.Inf(-1), -1, 0, math.NaN()} {
		if _, err := scribetest.NewUnstartedServer(scribetest.WithWebhookScheduleScale(f)); err == nil {
			t.Errorf("scale %g accepted", f)
		}
	}
}

// A receiver that does not answer within the timeout fails the attempt.
func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0), scribetest.WithWebhookTimeout(50*time.Millisecond))
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // answers only when the sender gives up
	})
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	a := e.s.Deliveries()
	if len(a) != 1 || a[0].StatusCode != 0 || a[0].Delivered || a[0].Error != "the receiver did not answer in time (50ms)" {
		t.Errorf("attempts = %+v; want one, failed with %q", a, "the receiver did not answer in time (50ms)")
	}
}

// A receiver that hangs holds neither the API, nor a seeding call, nor the
// deliveries to another receiver, even with many events queued for it.
func TestSlowReceiverBlocksNothingElse(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	slow := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { <-release })
	fast := newReceiver(t, nil)
	e.hook(t, e.plugin.ID, slow.url())
	e.hook(t, e.plugin.ID, fast.url())
	key, err := e.s.CreateSecretKey(e.plugin.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	const transcripts = 20 // more events than senders: the slow one must not take them all
	for i := range transcripts {
		// Each seeding call returns while the slow receiver hangs.
		if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Headline: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the fast receiver gets every event while the slow one hangs", func() bool {
		return len(fast.got()) == transcripts+1 && len(slow.got()) > 0
	}, attemptsSeen(e.s), func() string {
		return fmt.Sprintf("fast got %d:\n%sslow got %d:\n%s", len(fast.got()), gotLines(fast.got()), len(slow.got()), gotLines(slow.got()))
	})
	client, err := e.s.InstallationClient(key.Key, inst.UUID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := client.GetMe(ctx); err != nil {
		t.Errorf("an API request while a receiver hangs: %v", err)
	}
	unblock()
	e.settle(t)
	if n := len(slow.got()); n != transcripts+1 {
		t.Errorf("after it recovered the slow receiver got %d events, want %d:\n%sattempts:\n%s", n, transcripts+1, gotLines(slow.got()), attemptLines(e.s.Deliveries()))
	}
}

// deliveryGoroutines returns the stacks of the goroutines running the
// delivery engine's code: senders and timer callbacks.
func deliveryGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "scribetest.(*engine)") {
			out = append(out, g)
		}
	}
	return out
}

// Close stops delivery at once: the attempt in flight is aborted, the
// deliveries waiting for a retry and those emitted afterwards stay listed by
// PendingDeliveries, never attempted again, and no delivery goroutine
// outlives Close. Not parallel: it counts goroutines.
func TestCloseReportsUndeliveredAndLeaksNothing(t *testing.T) {
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Hour))
	hanging := make(chan struct{})
	var once sync.Once
	failing := newReceiver(t, status(http.StatusServiceUnavailable))
	stuck := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(hanging) })
		<-r.Context().Done()
	})
	failHook := e.hook(t, e.plugin.ID, failing.url())
	other := e.newPlugin(t, scribe.PermissionNone)
	stuckHook := e.hook(t, other.ID, stuck.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Install(other.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	<-hanging
	eventually(t, "the failing receiver's first attempt is recorded", func() bool { return len(e.s.Deliveries()) > 0 }, attemptsSeen(e.s))
	if len(deliveryGoroutines()) == 0 {
		t.Fatal("no delivery goroutine runs while an attempt hangs; the count proves nothing")
	}

	e.s.Close()
	// Close returns once every sender and timer callback has called Done;
	// one may not have returned yet, so wait for them to be gone.
	var left []string
	eventually(t, "no delivery goroutine outlives Close", func() bool {
		left = deliveryGoroutines()
		return len(left) == 0
	}, func() string {
		return fmt.Sprintf("%d delivery goroutines:\n%s", len(left), strings.Join(left, "\n\n"))
	})
	if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Headline: "after Close"}); err != nil {
		t.Fatal(err)
	}

	want := []scribetest.PendingDelivery{
		{EventType: webhook.EventInstallationCreated, WebhookID: failHook.ID, URI: failHook.URI, Attempts: 1, LastStatusCode: 503, LastError: "answered 503 Service Unavailable"},
		{EventType: webhook.EventInstallationCreated, WebhookID: stuckHook.ID, URI: stuckHook.URI, Attempts: 1, LastError: "abandoned: the server was closed during the attempt"},
		{EventType: webhook.EventTranscriptCreated, WebhookID: failHook.ID, URI: failHook.URI},
	}
	if diff := cmp.Diff(want, e.s.PendingDeliveries(), cmpopts.IgnoreFields(scribetest.PendingDelivery{}, "EventID")); diff != "" {
		t.Errorf("pending after Close (-want +got):\n%s", diff)
	}
	err := e.s.WaitForDeliveries(context.Background())
	if !errors.Is(err, scribetest.ErrClosed) || !strings.Contains(err.Error(), "3 webhook deliveries") {
		t.Errorf("WaitForDeliveries after Close = %v; want ErrClosed and the count", err)
	}
	if n := len(failing.got()); n != 1 {
		t.Errorf("the failing receiver got %d attempts; want 1: none after Close", n)
	}
}

// Shutdown waits for pending deliveries, retries included, and returns nil
// when they all got through; on a FakeClock it moves the clock to the
// retries (an hour away here) instead of waiting for them.
func TestShutdownDrainsDeliveries(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Hour))
	rc := newReceiver(t, failFirst(1))
	e.hook(t, e.plugin.ID, rc.url())
	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Uninstall(inst.UUID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := e.s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v; pending %+v", err, e.s.PendingDeliveries())
	}
	delivered := 0
	for _, a := range e.s.Deliveries() {
		if a.Delivered {
			delivered++
		}
	}
	if delivered != 2 || len(e.s.PendingDeliveries()) != 0 {
		t.Errorf("delivered %d of 2 events; pending %+v", delivered, e.s.PendingDeliveries())
	}
}

// systemClock is the system's clock without timers of its own: a server on
// it waits for retries in real time, as on the default clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// When Shutdown's context ends first, Shutdown says how many deliveries are
// left, wrapping the context's error, and PendingDeliveries lists them.
// On the system clock: on a FakeClock Shutdown would move to the retry.
func TestShutdownReportsUndelivered(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Hour), scribetest.WithClock(systemClock{}))
	rc := newReceiver(t, status(http.StatusServiceUnavailable))
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := e.s.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 webhook delivery undelivered") {
		t.Errorf("Shutdown = %v; want DeadlineExceeded and the count", err)
	}
	if p := e.s.PendingDeliveries(); len(p) != 1 || p[0].EventType != webhook.EventInstallationCreated {
		t.Errorf("pending = %+v; want the installation.created", p)
	}
}

// The delivery options refuse values that make no sense, saying why.
func TestWebhookOptionsRefuseBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  scribetest.Option
		want string
	}{
		{"empty schedule", scribetest.WithWebhookSchedule(), "at least one delay"},
		{"negative delay", scribetest.WithWebhookSchedule(0, -time.Second), "delay 1 is -1s"},
		{"zero scale", scribetest.WithWebhookScheduleScale(0), "positive finite"},
		{"NaN scale", scribetest.WithWebhookScheduleScale(math.NaN()), "positive finite"},
		{"zero workers", scribetest.WithWebhookWorkers(0), "at least 1"},
		{"zero timeout", scribetest.WithWebhookTimeout(0), "must be positive"},
		{"nil transport", scribetest.WithWebhookTransport(nil), "transport is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := scribetest.NewUnstartedServer(tt.opt)
			if err == nil {
				s.Close()
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

// A receiver built with the SDK's webhook.NewHandler gets the server's
// events, and the server records each attempt.
func ExampleServer_Deliveries() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync"})
	user, _ := s.CreateUser(scribe.User{FirstName: "Grace"})

	receiver := httptest.NewUnstartedServer(nil)
	defer receiver.Close()
	hook, err := s.CreateWebhook(plugin.ID, "http://"+receiver.Listener.Addr().String()+"/hook")
	if err != nil {
		log.Fatal(err)
	}
	v, _ := webhook.NewVerifier(hook.SigningSecret) // already an auth.WebhookSecret
	receiver.Config.Handler, err = webhook.NewHandler(v, func(_ context.Context, e *webhook.Event) error {
		in, err := e.Installation()
		if err != nil {
			return err
		}
		fmt.Println("received", e.Type, "for user", in.UserID)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	receiver.Start()

	if _, err := s.Install(plugin.ID, user.ID); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	for _, a := range s.Deliveries() {
		fmt.Printf("attempt %d of %s: %d, delivered %v\n", a.Attempt, a.EventType, a.StatusCode, a.Delivered)
	}
	// Output:
	// received installation.created for user 2
	// attempt 1 of installation.created: 200, delivered true
}

// BenchmarkEmit measures what webhook delivery costs a seeding call:
// CreateTranscript with no webhook (the baseline), and with webhooks whose
// first attempt is an hour away, so the event is encoded and queued (a
// timer per webhook) without any network I/O.
func BenchmarkEmit(b *testing.B) {
	for _, hooks := range []int{0, 1, 4} {
		b.Run(fmt.Sprintf("webhooks=%d", hooks), func(b *testing.B) {
			s, err := scribetest.NewServer(scribetest.WithWebhookSchedule(time.Hour),
				scribetest.WithLogger(slog.New(slog.DiscardHandler))) // Close reports the queued deliveries
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
			plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
				Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
			user, _ := s.CreateUser(scribe.User{FirstName: "Grace"})
			if _, err := s.Install(plugin.ID, user.ID); err != nil {
				b.Fatal(err)
			}
			for i := range hooks {
				if _, err := s.CreateWebhook(plugin.ID, fmt.Sprintf("http://127.0.0.1:9/hook/%d", i)); err != nil {
					b.Fatal(err)
				}
			}
			p := scribetest.TranscriptParams{Headline: "Standup", Text: strings.Repeat("A line of text. ", 64), Type: "meeting"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CreateTranscript(user.ID, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fakeTB captures what RequireDelivered reports instead of failing the test.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}

// oneClockEnv is a server on a FakeClock with the default (27-hour)
// schedule, and a receiver built the way a plugin developer builds it:
// webhook.NewHandler with the server's WebhookVerifier, so that the one
// clock given to WithClock drives the server and the verifier both.
type oneClockEnv struct {
	*hookEnv
	hook scribe.Webhook
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string // event ids the function handled
}

func newOneClockEnv(t *testing.T, fn func(n int, e *webhook.Event) error, opts ...scribetest.Option) *oneClockEnv {
	t.Helper()
	e := newHookEnvWith(t, append([]scribetest.Option{scribetest.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	oc := &oneClockEnv{hookEnv: e}
	oc.srv = httptest.NewUnstartedServer(nil)
	t.Cleanup(oc.srv.Close)
	oc.hook = e.hook(t, e.plugin.ID, "http://"+oc.srv.Listener.Addr().String()+"/hook")
	v, err := e.s.WebhookVerifier(oc.hook)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	oc.srv.Config.Handler = mustHandler(t, v, func(_ context.Context, ev *webhook.Event) error {
		oc.mu.Lock()
		calls++
		n := calls
		oc.mu.Unlock()
		if err := fn(n, ev); err != nil {
			return err
		}
		oc.mu.Lock()
		oc.seen = append(oc.seen, ev.ID)
		oc.mu.Unlock()
		return nil
	}, webhook.WithLogger(nil), webhook.WithErrorDetails())
	oc.srv.Start()
	return oc
}

// One FakeClock, given once to WithClock, drives the server, its token sources
// and the receiver's Verifier, and moving it fires the retries:
// WaitForDeliveries walks the whole default schedule (eight attempts over
// about 27.6 hours) without a sleep. Every attempt is signed at its own fake
// time, verified by the receiver on the same clock, and the waits between
// attempts follow the schedule within its ±20 % jitter. An installation client
// made before the walk still works after it: its token source refreshed on the
// fake clock.
func TestOneFakeClockWalksTheWholeRetrySchedule(t *testing.T) {
	t.Parallel()
	schedule := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	oc := newOneClockEnv(t, func(n int, e *webhook.Event) error {
		if n < len(schedule) {
			return fmt.Errorf("attempt %d: the index is down", n)
		}
		return nil // the last attempt of the schedule gets through
	})
	key, err := oc.s.CreateSecretKey(oc.plugin.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := oc.s.Install(oc.plugin.ID, oc.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	client, err := oc.s.InstallationClient(key.Key, inst.UUID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := client.GetMe(ctx); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := oc.s.WaitForDeliveries(ctx); err != nil {
		t.Fatalf("WaitForDeliveries: %v; attempts:\n%s", err, attemptLines(oc.s.Deliveries()))
	}
	t.Logf("walked %v of fake time in %v", oc.clock.Now().Sub(t0), time.Since(start))

	attempts := oc.s.RequireDelivered(t)
	if len(attempts) != len(schedule) {
		t.Fatalf("%d attempts, want %d (the whole schedule):\n%s", len(attempts), len(schedule), attemptLines(attempts))
	}
	for i, a := range attempts {
		if i == 0 {
			if !a.Time.Equal(t0) {
				t.Errorf("attempt 1 at %v, want at once (t0)", a.Time)
			}
			continue
		}
		wait := a.Time.Sub(attempts[i-1].Time)
		lo, hi := time.Duration(float64(schedule[i])*0.8), time.Duration(float64(schedule[i])*1.2)+time.Second
		if wait < lo || wait > hi {
			t.Errorf("attempt %d came %v after the one before; want %v ±20%%:\n%s", i+1, wait, schedule[i], attemptLines(attempts))
		}
		if wantFail := i < len(schedule)-1; wantFail != (a.StatusCode == http.StatusInternalServerError) {
			t.Errorf("attempt %d: %v", i+1, a)
		}
	}
	if span := attempts[len(attempts)-1].Time.Sub(t0); span < 22*time.Hour || span > 34*time.Hour {
		t.Errorf("the schedule spanned %v of fake time, want about 27.6 h", span)
	}
	if !strings.Contains(attempts[0].ResponseBody, "attempt 1: the index is down") {
		t.Errorf("attempt 1's answer %q does not carry the function's error", attempts[0].ResponseBody)
	}
	if _, err := client.GetMe(ctx); err != nil {
		t.Errorf("the installation client after 27 fake hours: %v; its token source should follow the same clock", err)
	}
}

// gotLines formats what a receiver got for a failure message, one request
// per line: the webhook-id, the timestamp header and the event.
func gotLines(gs []got) string {
	var b strings.Builder
	for i, g := range gs {
		fmt.Fprintf(&b, "  %d: webhook-id %s, webhook-timestamp %s, event %s %s\n", i+1,
			g.header.Get(webhook.HeaderID), g.header.Get(webhook.HeaderTimestamp), g.event.Type, g.event.ID)
	}
	return b.String()
}

// attemptLines formats attempts for a failure message, one per line.
func attemptLines(as []scribetest.DeliveryAttempt) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "  %v\n", a)
	}
	return b.String()
}

// Advancing a FakeClock by hand fires a retry exactly when it is due: not
// before its time (within the jitter), and at once when the clock passes it.
func TestFakeClockAdvanceFiresDueRetry(t *testing.T) {
	t.Parallel()
	oc := newOneClockEnv(t, func(n int, _ *webhook.Event) error {
		if n == 1 {
			return errors.New("not yet")
		}
		return nil
	}, scribetest.WithWebhookSchedule(0, 10*time.Minute))
	if _, err := oc.s.Install(oc.plugin.ID, oc.user.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first attempt and its retry timer", func() bool {
		p := oc.s.PendingDeliveries()
		return len(p) == 1 && !p[0].NextAttempt.IsZero()
	}, attemptsSeen(oc.s))
	next := oc.s.PendingDeliveries()[0].NextAttempt
	if d := next.Sub(t0); d < 8*time.Minute || d > 12*time.Minute {
		t.Fatalf("next attempt due %v after the first, want 10m ±20%%", d)
	}
	oc.clock.Advance(next.Sub(t0) - time.Second) // a second short: nothing fires
	if n := len(oc.s.Deliveries()); n != 1 || len(oc.clock.PendingTimers()) != 1 {
		t.Fatalf("a second before the retry is due: %d attempts, %d timers; want 1 and 1", n, len(oc.clock.PendingTimers()))
	}
	oc.clock.Advance(time.Second)
	eventually(t, "the retry after the clock reached it", func() bool {
		as := oc.s.Deliveries()
		return len(as) == 2 && as[1].Delivered
	}, attemptsSeen(oc.s))
	if got := oc.s.Deliveries()[1].Time; !got.Equal(next) {
		t.Errorf("the retry was signed at %v, want its due time %v", got, next)
	}
}

// RequireDelivered explains a failed delivery with every attempt: time,
// status, the receiver's answer (where NewHandler puts the function's error)
// and how it ended; a Permanent error ends the delivery at the first attempt,
// and the server honours 422 from any receiver.
func TestRequireDeliveredExplainsFailures(t *testing.T) {
	t.Parallel()
	t.Run("handler bug, retried until given up", func(t *testing.T) {
		t.Parallel()
		oc := newOneClockEnv(t, func(int, *webhook.Event) error {
			return errors.New("no tenant for installation; did you run the migration?")
		})
		if _, err := oc.s.Install(oc.plugin.ID, oc.user.ID); err != nil {
			t.Fatal(err)
		}
		ft := &fakeTB{TB: t}
		oc.s.RequireDelivered(ft)
		if !ft.failed {
			t.Fatal("RequireDelivered did not fail")
		}
		for _, want := range []string{"installation.created", oc.hook.URI, "attempt 1 at 2026-11-21T09:30:00Z", "attempt 8 at",
			"answered 500 Internal Server Error", "no tenant for installation; did you run the migration?", "given up"} {
			if !strings.Contains(ft.msg, want) {
				t.Errorf("the failure does not say %q:\n%s", want, ft.msg)
			}
		}
		if n := strings.Count(ft.msg, "\n    attempt "); n != 8 {
			t.Errorf("the failure lists %d attempts, want 8:\n%s", n, ft.msg)
		}
	})
	t.Run("Permanent is not retried", func(t *testing.T) {
		t.Parallel()
		oc := newOneClockEnv(t, func(int, *webhook.Event) error {
			return webhook.Permanent(errors.New("plugin not configured for this user"))
		})
		if _, err := oc.s.Install(oc.plugin.ID, oc.user.ID); err != nil {
			t.Fatal(err)
		}
		ft := &fakeTB{TB: t}
		attempts := oc.s.RequireDelivered(ft)
		if !ft.failed || !strings.Contains(ft.msg, "failed permanently") || !strings.Contains(ft.msg, "plugin not configured for this user") {
			t.Errorf("failed=%v; want a failure saying it failed permanently and why:\n%s", ft.failed, ft.msg)
		}
		if len(attempts) != 1 || !attempts[0].Permanent || !attempts[0].Final || attempts[0].Delivered || attempts[0].StatusCode != webhook.StatusPermanentFailure {
			t.Errorf("attempts:\n%s want one, 422, Permanent and Final", attemptLines(attempts))
		}
		if p := oc.s.PendingDeliveries(); len(p) != 0 || len(oc.clock.PendingTimers()) != 0 {
			t.Errorf("pending %+v, timers %v; want nothing left to retry", p, oc.clock.PendingTimers())
		}
	})
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		oc := newOneClockEnv(t, func(int, *webhook.Event) error { return nil })
		if _, err := oc.s.Install(oc.plugin.ID, oc.user.ID); err != nil {
			t.Fatal(err)
		}
		attempts := oc.s.RequireDelivered(t)
		if len(attempts) != 1 || !attempts[0].Delivered {
			t.Fatalf("attempts:\n%s", attemptLines(attempts))
		}
		// By id, too: the id the receiver saw.
		oc.mu.Lock()
		id := oc.seen[0]
		oc.mu.Unlock()
		if got := oc.s.RequireDelivered(t, id); len(got) != 1 || got[0].EventID != id {
			t.Errorf("RequireDelivered(t, %q) = %v", id, got)
		}
	})
	t.Run("unknown id, and nothing emitted", func(t *testing.T) {
		t.Parallel()
		oc := newOneClockEnv(t, func(int, *webhook.Event) error { return nil })
		ft := &fakeTB{TB: t}
		oc.s.RequireDelivered(ft)
		if !ft.failed || !strings.Contains(ft.msg, "no webhook event was emitted") {
			t.Errorf("with no event: failed=%v %q", ft.failed, ft.msg)
		}
		ft = &fakeTB{TB: t}
		oc.s.RequireDelivered(ft, "evt_NOPE")
		if !ft.failed || !strings.Contains(ft.msg, "evt_NOPE: no delivery of it was emitted") {
			t.Errorf("unknown id: failed=%v %q", ft.failed, ft.msg)
		}
	})
	t.Run("system clock, retry beyond the bound", func(t *testing.T) {
		t.Parallel()
		e := newHookEnv(t, scribetest.WithWebhookSchedule(0, time.Hour), scribetest.WithClock(systemClock{}),
			scribetest.WithLogger(slog.New(slog.DiscardHandler)))
		rc := newReceiver(t, status(http.StatusServiceUnavailable))
		e.hook(t, e.plugin.ID, rc.url())
		if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
			t.Fatal(err)
		}
		ft := &fakeTB{TB: t}
		e.s.RequireDelivered(ft) // returns as soon as only the hour-away retry is left
		if !ft.failed || !strings.Contains(ft.msg, "503 Service Unavailable") || !strings.Contains(ft.msg, "still pending: next attempt due at") {
			t.Errorf("failed=%v; want the 503 and the pending retry:\n%s", ft.failed, ft.msg)
		}
	})
}

// Any receiver's 422 is final: one attempt, recorded Permanent, never
// retried however far the clock moves.
func TestWebhook422IsNotRetried(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	rc := newReceiver(t, status(http.StatusUnprocessableEntity))
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	e.clock.Advance(48 * time.Hour)
	e.settle(t)
	a := e.s.Deliveries()
	if len(a) != 1 || len(rc.got()) != 1 || !a[0].Permanent || !a[0].Final || a[0].Delivered ||
		!strings.Contains(a[0].Error, "refused the event permanently") {
		t.Errorf("receiver got %d requests; attempts:\n%s want one, Permanent, Final", len(rc.got()), attemptLines(a))
	}
}

// unpadded is a signing secret's key in base64 without its prefix and
// padding (base64.RawStdEncoding), as a receiver's message may quote it.
func unpadded(secret string) string {
	return strings.TrimRight(strings.TrimPrefix(secret, "whsec_"), "=")
}

// Each attempt keeps the start of the receiver's answer: at most
// MaxResponseExcerpt bytes of valid UTF-8, without the webhook's signing
// secret (prefixed, bare or unpadded), credential-shaped text or control
// characters.
func TestDeliveryAttemptKeepsScrubbedAnswer(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithWebhookSchedule(0), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	var secret string
	ready := make(chan struct{})
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		<-ready
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "bad signature for %s (key %s, unpadded %s), key ask_live_4eC39HqLyjWDarjtT1zdp7dc\x1b[2J\nline two %s",
			secret, strings.TrimPrefix(secret, "whsec_"), unpadded(secret), strings.Repeat("é", 2000))
	})
	hook := e.hook(t, e.plugin.ID, rc.url())
	secret = hook.SigningSecret.Reveal()
	close(ready)
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	a := e.s.Deliveries()
	if len(a) != 1 {
		t.Fatalf("attempts:\n%s", attemptLines(a))
	}
	body := a[0].ResponseBody
	for _, leak := range []string{secret, strings.TrimPrefix(secret, "whsec_"), unpadded(secret), "4eC39HqLyjWDarjtT1zdp7dc", "\x1b"} {
		if strings.Contains(body, leak) {
			t.Errorf("ResponseBody %q leaks %q", body, leak)
		}
	}
	if len(body) > scribetest.MaxResponseExcerpt+len("…") || !strings.HasSuffix(body, "…") || !utf8.ValidString(body) {
		t.Errorf("ResponseBody of %d bytes; want at most %d, valid UTF-8, cut with …", len(body), scribetest.MaxResponseExcerpt)
	}
	if !strings.Contains(body, "bad signature for whsec_[REDACTED]") || !strings.Contains(body, "\nline two") {
		t.Errorf("ResponseBody %q: want the answer's text, secrets redacted, newline kept", body)
	}
}

// Trigger emits real events through the same funnel as the seeding calls:
// the events it returns are those delivered, with data the API serves, and
// it refuses, saying why, what could never reach a webhook.
func TestTrigger(t *testing.T) {
	t.Parallel()
	oc := newOneClockEnv(t, func(int, *webhook.Event) error { return nil })
	events, err := oc.s.Trigger(oc.plugin.ID, webhook.EventTranscriptUpdated)
	if err != nil {
		t.Fatal(err)
	}
	var types []webhook.EventType
	var ids []string
	for _, e := range events {
		types = append(types, e.Type)
		ids = append(ids, e.ID)
	}
	want := []webhook.EventType{webhook.EventInstallationCreated, webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("triggered events (-want +got):\n%s", diff)
	}
	oc.s.RequireDelivered(t, ids...)
	oc.mu.Lock()
	seen := slices.Clone(oc.seen)
	oc.mu.Unlock()
	if diff := cmp.Diff(ids, seen, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("events the receiver handled (-triggered +handled):\n%s", diff)
	}
	if n := len(oc.s.Installations(oc.plugin.ID)); n != 1 {
		t.Errorf("the plugin has %d installations after Trigger, want the 1 it made", n)
	}

	none := oc.newPlugin(t, scribe.PermissionNone)
	for _, tc := range []struct {
		plugin int64
		typ    webhook.EventType
		want   string
	}{
		{oc.plugin.ID, "plugin.renamed", `unknown event type "plugin.renamed"`},
		{none.ID, webhook.EventInstallationCreated, "has no webhook"},
		{999, webhook.EventInstallationCreated, "plugin 999"},
	} {
		if _, err := oc.s.Trigger(tc.plugin, tc.typ); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Trigger(%d, %s) = %v, want an error saying %q", tc.plugin, tc.typ, err, tc.want)
		}
	}
	oc.hookEnv.hook(t, none.ID, oc.hook.URI)
	if _, err := oc.s.Trigger(none.ID, webhook.EventTranscriptCreated); err == nil || !strings.Contains(err.Error(), `transcript permission "none"`) {
		t.Errorf("transcript event for a plugin without transcript permission: %v", err)
	}
}

// Trigger returns the events of its own sequence only: an installation of
// the same plugin made meanwhile by another goroutine emits an event of the
// same plugin and type, which is not Trigger's.
func TestTriggerReturnsOnlyItsOwnEvents(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	e.hook(t, e.plugin.ID, "http://127.0.0.1:1/hook") // nothing listens: the events stay pending, which is enough
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			in, err := e.s.Install(e.plugin.ID, e.user.ID)
			if err == nil {
				_, err = e.s.Uninstall(in.UUID)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	for range 200 {
		events, err := e.s.Trigger(e.plugin.ID, webhook.EventInstallationCreated)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Type != webhook.EventInstallationCreated {
			t.Fatalf("Trigger(installation.created) while other installations come and go returned %v; want its own one event", events)
		}
	}
}

// One FakeClock, given once to WithClock, drives the server and the
// receiver's Verifier (WebhookVerifier reads the server's clock), and
// WaitForDeliveries moves it to each retry: half an hour of retries passes
// at once, without a sleep.
func ExampleFakeClock_webhookRetries() {
	start := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	clock := scribetest.NewFakeClock(start)
	s, err := scribetest.NewServer(scribetest.WithClock(clock))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync"})
	user, _ := s.CreateUser(scribe.User{FirstName: "Grace"})

	receiver := httptest.NewUnstartedServer(nil)
	defer receiver.Close()
	hook, _ := s.CreateWebhook(plugin.ID, "http://"+receiver.Listener.Addr().String()+"/hook")
	v, _ := s.WebhookVerifier(hook)
	calls := 0
	receiver.Config.Handler, err = webhook.NewHandler(v, func(context.Context, *webhook.Event) error {
		if calls++; calls < 4 {
			return errors.New("the index is not ready")
		}
		return nil
	}, webhook.WithLogger(nil))
	if err != nil {
		log.Fatal(err)
	}
	receiver.Start()

	if _, err := s.Install(plugin.ID, user.ID); err != nil {
		log.Fatal(err)
	}
	if err := s.WaitForDeliveries(context.Background()); err != nil {
		log.Fatal(err)
	}
	for _, a := range s.Deliveries() {
		fmt.Printf("attempt %d: %d\n", a.Attempt, a.StatusCode)
	}
	fmt.Println("fake time passed, more than 25 minutes:", clock.Now().Sub(start) > 25*time.Minute)
	// Output:
	// attempt 1: 500
	// attempt 2: 500
	// attempt 3: 500
	// attempt 4: 200
	// fake time passed, more than 25 minutes: true
}

// Trigger sends an event of a chosen type to a plugin's webhooks, as
// "stripe trigger" does, with real resources behind it.
func ExampleServer_Trigger() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer receiver.Close()
	if _, err := s.CreateWebhook(plugin.ID, receiver.URL+"/hook"); err != nil {
		log.Fatal(err)
	}
	events, err := s.Trigger(plugin.ID, webhook.EventTranscriptCreated)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range events {
		fmt.Println(e.Type)
	}
	if err := s.WaitForDeliveries(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("attempts:", len(s.Deliveries()))
	// Output:
	// installation.created
	// transcript.created
	// attempts: 2
}
