package browsertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// TestDashboardShowsWhy drives the events page as a developer finding out
// what a delivery did: a receiver that answers with an X-Backend header and
// calls the service back with the event's installation token
// (GET /users/me for installation.created, GET /transcripts/{id} for
// transcript.created). The test opens the transcript.created event's
// payload (collapsed at first; it stays open while the page refreshes
// itself), the attempt's headers with the answer's X-Backend, sees the
// callback the attempt caused with its request id, and follows the
// installation's link to the request log filtered to it.
func TestDashboardShowsWhy(t *testing.T) {
	b := newTab(t)
	s := startServer(t, scribetest.WithWebhookScheduleScale(0.001))
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev webhook.Event
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &ev) == nil && ev.PluginInstallationUUID != "" {
			if client, err := s.InstallationClient(demoSecretKey(t), ev.PluginInstallationUUID); err == nil {
				if tr, err := ev.Transcript(); err == nil && tr != nil {
					_, _ = client.GetTranscript(r.Context(), tr.ID)
				} else {
					_, _ = client.GetMe(r.Context())
				}
			}
		}
		w.Header().Set("X-Backend", "replica-a")
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	ui := s.URL() + devserver.DashboardPath
	other := badRequest(t, s.URL()+"/plugins") // a request of no installation, which the filter leaves out

	b.openOverview(ui)
	b.trigger(webhook.EventTranscriptCreated, rc.URL+"/webhooks")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	events, _ := s.Events(0, 10)
	var ev scribetest.EmittedEvent
	for _, e := range events {
		if e.Type == webhook.EventTranscriptCreated {
			ev = e
		}
	}
	var call scribetest.Request // the callback the transcript.created attempt caused
	for _, r := range s.Requests() {
		if r.Installation == ev.InstallationUUID && strings.Contains(r.Path, "/transcripts/") {
			call = r
		}
	}
	if ev.ID == "" || call.RequestID == "" {
		t.Fatalf("the trigger emitted no transcript.created (%q), or its receiver did not call back (%q)", ev.ID, call.RequestID)
	}
	card := `document.getElementById("` + ev.ID + `")`
	b.poll("waiting for the delivered attempt", card+` && `+card+`.querySelector("table.attempts > tbody > tr.ok") !== null`)

	// The payload: collapsed, then opened, pretty-printed.
	payload := card + `.querySelector("details.payload")`
	if open := b.eval("reading the payload's state", payload+`.open`); open != false {
		t.Fatalf("the payload is open before a click (%v); it should be collapsed", open)
	}
	b.do("opening the payload", chromedp.Click(chromedp.CSS("#"+ev.ID+" details.payload summary")))
	text, _ := b.eval("reading the payload", payload+`.querySelector("pre").innerText`).(string)
	for _, want := range []string{`"type": "transcript.created"`, `"id": "` + ev.ID + `"`, "\n  \"data\": {"} {
		if !strings.Contains(text, want) {
			t.Errorf("the payload lacks %q:\n%s", want, text)
		}
	}

	// The attempt's headers: the signature sent, the answer's X-Backend.
	b.do("opening the attempt's headers", chromedp.Click(chromedp.CSS("#"+ev.ID+" details.headers summary")))
	headers, _ := b.eval("reading the headers", card+`.querySelector("details.headers").innerText`).(string)
	for _, want := range []string{"Webhook-Signature\tv1,", "Webhook-Id\t" + ev.ID, "Content-Type\tapplication/json", "X-Backend\treplica-a"} {
		if !strings.Contains(headers, want) {
			t.Errorf("the attempt's headers lack %q:\n%s", want, headers)
		}
	}
	// The call the attempt caused: method, path, status, request id.
	calls, _ := b.eval("reading the calls", card+`.querySelector("table.calls").innerText`).(string)
	for _, want := range []string{"GET\t" + call.Path, strconv.Itoa(call.Status), call.RequestID} {
		if !strings.Contains(calls, want) {
			t.Errorf("the attempt's calls lack %q:\n%s", want, calls)
		}
	}

	// What the reader opened stays open while the page refreshes in place.
	if _, err := s.Trigger(100, webhook.EventInstallationCreated); err != nil {
		t.Fatal(err)
	}
	b.poll("waiting for the new event to appear", `document.querySelectorAll("#events article.event").length > `+strconv.Itoa(len(events)))
	if open := b.eval("reading the payload's state after a refresh", payload+`.open && `+card+`.querySelector("details.headers").open`); open != true {
		t.Error("a refresh of the page closed the payload or the headers the reader opened")
	}
	b.snapshot("events, payload open")

	// The installation's events, then its requests: the request log filtered to it.
	b.submit("opening the installation's events", "#"+ev.ID+" header a")
	b.do("finding the filter", chromedp.WaitVisible(chromedp.CSS("p.filtered a")))
	b.submit("opening the installation's requests", "p.filtered a")
	rows := `[...document.querySelectorAll("#requests tbody tr")]`
	b.poll("waiting for the filtered log", rows+`.some(tr => tr.textContent.includes("`+call.RequestID+`"))`)
	if n := b.eval("checking the filter", rows+`.filter(tr => !tr.textContent.includes("`+ev.InstallationUUID+`")).length`); n != float64(0) {
		t.Errorf("the filtered request log shows %v rows of another installation", n)
	}
	if got := b.eval("looking for another request", rows+`.some(tr => tr.textContent.includes("`+other+`"))`); got != false {
		t.Error("the filtered request log shows a request of no installation")
	}
	if u, _ := b.eval("reading the URL", `location.pathname + location.search`).(string); u != devserver.DashboardPath+"requests?installation="+ev.InstallationUUID {
		t.Errorf("the filtered log is at %q", u)
	}
	b.snapshot("requests, filtered")
	for name, html := range b.pages {
		checkNoSecret(t, s, name, html)
	}
}
