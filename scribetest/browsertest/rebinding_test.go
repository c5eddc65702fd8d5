package browsertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// attack is what a rebinding page runs once its name resolves to the
// server: same-origin requests, which the cross-origin check lets through,
// to read the deliveries and the dashboard and to register a webhook, by
// the JSON admin API and by the dashboard's form. It returns the statuses.
const attack = `(async () => {
  const out = {};
  let r = await fetch("/_scribetest/deliveries"); out.deliveries = r.status; out.deliveriesBody = await r.text();
  r = await fetch("/_scribetest/ui/events"); out.events = r.status;
  r = await fetch("/_scribetest/trigger", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({plugin_id: 100, type: "installation.created", uri: "http://127.0.0.1:9/" + location.hostname + "-json"})});
  out.trigger = r.status; out.triggerBody = await r.text();
  r = await fetch("/_scribetest/ui/trigger", {method: "POST",
    body: new URLSearchParams({plugin_id: "100", type: "installation.created", uri: "http://127.0.0.1:9/" + location.hostname + "-form"})});
  out.form = r.status;
  return JSON.stringify(out);
})()`

// TestDNSRebinding is issue 49's attack in Chromium: a page at evil.test,
// whose name Chromium resolves to 127.0.0.1 (--host-resolver-rules, as a
// rebinding DNS server would make it), talks to the dev server as its own
// origin. The Host check refuses every request: it reads no delivery and
// registers no webhook. The same script on the server's own address is
// served, so the test would see the attack succeed.
func TestDNSRebinding(t *testing.T) {
	ctx := browser(t, chromedp.Flag("host-resolver-rules", "MAP evil.test 127.0.0.1"))
	s := startServer(t)
	port := s.URL()[strings.LastIndex(s.URL(), ":"):]
	run := func(origin string) map[string]any {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Navigate(origin+"/_scribetest/healthz")); err != nil {
			t.Fatalf("opening %s: %v", origin, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](attack, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("the script on %s: %v", origin, err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatalf("the script's result %q: %v", got, err)
		}
		return out
	}
	hooks := len(s.Webhooks(100))
	evil := run("http://evil.test" + port)
	for _, k := range []string{"deliveries", "events", "trigger", "form"} {
		if evil[k] != float64(403) {
			t.Errorf("from evil.test, %s answered %v, want 403: %v", k, evil[k], evil)
		}
	}
	if body, _ := evil["deliveriesBody"].(string); strings.Contains(body, "attempts") || !strings.Contains(body, "-allowed-hosts") {
		t.Errorf("from evil.test, the deliveries answered %q, want the refusal naming -allowed-hosts", body)
	}
	if body, _ := evil["triggerBody"].(string); strings.Contains(body, "whsec_") {
		t.Errorf("from evil.test, the trigger answered a signing secret: %q", body)
	}
	if n := len(s.Webhooks(100)); n != hooks {
		t.Errorf("the page registered %d webhooks", n-hooks)
	}

	own := run("http://127.0.0.1" + port)
	for _, k := range []string{"deliveries", "events", "trigger", "form"} {
		if own[k] != float64(200) {
			t.Errorf("from the server's own page, %s answered %v, want 200: %v", k, own[k], own)
		}
	}
	if n := len(s.Webhooks(100)); n != hooks+2 {
		t.Errorf("the server's own page registered %d webhooks, want 2", n-hooks)
	}
}
