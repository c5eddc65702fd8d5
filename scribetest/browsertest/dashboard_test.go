package browsertest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// gatedReceiver answers 204 to every delivery, but holds the first
// delivery of transcript.created until open is closed.
type gatedReceiver struct {
	*httptest.Server
	open chan struct{}
	once sync.Once
	held sync.Once
}

func newGatedReceiver(t *testing.T) *gatedReceiver {
	rc := &gatedReceiver{open: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev webhook.Event
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &ev)
		if ev.Type == webhook.EventTranscriptCreated {
			rc.held.Do(func() {
				select {
				case <-rc.open:
				case <-r.Context().Done():
				}
			})
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() { rc.release(); rc.Close() })
	return rc
}

func (rc *gatedReceiver) release() { rc.once.Do(func() { close(rc.open) }) }

// TestDashboard drives the dashboard of a server with the admin API and the
// demo data set, as a developer would: it triggers transcript.created with
// the overview's form, sees the delivery attempt appear without a reload,
// resends the event and sees a second attempt, sees a request with a bad
// token in the request log, and finds no secret in any page.
func TestDashboard(t *testing.T) {
	b := newTab(t)
	s := startServer(t, scribetest.WithWebhookScheduleScale(0.001))
	ui := s.URL() + devserver.DashboardPath
	rc := newGatedReceiver(t)

	b.openOverview(ui)
	b.snapshot("overview, first")

	// Trigger transcript.created through the form; the receiver holds its delivery.
	b.trigger(webhook.EventTranscriptCreated, rc.URL+"/webhooks")
	id := heldEvent(t, s)
	rows := `document.querySelectorAll("#` + id + ` table.attempts > tbody > tr:not(.more)")` // an attempt's row, not its details
	b.do("finding the event", chromedp.WaitVisible(chromedp.ID(id)))
	b.eval("marking the page", `window.sameDocument = true`)
	if n := b.eval("counting attempts", rows+`.length`); n != float64(0) {
		t.Fatalf("the held delivery shows %v attempts before it ended", n)
	}

	// The attempt appears without a reload once the receiver answers.
	rc.release()
	b.poll("waiting for the attempt to appear", rows+`.length === 1 && `+rows+`[0].className === "ok"`)
	if same := b.eval("checking the page was not reloaded", `window.sameDocument === true`); same != true {
		t.Fatal("the page was reloaded; the attempt should appear in place")
	}

	// Resend: a second attempt of the same event.
	b.submit("resending", "#"+id+" form button")
	b.poll("waiting for the second attempt", rows+`.length === 2 && [...`+rows+`].every(tr => tr.className === "ok")`)
	if got := countAttempts(s, id); got != 2 {
		t.Errorf("the server recorded %d attempts of %s, want 2", got, id)
	}
	b.snapshot("events, after Resend")

	// A request with a bad token shows up in the open request log as a 401.
	b.do("opening the request log", chromedp.Navigate(ui+"requests"), chromedp.WaitVisible(chromedp.CSS("#requests")))
	requestID := badRequest(t, s.URL()+"/plugins")
	b.poll("waiting for the 401", `[...document.querySelectorAll("#requests tbody tr")].some(tr =>
		tr.textContent.includes("`+requestID+`") && tr.textContent.includes("401") && tr.textContent.includes("invalid_token"))`)
	b.snapshot("requests, after a bad token")

	stage(t, s)
	b.screenshots(ui)
	for name, html := range b.pages {
		checkNoSecret(t, s, name, html)
	}
}

// heldEvent returns the id of the transcript.created event the receiver holds.
func heldEvent(t *testing.T, s *scribetest.Server) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range s.PendingDeliveries() {
			if p.EventType == webhook.EventTranscriptCreated {
				return p.EventID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no transcript.created delivery is pending")
	return ""
}

func countAttempts(s *scribetest.Server, id string) int {
	n := 0
	for _, a := range s.Deliveries() {
		if a.EventID == id {
			n++
		}
	}
	return n
}

// badRequest sends url a token that is no credential and returns its Request-Id.
func badRequest(t *testing.T, url string) string {
	t.Helper()
	r, _ := http.NewRequest(http.MethodGet, url, nil)
	r.Header.Set("Authorization", "Bearer not-a-key")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET with a bad token = %d, want 401", resp.StatusCode)
	}
	return resp.Header.Get("Request-Id")
}

// stage gives the pages a scene worth showing: a plugin whose receiver
// fails, an uninstalled installation, and requests of each kind.
func stage(t *testing.T, s *scribetest.Server) {
	t.Helper()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"CRM unavailable: connection pool exhausted"}`)
	}))
	t.Cleanup(failing.Close)
	if _, err := s.CreateWebhook(101, failing.URL+"/hooks/contact-card"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trigger(101, webhook.EventInstallationCreated); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uninstall("5e1c7a2b-8d3f-4c6e-b9a0-2f4d6e8a1c3b"); err != nil { // Grace's "Contact card"
		t.Fatal(err)
	}
	for _, token := range []string{demoDeveloperKey, ""} {
		r, _ := http.NewRequest(http.MethodGet, s.URL()+"/plugins/100/installations?limit=10", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	}
	client, err := s.InstallationClient(demoSecretKey(t), "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // a few retries of the failing receiver
}

// The demo set's public credentials (docs/server.md, "The demo set").
const (
	demoDeveloperKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"
	demoKey          = "ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF"
)

// demoSecretKey is the demo set's secret key.
func demoSecretKey(t *testing.T) auth.SecretKey {
	t.Helper()
	k, err := auth.ParseSecretKey(demoKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// credentialShapes matches a credential that is not redacted.
var credentialShapes = regexp.MustCompile(`whsec_[A-Za-z0-9+/=]{8,}|ask_live_[^\[]|dk_live_[^\[]|eyJ[A-Za-z0-9_-]{8,}\.`) // a JWT: its header and a dot (a signature in base64 may hold "eyJ")

// checkNoSecret fails t if html shows a secret of the server, or anything
// shaped like a credential that is not redacted.
func checkNoSecret(t *testing.T, s *scribetest.Server, name, html string) {
	t.Helper()
	secrets := []string{demoDeveloperKey, strings.TrimPrefix(demoKey, "ask_live_")}
	for _, p := range s.Plugins() {
		for _, h := range s.Webhooks(p.ID) {
			bare := strings.TrimPrefix(h.SigningSecret.Reveal(), auth.WebhookSecretPrefix)
			secrets = append(secrets, bare, strings.TrimRight(bare, "="))
		}
	}
	for _, secret := range secrets {
		if strings.Contains(html, secret) {
			t.Errorf("the %s page shows a secret", name)
		}
	}
	if m := credentialShapes.FindString(html); m != "" {
		t.Errorf("the %s page shows a credential: %s", name, m)
	}
	if !strings.Contains(html, "ask_live_[REDACTED]") && strings.HasPrefix(name, "overview") {
		t.Errorf("the %s page does not show the secret key as the SDK prints it", name)
	}
}
