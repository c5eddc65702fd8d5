package devserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// whyEnv is a dashEnv whose receiver, for each attempt, calls the service
// back with the event's installation (GET /users/me?attempt=N), then
// answers: 500 from replica-b (with a header holding a signing secret) on
// the first attempt, 204 from replica-a after. Its one event is a
// transcript whose headline holds a secret key.
type whyEnv struct {
	*dashEnv
	event string
	key   string // the secret key in the payload
}

func newWhyEnv(t *testing.T) *whyEnv {
	t.Helper()
	var e *dashEnv
	e = newDashEnv(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		ev := e.rc.got()[n-1].event
		jwt, err := auth.Mint(e.fx.SecretKeys[0].Key, ev.PluginInstallationUUID, time.Now())
		if err == nil {
			r, _ := http.NewRequest(http.MethodGet, e.s.URL()+"/users/me?attempt="+string(rune('0'+n)), nil)
			r.Header.Set("Authorization", "Bearer "+jwt)
			if resp, err := http.DefaultClient.Do(r); err == nil {
				resp.Body.Close()
			}
		}
		if n == 1 {
			w.Header().Set("X-Backend", "replica-b")
			w.Header().Set("X-Leak", e.hook.SigningSecret.Reveal())
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("X-Backend", "replica-a")
		w.WriteHeader(http.StatusNoContent)
	})
	key := "ask_live_" + strings.Repeat("k", 40)
	if _, err := e.s.CreateTranscript(8, scribetest.TranscriptParams{Headline: "pasted " + key}); err != nil {
		t.Fatal(err)
	}
	e.wait()
	if got := e.rc.got(); len(got) != 2 {
		t.Fatalf("the receiver got %d attempts, want 2", len(got))
	}
	return &whyEnv{dashEnv: e, event: e.rc.got()[0].event.ID, key: key}
}

// attemptsOf splits an event's card into its attempts' extra rows: the
// headers and the calls under each.
func attemptsOf(card string) []string {
	parts := strings.Split(card, `<tr class="more">`)[1:]
	for i, p := range parts {
		if j := strings.Index(p, `<td class="num">`); j >= 0 {
			parts[i] = p[:j]
		}
	}
	return parts
}

// The dashboard shows why a delivery went as it did: the event's payload
// (pretty-printed, collapsed, redacted), each attempt's headers sent and
// answered (redacted), and the calls the receiver made with the event's
// installation between that attempt and the next; the card is green once
// a later attempt succeeded.
func TestDashboardShowsWhy(t *testing.T) {
	t.Parallel()
	e := newWhyEnv(t)
	card := eventOf(e.page("/_scribetest/ui/events"), e.event)
	if card == "" {
		t.Fatal("the event is not on the events page")
	}
	if strings.Contains(card, `<article class="event failed"`) || !strings.Contains(card, `<span class="badge ok">delivered</span>`) {
		t.Errorf("a delivery whose second attempt succeeded is not shown delivered, in a card that is not red:\n%s", card)
	}
	payload := card[strings.Index(card, `<details class="payload"`):]
	payload = payload[:strings.Index(payload, "</details>")]
	for _, want := range []string{`"type": "transcript.created"`, "\n  &#34;data&#34;", "pasted ask_live_[REDACTED]"} {
		if !strings.Contains(strings.ReplaceAll(payload, "&#34;", `"`), strings.ReplaceAll(want, "&#34;", `"`)) {
			t.Errorf("the payload lacks %q:\n%s", want, payload)
		}
	}
	if strings.Contains(card, e.key) || strings.Contains(payload, "<details class=\"payload\" open") {
		t.Errorf("the payload shows the secret key, or is not collapsed:\n%s", payload)
	}

	attempts := attemptsOf(card)
	if len(attempts) != 2 {
		t.Fatalf("the card has %d attempts with details, want 2:\n%s", len(attempts), card)
	}
	reqs := e.s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the request log has %d requests, want the receiver's 2 calls", len(reqs))
	}
	for i, want := range []struct{ backend, call, notCall string }{
		{"replica-b", "/v1/users/me?attempt=1", "attempt=2"},
		{"replica-a", "/v1/users/me?attempt=2", "attempt=1"},
	} {
		a := attempts[i]
		for _, s := range []string{"<th>Webhook-Signature</th><td><code>v1,", "<th>Webhook-Id</th><td><code>" + e.event,
			"<th>Webhook-Timestamp</th>", "<th>Content-Type</th><td><code>application/json", "<th>X-Backend</th><td><code>" + want.backend,
			"<code>" + want.call + "</code>", "<code>" + reqs[i].RequestID + "</code>", `<span class="badge ok">200</span>`} {
			if !strings.Contains(a, s) {
				t.Errorf("attempt %d lacks %q:\n%s", i+1, s, a)
			}
		}
		if strings.Contains(a, want.notCall) {
			t.Errorf("attempt %d lists the call of the other attempt (%s):\n%s", i+1, want.notCall, a)
		}
	}
	if strings.Contains(card, e.hook.SigningSecret.Reveal()) || !strings.Contains(attempts[0], "<th>X-Leak</th><td><code>whsec_[REDACTED]") {
		t.Errorf("an answer header holding the signing secret is not redacted:\n%s", attempts[0])
	}
}

// The request log filters by installation and by status class, and each
// row of an installation links to its events, which the events page
// filters the same way.
func TestDashboardFiltersByInstallation(t *testing.T) {
	t.Parallel()
	e := newWhyEnv(t)
	other, err := e.s.Install(demoPlugin, 9) // an event of another installation, and its call (attempt=3)
	if err != nil {
		t.Fatal(err)
	}
	e.wait()
	body := e.page("/_scribetest/ui/requests?installation=" + demoInstalled)
	if n := strings.Count(body, "/v1/users/me?attempt="); n != 2 {
		t.Errorf("the log of installation %s shows %d calls, want 2:\n%s", demoInstalled, n, body)
	}
	if !strings.Contains(body, `href="/_scribetest/ui/events?installation=`+demoInstalled+`"`) {
		t.Errorf("the log's rows do not link to their installation's events:\n%s", body)
	}
	if body := e.page("/_scribetest/ui/requests?installation=" + other.UUID); strings.Contains(body, "attempt=1") || !strings.Contains(body, "attempt=3") {
		t.Errorf("the log of another installation shows this one's calls:\n%s", body)
	}
	if body := e.page("/_scribetest/ui/requests?status=5xx&installation=" + demoInstalled); strings.Contains(body, "/v1/users/me") {
		t.Errorf("the 5xx filter shows a 200:\n%s", body)
	}
	events := e.page("/_scribetest/ui/events?installation=" + demoInstalled)
	if strings.Count(events, `<article class="event`) != 1 || eventOf(events, e.event) == "" {
		t.Errorf("the events of installation %s are not its one event:\n%s", demoInstalled, events)
	}
	if events := e.page("/_scribetest/ui/events?installation=" + other.UUID); eventOf(events, e.event) != "" || strings.Count(events, `<article class="event`) != 1 {
		t.Errorf("the events of installation %s are not its own one:\n%s", other.UUID, events)
	}
}

// The admin API gives what the dashboard shows: each attempt's headers sent
// and answered, each event's payload (redacted), and the request log
// filtered by status class.
func TestAdminShowsWhy(t *testing.T) {
	t.Parallel()
	e := newWhyEnv(t)
	var deliveries struct {
		Attempts []struct {
			Headers struct{ Request, Response map[string][]string }
		}
	}
	adminGet(t, e.dashEnv, "/_scribetest/deliveries", &deliveries)
	if len(deliveries.Attempts) != 2 {
		t.Fatalf("%d attempts, want 2", len(deliveries.Attempts))
	}
	first := deliveries.Attempts[0].Headers
	if first.Request["Webhook-Id"][0] != e.event || !strings.HasPrefix(first.Request["Webhook-Signature"][0], "v1,") ||
		first.Response["X-Backend"][0] != "replica-b" || first.Response["X-Leak"][0] != "whsec_[REDACTED]" {
		t.Errorf("the first attempt's headers are %+v", first)
	}
	var events struct {
		Events []struct {
			ID      string
			Payload struct {
				Type string
				Data struct{ Headline string }
			}
		}
	}
	adminGet(t, e.dashEnv, "/_scribetest/events?installation="+demoInstalled, &events)
	if len(events.Events) != 1 || events.Events[0].ID != e.event || events.Events[0].Payload.Type != "transcript.created" ||
		events.Events[0].Payload.Data.Headline != "pasted ask_live_[REDACTED]" {
		t.Errorf("GET events?installation= answered %+v", events)
	}
	var requests struct{ Requests []struct{ Status int } }
	adminGet(t, e.dashEnv, "/_scribetest/requests?status=2xx", &requests)
	if len(requests.Requests) != 2 {
		t.Errorf("status=2xx: %d requests, want the 2 calls", len(requests.Requests))
	}
	adminGet(t, e.dashEnv, "/_scribetest/requests?status=4xx", &requests)
	if len(requests.Requests) != 0 {
		t.Errorf("status=4xx: %d requests, want none", len(requests.Requests))
	}
	if status, body := e.get("/_scribetest/requests?status=3xx"); status != http.StatusBadRequest || !strings.Contains(body, "2xx, 4xx, 5xx") {
		t.Errorf("status=3xx = %d %s, want 400 naming the classes", status, body)
	}
}

// adminGet decodes the admin API's answer to GET path, which must be 200.
func adminGet(t *testing.T, e *dashEnv, path string, out any) {
	t.Helper()
	status, body := e.get(path)
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, status, body)
	}
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// check-receiver's results, POSTed to /_scribetest/checks, are kept
// (redacted) and listed, and the overview's "Receiver checks" shows each
// rule's verdict, newest first; a result that is not one is refused with
// what to send.
func TestReceiverChecks(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	post := func(body string) (int, string) {
		resp, err := http.Post(e.base+"/_scribetest/checks", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	key := "ask_live_" + strings.Repeat("s", 30)
	for _, body := range []string{
		`{"receiver":"http://127.0.0.1:9/a","rule":"valid","verdict":"pass","claim":"answered 2xx","events":["transcript.created evt_A"]}`,
		`{"receiver":"http://127.0.0.1:9/a","rule":"redelivery","verdict":"fail","detail":"processed again with ` + key + `","events":["transcript.created evt_B"]}`,
		`{"receiver":"http://127.0.0.1:9/a","rule":"concurrent","verdict":"not_checked","detail":"no call"}`,
	} {
		if status, answer := post(body); status != http.StatusOK {
			t.Fatalf("POST checks %s = %d %s", body, status, answer)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{`{"rule":"valid","verdict":"ok"}`, "give one of pass, fail, not_checked"},
		{`{"verdict":"pass"}`, "rule: give the rule's name"},
		{`{"rule":"valid","verdict":"pass","events":[` + strings.Repeat(`"e",`, 16) + `"e"]}`, "at most 16"},
		{`{"rule":"valid","verdict":"pass","extra":1}`, "documented members"},
	} {
		if status, answer := post(tt.body); status != http.StatusBadRequest || !strings.Contains(answer, tt.want) {
			t.Errorf("POST checks %s = %d %s; want 400 saying %q", tt.body, status, answer, tt.want)
		}
	}
	if err := e.s.Reset(); err != nil { // Server.Reset leaves the dev server's results; POST /_scribetest/reset forgets them
		t.Fatal(err)
	}
	var list struct {
		Checks []struct{ Rule, Verdict, Detail string }
	}
	adminGet(t, e, "/_scribetest/checks", &list)
	if len(list.Checks) != 3 || list.Checks[1].Rule != "redelivery" || list.Checks[1].Detail != "processed again with ask_live_[REDACTED]" {
		t.Fatalf("GET checks = %+v; want the 3 results, oldest first, redacted", list.Checks)
	}
	body := e.page("/_scribetest/ui/")
	section := body[strings.Index(body, "<h2>Receiver checks</h2>"):]
	i, j, k := strings.Index(section, "concurrent"), strings.Index(section, "redelivery"), strings.Index(section, ">valid</td>")
	if i < 0 || !(i < j && j < k) || strings.Contains(body, key) {
		t.Errorf("the overview's checks are not the results, newest first, redacted:\n%s", section)
	}
	for _, want := range []string{`<span class="badge failed">FAIL</span>`, `<span class="badge ok">PASS</span>`,
		`<span class="badge pending">NOT CHECKED</span>`, "<code>transcript.created evt_B</code>", `<td title="answered 2xx">valid</td>`} {
		if !strings.Contains(section, want) {
			t.Errorf("the overview's checks lack %q:\n%s", want, section)
		}
	}
}

// One installation's events come 20 a page too, and the pages' links keep
// the filter.
func TestDashboardInstallationPages(t *testing.T) {
	t.Parallel()
	e := newDashEnv(t, nil)
	for range 25 {
		if _, err := e.s.CreateTranscript(8, scribetest.TranscriptParams{Headline: "standup"}); err != nil { // Grace's installation
			t.Fatal(err)
		}
	}
	if _, err := e.s.Install(demoPlugin, 9); err != nil { // an event of another installation
		t.Fatal(err)
	}
	e.wait()
	first := e.page("/_scribetest/ui/events?installation=" + demoInstalled)
	second := e.page("/_scribetest/ui/events?installation=" + demoInstalled + "&page=2")
	if n, m := strings.Count(first, `<article class="event`), strings.Count(second, `<article class="event`); n != 20 || m != 5 {
		t.Errorf("the installation's pages show %d and %d events, want 20 and 5", n, m)
	}
	if !strings.Contains(first, `href="/_scribetest/ui/events?installation=`+demoInstalled+`&amp;page=2" rel="next"`) {
		t.Errorf("the first page's link to the next does not keep the filter:\n%s", first[strings.Index(first, `<nav class="pager"`):])
	}
}
