package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/webhook"
)

// secretEnv names the environment variable check-receiver reads the
// webhook's signing secret from: never a flag, which would leave it in the
// shell's history and in the process list.
const secretEnv = "SCRIBE_WEBHOOK_SECRET"

// checkReceiver is the check-receiver subcommand: it sends the webhook
// receiver at URL signed, forged, stale, repeated and concurrent deliveries,
// prints a PASS, FAIL or NOT CHECKED line per rule and a summary line, and
// fails when the receiver broke a rule (or, with -require-checked, when one
// was not checked). With -server, the events name
// installations and transcripts it makes on that server, and the receiver's
// calls there show which events it processed; it removes them when it
// ends, interrupted or not.
func checkReceiver(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("scribe-server check-receiver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", receivercheck.DefaultTimeout, "how long the receiver has to answer a valid delivery (the service's delivery timeout)")
	server := fs.String("server", "", "`URL` of a scribe-server started with -admin: each event then names an installation and a transcript made there, "+
		"so the receiver's calls back get real answers and show which events it processed")
	plugin := fs.Int64("plugin", 100, "`id` of the plugin, on -server, whose installations the events name (100 is the demo plugin); the receiver calls back with its secret key")
	var types []webhook.EventType
	fs.Func("event", "event `type` the redelivery and concurrent rules deliver, repeatable (by default one the receiver calls -server back for): "+
		receivercheck.KnownEventTypes(), func(s string) error { types = append(types, webhook.EventType(s)); return nil })
	requireChecked := fs.Bool("require-checked", false, "fail every rule whose processing is not checked (as without -server), for a CI gate")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: "+secretEnv+"=whsec_... scribe-server check-receiver [-timeout 15s] [-server URL [-plugin ID]] [-event TYPE]... [-require-checked] URL")
		fmt.Fprintln(fs.Output(), "Checks the webhook receiver at URL against the delivery rules (docs/webhooks.md, \"Check your receiver\").")
		fmt.Fprintln(fs.Output(), "A receiver that calls the service back needs -server: without it, its calls get 401, and double processing is not checked.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 when it keeps every rule (not checked ones too, unless -require-checked), 1 when it breaks one, 2 for a usage error.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case fs.NArg() != 1:
		return usagef("check-receiver takes one argument, the receiver's URL, and got %d; see check-receiver -help", fs.NArg())
	case *timeout <= 0:
		return usagef("-timeout %v: give a positive duration, such as 2s", *timeout)
	case given["plugin"] && *server == "":
		return usagef("-plugin names a plugin on the server of -server; give -server too")
	case *plugin < 1:
		return usagef("-plugin %d: give a plugin id, a positive integer", *plugin)
	}
	raw := getenv(secretEnv)
	if raw == "" {
		return usagef("set %s to the webhook's signing secret (whsec_...)", secretEnv)
	}
	secret, err := auth.ParseWebhookSecret(raw) // its errors never repeat the secret
	if err != nil {
		return usagef("%s: %w", secretEnv, err)
	}
	cfg := receivercheck.Config{URL: fs.Arg(0), Secret: secret, Timeout: *timeout, EventTypes: types, RequireChecked: *requireChecked}
	var scenes *adminScenes
	if *server != "" {
		admin, err := adminURL(*server)
		if err != nil {
			return err
		}
		scenes = &adminScenes{admin: admin, plugin: *plugin, client: &http.Client{Timeout: 30 * time.Second}}
		cfg.Server = scenes
	}
	noted, unposted := false, false
	sum, err := receivercheck.Run(ctx, cfg, func(r receivercheck.Result) {
		if !noted { // once the configuration is known to be usable
			fmt.Fprintln(stdout, "note:", receivercheck.Note(cfg)) // never "": the command has no exact count
			noted = true
		}
		fmt.Fprintln(stdout, r)
		if scenes != nil && !unposted { // for the dashboard's "Receiver checks"; the verdict stands without it
			if err := scenes.report(ctx, cfg.URL, r); err != nil {
				fmt.Fprintf(stderr, "check-receiver: the results are not on the server's dashboard: %v\n", err)
				unposted = true
			}
		}
	})
	switch {
	case errors.Is(err, receivercheck.ErrConfig):
		return &usageError{err: err}
	case err != nil:
		return fmt.Errorf("check-receiver: %w", err)
	}
	fmt.Fprintln(stdout, sum)
	if sum.Failed > 0 {
		return fmt.Errorf("check-receiver: the receiver broke %d of %d rules; see the FAIL lines", sum.Failed, sum.Passed+sum.Failed+sum.NotChecked)
	}
	return nil
}

// adminScenes makes the check's scenes on a running scribe-server through
// its admin API, and reads the receiver's calls from its request log.
type adminScenes struct {
	admin  string
	plugin int64
	client *http.Client
}

func (a *adminScenes) NewScene(ctx context.Context, uninstalled bool) (scribe.PluginInstallation, scribe.Transcript, error) {
	body, _ := apijson.Marshal(map[string]any{"plugin_id": a.plugin, "uninstalled": uninstalled})
	var out struct {
		Installation scribe.PluginInstallation `json:"installation"`
		Transcript   scribe.Transcript         `json:"transcript"`
	}
	err := adminCall(ctx, a.client, http.MethodPost, a.admin+"/scenes", body, &out)
	return out.Installation, out.Transcript, err
}

// RemoveScene removes the scene's user, with their installation and
// transcript, through DELETE /_scribetest/users/{id}.
func (a *adminScenes) RemoveScene(ctx context.Context, userID int64) error {
	return adminCall(ctx, a.client, http.MethodDelete, fmt.Sprintf("%s/users/%d", a.admin, userID), nil, new(struct{}))
}

// report posts r, a result of the check of the receiver at url, to POST
// /_scribetest/checks, for the dashboard.
func (a *adminScenes) report(ctx context.Context, url string, r receivercheck.Result) error {
	verdict := "fail"
	switch {
	case r.Passed:
		verdict = "pass"
	case r.NotChecked:
		verdict = "not_checked"
	}
	body, _ := apijson.Marshal(map[string]any{"receiver": url, "rule": r.Rule, "verdict": verdict, "claim": r.Claim,
		"detail": r.Detail, "events": append([]string{}, r.Events[:min(len(r.Events), 16)]...)}) // the server keeps 16
	return adminCall(ctx, a.client, http.MethodPost, a.admin+"/checks", body, new(struct{}))
}

func (a *adminScenes) Calls(ctx context.Context, uuid string) ([]receivercheck.Call, error) {
	var out struct {
		Requests []struct {
			Method string `json:"method"`
			Path   string `json:"path"`
			Status int    `json:"status"`
			Code   string `json:"code"`
		} `json:"requests"`
	}
	if err := adminCall(ctx, a.client, http.MethodGet, a.admin+"/requests?installation="+url.QueryEscape(uuid), nil, &out); err != nil {
		return nil, err
	}
	calls := make([]receivercheck.Call, len(out.Requests))
	for i, r := range out.Requests {
		calls[i] = receivercheck.Call{Method: r.Method, Path: r.Path, Status: r.Status, Code: r.Code}
	}
	return calls, nil
}
