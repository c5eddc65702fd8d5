package devserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// dashEnv is a server with the admin API and the demo data set, whose
// plugin 100 ("CRM sync") has a receiver as its webhook.
type dashEnv struct {
	t    *testing.T
	s    *scribetest.Server
	fx   scribetest.Fixtures
	base string // the server's root URL, without base path
	rc   *receiver
	hook scribe.Webhook
}

const (
	demoPlugin      = 100
	demoInstalled   = "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90" // Grace's installation of plugin 100
	demoUninstalled = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" // Alan's, uninstalled
)

func newDashEnv(t *testing.T, answer func(int, http.ResponseWriter, *http.Request), opts ...scribetest.Option) *dashEnv {
	t.Helper()
	s := newDevServer(t, append([]scribetest.Option{scribetest.WithBasePath("/v1"), fastSchedule,
		scribetest.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	fx, err := s.LoadFixtures(scribetest.DemoFixtures())
	if err != nil {
		t.Fatal(err)
	}
	e := &dashEnv{t: t, s: s, fx: fx, base: strings.TrimSuffix(s.URL(), "/v1"), rc: newReceiver(t, answer)}
	if e.hook, err = s.CreateWebhook(demoPlugin, e.rc.url()); err != nil {
		t.Fatal(err)
	}
	return e
}

// get answers GET path with its status and body.
func (e *dashEnv) get(path string) (int, string) {
	e.t.Helper()
	resp, err := http.Get(e.base + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// page is GET path, which must answer 200 with HTML.
func (e *dashEnv) page(path string) string {
	e.t.Helper()
	status, body := e.get(path)
	if status != http.StatusOK || !strings.HasPrefix(body, "<!doctype html>") {
		e.t.Fatalf("GET %s = %d:\n%s", path, status, body)
	}
	return body
}

// post sends a form as a browser would, with the extra headers, and
// answers the status, the Location and the body, following no redirect.
func (e *dashEnv) post(path string, form url.Values, header ...string) (int, string, string) {
	e.t.Helper()
	r, err := http.NewRequest(http.MethodPost, e.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

// trigger triggers typ for plugin 100 through the form and waits for its
// deliveries.
func (e *dashEnv) trigger(typ webhook.EventType) {
	e.t.Helper()
	status, loc, body := e.post("/_scribetest/ui/trigger", url.Values{"plugin_id": {"100"}, "type": {string(typ)}})
	if status != http.StatusSeeOther || loc != "/_scribetest/ui/events" {
		e.t.Fatalf("trigger %s = %d %q:\n%s", typ, status, loc, body)
	}
	e.wait()
}

func (e *dashEnv) wait() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := e.s.WaitForDeliveries(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// rowOf returns the table row of body that holds key ("" if none).
func rowOf(body, key string) string {
	i := strings.Index(body, key)
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(body[:i], "<tr")
	end := strings.Index(body[i:], "</tr>")
	if start < 0 || end < 0 {
		return ""
	}
	return body[start : i+end]
}

// eventOf returns the article of body that shows event id ("" if none).
func eventOf(body, id string) string {
	i := strings.Index(body, `<article class="event`)
	for i >= 0 {
		end := strings.Index(body[i:], "</article>") + i
		if a := body[i:end]; strings.Contains(a, `id="`+id+`"`) {
			return a
		}
		next := strings.Index(body[end:], `<article class="event`)
		if next < 0 {
			return ""
		}
		i = end + next
	}
	return ""
}

// The dashboard is part of the admin API: without WithAdminAPI its paths
// are the contract's 404, like the rest.
func TestDashboardIsOffWithoutTheAdminAPI(t *testing.T) {
	t.Parallel()
	s := startDev(t, nil, scribetest.WithFixtures(scribetest.DemoFixtures()))
	for _, path := range []string{"/_scribetest/ui/", "/_scribetest/ui/events", "/_scribetest/ui/static/dashboard.css"} {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), scribe.CodeNotFound) {
			t.Errorf("GET %s = %d %s; want the contract's 404", path, resp.StatusCode, body)
		}
	}
	if s.URL() == "" || devserver.DashboardPath != "/_scribetest/ui/" {
		t.Errorf("DashboardPath = %q", devserver.DashboardPath)
	}
}

// The overview lists the plugins, the installations with their user and
// state, the webhooks with their URI, and the counts; every page links to
// the three pages.
func TestDashboardOverview(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, status(http.StatusServiceUnavailable), scribetest.WithWebhookSchedule(0, time.Hour))
	if _, err := e.s.Install(101, 9); err != nil { // Alan installs "Contact card": to no webhook
		t.Fatal(err)
	}
	if _, err := e.s.Install(demoPlugin, 9); err != nil { // and "CRM sync" again: one failed attempt
		t.Fatal(err)
	}
	if err := e.s.InjectFault(scribetest.Fault{Status: http.StatusBadGateway}); err != nil {
		t.Fatal(err)
	}
	_, _ = http.Get(e.s.URL() + "/plugins")
	waitFor(t, func() bool { return len(e.s.Deliveries()) == 1 })

	body := e.page("/_scribetest/ui/")
	for key, want := range map[string][]string{
		`<td>100</td><td>CRM sync</td>`:     {"7 Ada Byron", "user read, transcript read", "published", "ask_live_[REDACTED] (demo)"},
		`<td>101</td><td>Contact card</td>`: {"user read, transcript none", "unpublished"},
		demoInstalled:                       {"100 CRM sync", "8 Grace Hopper", ">installed<", "2026-11-03 10:00:00.000", "/installations/" + demoInstalled + "/uninstall"},
		demoUninstalled:                     {"100 CRM sync", "9 Alan Turing", ">uninstalled<", "2026-11-10 08:00:00.000"},
		e.rc.url():                          {"100 CRM sync", "whsec_[REDACTED]"},
	} {
		row := rowOf(body, key)
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("the row of %s lacks %q:\n%s", key, w, row)
			}
		}
	}
	if strings.Contains(rowOf(body, demoUninstalled), "Uninstall</button>") {
		t.Error("an uninstalled installation has an Uninstall button")
	}
	for _, want := range []string{
		"<strong>2</strong> events", "<strong>1</strong> deliveries<small>0 delivered, 1 pending",
		"<strong>1</strong> failed attempts<small>of 1 attempts", `<li class="bad"><strong>1</strong> requests<small>1 refused or failed`,
		`<option value="100">100 CRM sync</option>`, "<option>transcript.created</option>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	for _, path := range []string{"/_scribetest/ui/", "/_scribetest/ui/events", "/_scribetest/ui/requests"} {
		for _, nav := range []string{`href="/_scribetest/ui/"`, `href="/_scribetest/ui/events"`, `href="/_scribetest/ui/requests"`} {
			if !strings.Contains(e.page(path), nav) {
				t.Errorf("%s has no link %s", path, nav)
			}
		}
	}
	if status, _ := e.get("/_scribetest/ui"); status != http.StatusOK { // redirected
		t.Errorf("GET /_scribetest/ui = %d", status)
	}
}

// The request log shows each request's method, path, status, credential
// kind, request id and latency, newest first, filtered by status class.
func TestDashboardRequestLog(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	devKey := e.fx.Developers[0].Key
	jwt, err := auth.Mint(e.fx.SecretKeys[0].Key, demoInstalled, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"", "not-a-key", devKey.Reveal(), jwt} {
		r, _ := http.NewRequest(http.MethodGet, e.s.URL()+"/users/me", nil)
		if tok != "" {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	reqs := e.s.Requests()
	for i, want := range []scribetest.CredentialKind{scribetest.CredentialNone, scribetest.CredentialDeveloperKey,
		scribetest.CredentialDeveloperKey, scribetest.CredentialInstallationJWT} {
		if reqs[i].Credential != want || reqs[i].Duration <= 0 {
			t.Errorf("request %d: credential %q, duration %v; want %q and a duration", i, reqs[i].Credential, reqs[i].Duration, want)
		}
	}

	body := e.page("/_scribetest/ui/requests")
	for i, want := range [][]string{
		{"401", scribe.CodeMissingToken, "<td>none</td>"},
		{"401", scribe.CodeInvalidToken, "<td>developer key</td>"},
		{"403", scribe.CodeWrongTokenKind, "<td>developer key</td>"},
		{"200", "<td>installation JWT</td>"},
	} {
		row := rowOf(body, reqs[i].RequestID)
		for _, w := range append(want, "<td>GET</td>", "<code>/v1/users/me</code>", " ms</td>") {
			if !strings.Contains(row, w) {
				t.Errorf("the row of request %d lacks %q:\n%s", i, w, row)
			}
		}
	}
	if strings.Index(body, reqs[3].RequestID) > strings.Index(body, reqs[0].RequestID) {
		t.Error("the request log is not newest first")
	}
	for class, want := range map[string][]int{"2xx": {3}, "4xx": {0, 1, 2}, "5xx": nil, "": {0, 1, 2, 3}, "bogus": {0, 1, 2, 3}} {
		body := e.page("/_scribetest/ui/requests?status=" + class)
		for i, r := range reqs {
			if shown := strings.Contains(body, r.RequestID); shown != (strings.Contains(fmt.Sprint(want), strconv.Itoa(i))) {
				t.Errorf("status=%s: request %d (%d) shown %v", class, i, r.Status, shown)
			}
		}
	}
}

// The request log shows one page of 50 requests, with links to the others.
func TestDashboardRequestLogPages(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	for range 120 {
		resp, err := http.Get(e.s.URL() + "/plugins")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	reqs := e.s.Requests()
	for _, tt := range []struct {
		page        string
		first, last int // the requests shown, by index in Requests
		prev, next  bool
	}{
		{"", 119, 70, false, true},
		{"?page=2", 69, 20, true, true},
		{"?status=4xx&page=3", 19, 0, true, false},
	} {
		body := e.page("/_scribetest/ui/requests" + tt.page)
		if n := strings.Count(body, "<tr class="); n != tt.first-tt.last+1 {
			t.Errorf("page %q shows %d requests, want %d", tt.page, n, tt.first-tt.last+1)
		}
		if !strings.Contains(body, reqs[tt.first].RequestID) || !strings.Contains(body, reqs[tt.last].RequestID) {
			t.Errorf("page %q does not show requests %d to %d", tt.page, tt.first, tt.last)
		}
		if strings.Contains(body, `rel="prev"`) != tt.prev || strings.Contains(body, `rel="next"`) != tt.next {
			t.Errorf("page %q: links to the previous and next pages are not %v, %v", tt.page, tt.prev, tt.next)
		}
	}
	if body := e.page("/_scribetest/ui/requests?status=4xx&page=2"); !strings.Contains(body, `href="/_scribetest/ui/requests?page=3&amp;status=4xx"`) {
		t.Error("the next page's link loses the status filter")
	}
}

// The trigger form does what scribe-server trigger does, then shows the
// events page with the event delivered; a trigger the server refuses shows
// why, with its status.
func TestDashboardTrigger(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	e.trigger(webhook.EventTranscriptCreated)
	received := e.rc.got()
	i := slices.IndexFunc(received, func(g got) bool { return g.event.Type == webhook.EventTranscriptCreated })
	if len(received) != 2 || i < 0 {
		t.Fatalf("the receiver got %d events; want installation.created and transcript.created", len(received))
	}
	created := received[i].event
	ev := eventOf(e.page("/_scribetest/ui/events"), created.ID)
	for _, want := range []string{"transcript.created", created.PluginInstallationUUID, e.rc.url(), ">delivered<", "204 No Content", "Resend"} {
		if !strings.Contains(ev, want) {
			t.Errorf("the event lacks %q:\n%s", want, ev)
		}
	}

	other := newReceiver(t, nil)
	for _, tt := range []struct {
		form   url.Values
		status int
		says   string
	}{
		{url.Values{"plugin_id": {"101"}, "type": {"transcript.created"}}, http.StatusConflict, `transcript permission &#34;none&#34;`},
		{url.Values{"plugin_id": {"999"}, "type": {"transcript.created"}}, http.StatusNotFound, "plugin 999"},
		{url.Values{"plugin_id": {"100"}, "type": {"transcript.deleted"}}, http.StatusBadRequest, "unknown event type"},
		{url.Values{"plugin_id": {""}, "type": {"transcript.created"}}, http.StatusBadRequest, "choose a plugin"},
		{url.Values{"plugin_id": {"101"}, "type": {"installation.created"}, "uri": {"ftp://x"}}, http.StatusBadRequest, "uri"},
	} {
		status, _, body := e.post("/_scribetest/ui/trigger", tt.form)
		if status != tt.status || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, tt.says) {
			t.Errorf("trigger %v = %d, want %d saying %q:\n%s", tt.form, status, tt.status, tt.says, body)
		}
	}
	// With a URI, the plugin's webhook of that URI is added first.
	status, _, _ := e.post("/_scribetest/ui/trigger", url.Values{"plugin_id": {"101"}, "type": {"installation.created"}, "uri": {other.url()}})
	e.wait()
	if hooks := e.s.Webhooks(101); status != http.StatusSeeOther || len(hooks) != 1 || len(other.got()) != 1 {
		t.Errorf("trigger with a URI = %d; webhooks %v, received %d", status, hooks, len(other.got()))
	}
}

// The Uninstall button uninstalls, which emits installation.deleted, and
// shows the overview with the installation uninstalled.
func TestDashboardUninstall(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	status, loc, _ := e.post("/_scribetest/ui/installations/"+demoInstalled+"/uninstall", nil)
	if status != http.StatusSeeOther || loc != "/_scribetest/ui/" {
		t.Fatalf("uninstall = %d %q", status, loc)
	}
	e.wait()
	if got := e.rc.got(); len(got) != 1 || got[0].event.Type != webhook.EventInstallationDeleted {
		t.Errorf("the receiver got %v; want installation.deleted", got)
	}
	if row := rowOf(e.page("/_scribetest/ui/"), demoInstalled); !strings.Contains(row, ">uninstalled<") {
		t.Errorf("the installation's row:\n%s", row)
	}
	status, _, body := e.post("/_scribetest/ui/installations/"+demoInstalled+"/uninstall", nil)
	if status != http.StatusConflict || !strings.Contains(body, `role="alert"`) {
		t.Errorf("uninstalling again = %d:\n%s", status, body)
	}
	if status, _, _ := e.post("/_scribetest/ui/installations/00000000-0000-4000-8000-000000000000/uninstall", nil); status != http.StatusNotFound {
		t.Errorf("uninstalling an unknown installation = %d", status)
	}
}

// Resend makes one more attempt of the event's delivery, with the same
// webhook-id, and the events page shows it.
func TestDashboardResend(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	e.trigger(webhook.EventInstallationCreated)
	id := e.rc.got()[0].event.ID
	status, loc, _ := e.post("/_scribetest/ui/events/"+id+"/resend", url.Values{"page": {"1"}})
	if status != http.StatusSeeOther || loc != "/_scribetest/ui/events" {
		t.Fatalf("resend = %d %q", status, loc)
	}
	e.wait()
	got := e.rc.got()
	if len(got) != 2 || got[1].header.Get("webhook-id") != id {
		t.Fatalf("the receiver got %d deliveries; want the event twice", len(got))
	}
	ev := eventOf(e.page("/_scribetest/ui/events"), id)
	if n := strings.Count(ev, `<tr class="ok">`); n != 2 {
		t.Errorf("the event shows %d delivered attempts, want 2:\n%s", n, ev)
	}
	status, _, body := e.post("/_scribetest/ui/events/evt_nothing/resend", nil)
	if status != http.StatusNotFound || !strings.Contains(body, `role="alert"`) {
		t.Errorf("resending an unknown event = %d:\n%s", status, body)
	}
}

// A failed attempt stands out: its row, its event and its delivery's state
// say so, with the receiver's answer (redacted) and the next retry.
func TestDashboardFailedAttempts(t *testing.T) {
	t.Parallel()
	var e *dashEnv
	e = newDashEnv(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "down; secret %s", e.hook.SigningSecret.Reveal())
	}, scribetest.WithWebhookSchedule(0, time.Hour))
	if _, err := e.s.Install(demoPlugin, 9); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(e.s.Deliveries()) == 1 })
	a := e.s.Deliveries()[0]
	ev := eventOf(e.page("/_scribetest/ui/events"), a.EventID)
	for _, want := range []string{`<article class="event failed"`, `<tr class="failed">`, "answered 503 Service Unavailable",
		"down; secret whsec_[REDACTED]", `<span class="badge pending">retrying</span>`, "next retry "} {
		if !strings.Contains(ev, want) {
			t.Errorf("the event lacks %q:\n%s", want, ev)
		}
	}
}

// The events page shows 20 events a page, newest first.
func TestDashboardEventPages(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil, scribetest.WithWebhookWorkers(1)) // delivered in publishing order
	for i := range 45 {
		if _, err := e.s.CreateTranscript(8, scribetest.TranscriptParams{Headline: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	e.wait()
	got := e.rc.got()
	for _, tt := range []struct {
		query       string
		first, last int
	}{{"", 44, 25}, {"?page=2", 24, 5}, {"?page=3", 4, 0}} {
		body := e.page("/_scribetest/ui/events" + tt.query)
		if n := strings.Count(body, `<article class="event`); n != tt.first-tt.last+1 {
			t.Errorf("page %q shows %d events, want %d", tt.query, n, tt.first-tt.last+1)
		}
		if i, j := strings.Index(body, got[tt.first].event.ID), strings.Index(body, got[tt.last].event.ID); i < 0 || j < i {
			t.Errorf("page %q does not show events %d to %d, newest first", tt.query, tt.first, tt.last)
		}
	}
	if body := e.page("/_scribetest/ui/events?page=9"); strings.Contains(body, `<article`) || !strings.Contains(body, `rel="prev"`) {
		t.Error("a page past the last shows events, or no way back")
	}
}

// A browser page of another origin cannot make the admin API act: a form
// it posts is refused with 403 and changes nothing, while the dashboard's
// own forms, and clients that are not browsers, are served.
func TestDashboardRefusesCrossOriginPosts(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	host := strings.TrimPrefix(e.base, "http://")
	uninstall := "/_scribetest/ui/installations/" + demoInstalled + "/uninstall"
	for _, h := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
	} {
		if status, _, body := e.post(uninstall, nil, h...); status != http.StatusForbidden || !strings.Contains(body, "another origin") {
			t.Errorf("%v: %d %s", h, status, body)
		}
	}
	r, _ := http.NewRequest(http.MethodPost, e.base+"/_scribetest/installations", strings.NewReader(`{"plugin_id":100,"user_id":9}`))
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := http.DefaultClient.Do(r); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST to the JSON admin API: %v %v", resp, err)
	}
	if ins := e.s.Installations(demoPlugin); ins[0].DeletedOn != nil || len(ins) != 2 {
		t.Fatalf("refused requests changed the installations: %v", ins)
	}
	for _, h := range [][]string{{"Sec-Fetch-Site", "same-origin", "Origin", e.base}, {"Origin", e.base, "Host", host}, nil} {
		if status, _, _ := e.post("/_scribetest/ui/trigger", url.Values{"plugin_id": {"100"}, "type": {"installation.created"}}, h...); status != http.StatusSeeOther {
			t.Errorf("%v: %d", h, status)
		}
	}
}

// credentialShapes matches a credential that is not redacted.
var credentialShapes = regexp.MustCompile(`whsec_[A-Za-z0-9+/=]{8,}|ask_live_[^\[]|dk_live_[^\[]|eyJ[A-Za-z0-9_-]{8,}\.`) // a JWT: its header and a dot (a signature in base64 may hold "eyJ")

// No page, attribute or file the dashboard serves shows a secret, even where
// a client or a receiver sent one: secrets read as the SDK prints them. And
// every page loads only the server's own files.
func TestDashboardShowsNoSecret(t *testing.T) {
	t.Parallel()
	var e *dashEnv
	e = newDashEnv(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "failed with %s and %s", e.hook.SigningSecret.Reveal(), e.fx.SecretKeys[0].Key.Reveal())
	}, scribetest.WithWebhookSchedule(0, time.Hour))
	jwt, _ := auth.Mint(e.fx.SecretKeys[0].Key, demoInstalled, time.Now())
	secrets := append([]string{jwt, e.fx.SecretKeys[0].Key.Reveal(), e.fx.Developers[0].Key.Reveal()}, webhookSecretForms(e.hook.SigningSecret)...)
	for _, u := range []string{"/transcripts?token=" + jwt, "/plugins?key=" + e.fx.Developers[0].Key.Reveal()} {
		resp, err := http.Get(e.s.URL() + u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if _, err := e.s.Install(demoPlugin, 9); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(e.s.Deliveries()) == 1 })

	refs := regexp.MustCompile(`(?:src|href|action)="([^"]*)"`)
	for _, path := range []string{"/_scribetest/ui/", "/_scribetest/ui/events", "/_scribetest/ui/requests",
		"/_scribetest/ui/requests?status=4xx", "/_scribetest/ui/static/dashboard.js", "/_scribetest/ui/static/dashboard.css"} {
		status, body := e.get(path)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d", path, status)
		}
		for _, secret := range secrets {
			if strings.Contains(body, secret) {
				t.Errorf("%s shows a secret: %s", path, secret)
			}
		}
		if m := credentialShapes.FindString(body); m != "" {
			t.Errorf("%s shows a credential: %s", path, m)
		}
		for _, ref := range refs.FindAllStringSubmatch(body, -1) {
			if !strings.HasPrefix(ref[1], "/") || strings.HasPrefix(ref[1], "//") {
				t.Errorf("%s refers to %q, which is not one of the server's paths", path, ref[1])
			}
		}
	}
	if body := e.page("/_scribetest/ui/events"); !strings.Contains(body, "failed with whsec_[REDACTED] and ask_live_[REDACTED]") {
		t.Error("the receiver's answer is not shown redacted")
	}
}

// webhookSecretForms returns the secret and its key's base64, padded or not.
func webhookSecretForms(s auth.WebhookSecret) []string {
	bare := strings.TrimPrefix(s.Reveal(), auth.WebhookSecretPrefix)
	return []string{s.Reveal(), bare, strings.TrimRight(bare, "=")}
}

// The pages are HTML that confines itself to the server's own files, the
// style sheet and the script are served with their types, and the live
// updates' script refreshes only the parts marked data-live.
func TestDashboardHeaders(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	for path, want := range map[string]string{
		"/_scribetest/ui/":                     "text/html; charset=utf-8",
		"/_scribetest/ui/static/dashboard.css": "text/css; charset=utf-8",
		"/_scribetest/ui/static/dashboard.js":  "text/javascript; charset=utf-8",
		"/_scribetest/ui/static/favicon.svg":   "image/svg+xml",
		"/_scribetest/ui/events?page=x":        "text/html; charset=utf-8",
		"/_scribetest/ui/requests?status=2xx":  "text/html; charset=utf-8",
	} {
		resp, err := http.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); strings.HasPrefix(want, "text/html") && !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
	for _, path := range []string{"/_scribetest/ui/nothing", "/_scribetest/ui/static/nothing.js"} {
		if status, _ := e.get(path); status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, status)
		}
	}
}

// waitFor polls cond until it holds, or fails t after waitLimit.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// transportFunc answers every webhook attempt without a network.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkDashboard renders each page of a server that has recorded n
// events, their n delivery attempts and n requests, for n = 20 (one page of
// each: the baseline) and 10,000 (what the records keep): a page shows one
// page of the records, whatever they hold.
//
//	go test -run '^$' -bench Dashboard -benchmem ./scribetest
func BenchmarkDashboard(b *testing.B) {
	for _, n := range []int{20, 10000} {
		h := recorded(b, n)
		for _, page := range []string{"events", "overview", "requests", "requests?status=4xx"} {
			path := "/_scribetest/ui/" + strings.TrimPrefix(page, "overview")
			b.Run(fmt.Sprintf("%s/%d", page, n), func(b *testing.B) {
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)) // a loopback Host, as a browser on this machine sends
					if rec.Code != http.StatusOK {
						b.Fatalf("GET %s = %d", path, rec.Code)
					}
				}
			})
		}
	}
}

// recorded returns the handler of a server with the demo data set that has
// recorded n events, delivered at once, and n requests, half of them 401.
func recorded(b *testing.B, n int) http.Handler {
	ok := transportFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
	})
	s := newDevServer(b, scribetest.WithWebhookTransport(ok),
		scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	fx, err := s.LoadFixtures(scribetest.DemoFixtures())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateWebhook(demoPlugin, "http://receiver.invalid/hook"); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := s.CreateTranscript(8, scribetest.TranscriptParams{Headline: strconv.Itoa(i)}); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		r := httptest.NewRequest(http.MethodGet, "/plugins", nil)
		if i%2 == 0 {
			r.Header.Set("Authorization", "Bearer "+fx.Developers[0].Key.Reveal())
		}
		s.Handler().ServeHTTP(httptest.NewRecorder(), r)
	}
	h, err := devserver.New(s, devserver.WithAdminAPI())
	if err != nil {
		b.Fatal(err)
	}
	return h
}
