package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest/devserver"
)

// triggerPoll is how often trigger reads the server's delivery records.
const triggerPoll = 50 * time.Millisecond

// trigger is the trigger subcommand: it asks a running server's admin API
// to emit an event, then prints the attempts to deliver it.
func trigger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseTrigger(args, stderr)
	if err != nil {
		return err
	}
	body, _ := apijson.Marshal(map[string]any{"plugin_id": t.plugin, "type": t.event, "uri": t.uri})
	var res struct {
		Events []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"events"`
		Hook *struct {
			ID            int64  `json:"id"`
			URI           string `json:"uri"`
			SigningSecret string `json:"signing_secret"`
		} `json:"webhook"`
		Created bool `json:"created"`
	}
	if err := adminCall(ctx, t.client, http.MethodPost, t.admin+"/trigger", body, &res); err != nil {
		return err
	}
	if res.Created {
		// A local test server's secret, printed on purpose: the receiver needs it.
		fmt.Fprintf(stdout, "created webhook %d for %s: a new webhook of plugin %d, with a new signing secret of its own\n"+
			"  signing secret: %s\n"+
			"  (start your receiver with it, e.g. SCRIBE_WEBHOOK_SECRET=..., if it is not running with it yet)\n"+
			"  Each webhook signs with its own secret. Replicas behind one URL share one webhook and its secret: give -uri\n"+
			"  the URL they share. To choose the secret, create the webhook first: POST %s/webhooks with signing_secret.\n",
			res.Hook.ID, res.Hook.URI, t.plugin, res.Hook.SigningSecret, t.admin)
	}
	ids := map[string]bool{}
	for _, e := range res.Events {
		ids[e.ID] = true
		fmt.Fprintf(stdout, "triggered %s %s\n", e.Type, e.ID)
	}
	attempts, err := t.firstAttempts(ctx, ids)
	if err != nil {
		return err
	}
	return t.report(stdout, ids, attempts)
}

// triggerCall is what the trigger subcommand's flags say.
type triggerCall struct {
	admin, event, uri string
	plugin            int64
	wait              time.Duration
	client            *http.Client
}

func parseTrigger(args []string, stderr io.Writer) (*triggerCall, error) {
	fs := flag.NewFlagSet("scribe-server trigger", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "http://127.0.0.1:8080", "`URL` of a scribe-server started with -admin")
	plugin := fs.Int64("plugin", 100, "`id` of the plugin whose webhooks get the event (100 is the demo plugin)")
	uri := fs.String("uri", "", "`URI` of your receiver: adds a webhook of this URI, with a new signing secret, to the plugin if it has none of this URI, and prints the secret")
	wait := fs.Duration("wait", 20*time.Second, "how long to wait for the first attempt of each delivery")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: scribe-server trigger [-server URL] [-plugin ID] [-uri URI] [-wait 20s] EVENT_TYPE")
		fmt.Fprintln(fs.Output(), "Makes a running scribe-server (-admin) emit a signed event to a plugin's webhooks, like stripe trigger.")
		fmt.Fprintln(fs.Output(), "EVENT_TYPE: installation.created, installation.deleted, transcript.created or transcript.updated.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() != 1:
		return nil, usagef("trigger takes one argument, the event type (such as transcript.created); got %d", fs.NArg())
	case *plugin < 1:
		return nil, usagef("-plugin %d: give a plugin id, a positive integer", *plugin)
	case *wait <= 0:
		return nil, usagef("-wait %v: give a positive duration", *wait)
	}
	admin, err := adminURL(*server)
	if err != nil {
		return nil, err
	}
	if *uri != "" {
		if u, err := url.Parse(*uri); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("-uri %q: give your receiver's URL, such as http://127.0.0.1:9000/hook", *uri)
		}
	}
	return &triggerCall{admin: admin,
		event: fs.Arg(0), uri: *uri, plugin: *plugin, wait: *wait, client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// adminURL returns the admin API's root on the server at server, a URL
// such as http://127.0.0.1:8080 (a base path is dropped: the admin API is
// not below it), or a usage error.
func adminURL(server string) (string, error) {
	root, err := url.Parse(server)
	if err != nil || (root.Scheme != "http" && root.Scheme != "https") || root.Host == "" {
		return "", usagef("-server %q: give the server's URL, such as http://127.0.0.1:8080", server)
	}
	return root.Scheme + "://" + root.Host + strings.TrimSuffix(devserver.PathPrefix, "/"), nil
}

// triggerAttempt is a delivery attempt as the admin API lists it.
type triggerAttempt struct {
	EventID      string  `json:"event_id"`
	EventType    string  `json:"event_type"`
	WebhookID    int64   `json:"webhook_id"`
	URI          string  `json:"uri"`
	Attempt      int     `json:"attempt"`
	StatusCode   int     `json:"status_code"`
	ResponseBody string  `json:"response_body"`
	Error        string  `json:"error"`
	DurationMS   float64 `json:"duration_ms"`
	Delivered    bool    `json:"delivered"`
	Permanent    bool    `json:"permanent"`
}

// deliveryState is what the admin API's GET /_scribetest/deliveries answers.
type deliveryState struct {
	Attempts []triggerAttempt `json:"attempts"`
	Pending  []struct {
		EventID   string `json:"event_id"`
		WebhookID int64  `json:"webhook_id"`
		Attempts  int    `json:"attempts"`
	} `json:"pending"`
}

// awaitDeliveries reads the server's delivery records until waiting says
// nothing is awaited any more, and returns them; what waiting returns
// describes what is still awaited ("" when nothing is).
func awaitDeliveries(ctx context.Context, client *http.Client, admin string, wait time.Duration, waiting func(*deliveryState) string) (*deliveryState, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(triggerPoll)
	defer tick.Stop()
	for {
		var state deliveryState
		if err := adminCall(ctx, client, http.MethodGet, admin+"/deliveries", nil, &state); err != nil {
			return nil, err
		}
		what := waiting(&state)
		if what == "" {
			return &state, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, fmt.Errorf("%s within %v; see %s/deliveries", what, wait, admin)
		case <-tick.C:
		}
	}
}

// firstAttempts waits until every delivery of the events ids had its first
// attempt, and returns the attempts made so far.
func (t *triggerCall) firstAttempts(ctx context.Context, ids map[string]bool) ([]triggerAttempt, error) {
	state, err := awaitDeliveries(ctx, t.client, t.admin, t.wait, func(state *deliveryState) string {
		waiting := 0
		for _, p := range state.Pending {
			if ids[p.EventID] && p.Attempts == 0 {
				waiting++
			}
		}
		if waiting == 0 {
			return ""
		}
		return fmt.Sprintf("%d deliveries had no attempt", waiting)
	})
	if err != nil {
		return nil, err
	}
	return state.Attempts, nil
}

// report prints the attempts of the events ids, and fails unless every
// delivery's latest attempt delivered it.
func (t *triggerCall) report(stdout io.Writer, ids map[string]bool, attempts []triggerAttempt) error {
	delivered := map[string]bool{} // event id/webhook id -> the last attempt's outcome
	for _, a := range attempts {
		if !ids[a.EventID] {
			continue
		}
		printAttempt(stdout, a)
		delivered[fmt.Sprint(a.EventID, "/", a.WebhookID)] = a.Delivered
	}
	failed := 0
	for _, ok := range delivered {
		if !ok {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d deliveries were not delivered; the server retries them on its schedule (see %s/deliveries)", failed, len(delivered), t.admin)
	}
	fmt.Fprintf(stdout, "delivered: %d of %d\n", len(delivered), len(delivered))
	return nil
}

// printAttempt prints a delivery attempt and the receiver's answer. What
// a receiver controls (its status line, in the error) is printed as
// redact.Field makes it: credentials redacted, control characters and
// terminal escapes written as \x1b, so nothing reaches a CI log or
// rewrites the terminal, whichever server answered.
func printAttempt(w io.Writer, a triggerAttempt) {
	outcome := fmt.Sprintf("%d", a.StatusCode)
	if a.Error != "" {
		outcome = redact.Field(a.Error, 1024)
	}
	fmt.Fprintf(w, "  %s %s -> webhook %d %s: attempt %d: %s (%.0f ms)\n", redact.Field(a.EventType, 64), redact.Field(a.EventID, 64), a.WebhookID,
		redact.Field(a.URI, 1024), a.Attempt, outcome, a.DurationMS)
	if a.ResponseBody != "" {
		fmt.Fprintf(w, "    answer: %q\n", a.ResponseBody)
	}
}

// adminCall sends one admin API request and decodes its JSON answer into
// out; an error answer becomes an error with the server's message.
func adminCall(ctx context.Context, client *http.Client, method, url string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w (is scribe-server running, with -admin?)", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if apijson.Unmarshal(data, &e, adminAnswers) == nil && e.Error != "" {
			return fmt.Errorf("%s %s: %s", method, url, e.Error)
		}
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%s %s: 404: start scribe-server with -admin to enable the admin API", method, url)
		}
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return apijson.Unmarshal(data, out, adminAnswers)
}

// adminAnswers reads the admin API's answers, skipping members this
// version does not know.
var adminAnswers = apijson.Lenient()
