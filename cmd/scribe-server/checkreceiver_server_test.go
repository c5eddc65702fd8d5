package main

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/webhook"
)

// demoSecretKey is the demo data set's secret key of plugin 100, public.
const demoSecretKey = "ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF"

// check-receiver -server, against the binary's server started with -admin
// and its demo data: a receiver that calls the server back (GET /users/me,
// GET /transcripts/{id}) with plugin 100's secret key keeps every rule and
// exits 0, -require-checked too; the same receiver without dedupe exits 1
// with FAIL lines saying that it processed the event again, and so does one
// that acts on transcript.created alone, which both rules then deliver; one
// that makes no call is "not checked", exit 0, or 1 with -require-checked;
// a server without -admin is an error that says to start it with -admin.
func TestCheckReceiverWithServer(t *testing.T) {
	t.Parallel()
	base := startServer(t, defaultLimits, "-admin")
	key, err := auth.ParseSecretKey(demoSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := auth.NewCache(key)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := scribe.NewInstallationClients(base, cache, scribe.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	callBack := func(ctx context.Context, e *webhook.Event) error {
		client, err := clients.For(e.PluginInstallationUUID)
		if err != nil {
			return webhook.Permanent(err)
		}
		switch e.Type {
		case webhook.EventInstallationCreated:
			_, err = client.GetMe(ctx)
		case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
			var tr *scribe.Transcript
			if tr, err = e.Transcript(); err == nil {
				_, err = client.GetTranscript(ctx, tr.ID)
			}
		}
		return err
	}
	createdOnly := func(ctx context.Context, e *webhook.Event) error {
		if e.Type != webhook.EventTranscriptCreated {
			return nil
		}
		return callBack(ctx, e)
	}
	for _, tc := range []struct {
		name   string
		fn     func(context.Context, *webhook.Event) error
		opts   []webhook.HandlerOption
		args   []string
		code   int
		output []string
	}{
		{name: "dedupes", fn: callBack, code: 0, args: []string{"-require-checked"}, output: []string{"PASS redelivery: ", "PASS concurrent: ", "\n9 passed, 0 failed\n"}},
		{name: "no dedupe", fn: callBack, code: 1, opts: []webhook.HandlerOption{webhook.WithoutDedupe()}, output: []string{
			"FAIL redelivery: ", "the receiver processed the event again: after the redelivery it called the server once more with the event's installation (GET /transcripts/",
			"FAIL concurrent: ", "the receiver processed the event more than once", "\n7 passed, 2 failed\n"}},
		// Acting on transcript.created alone: both rules deliver that type.
		{name: "created only, no dedupe", fn: createdOnly, code: 1, opts: []webhook.HandlerOption{webhook.WithoutDedupe()}, output: []string{
			"FAIL redelivery: a redelivery of a handled event (same webhook-id, new timestamp and signature) is answered 2xx, and not processed again [transcript.created evt_",
			"FAIL concurrent: 10 concurrent deliveries of one event are each answered 2xx, or 409/429 with Retry-After, never 5xx, and the event is processed once [transcript.created evt_",
			"\n7 passed, 2 failed\n"}},
		{name: "no calls", fn: acknowledge, code: 0, output: []string{"NOT CHECKED redelivery: ", "NOT CHECKED concurrent: ", "\n7 passed, 0 failed, 2 not checked\n"}},
		{name: "no calls, required", fn: acknowledge, code: 1, args: []string{"-require-checked"}, output: []string{
			"FAIL redelivery: ", "FAIL concurrent: ", "processing is not checked, and the check requires it (-require-checked): the receiver made no call", "\n7 passed, 2 failed\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			secret, err := keygen.WebhookSecret()
			if err != nil {
				t.Fatal(err)
			}
			recv := httptest.NewServer(mustHandler(t, newVerifier(t, secret), tc.fn, append(tc.opts, webhook.WithLogger(nil))...))
			defer recv.Close()
			args := append(append([]string{"-timeout", "5s", "-server", base, "-plugin", "100"}, tc.args...), recv.URL)
			code, stdout, stderr := runCheck(t, secret.Reveal(), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			for _, want := range tc.output {
				if !strings.Contains(stdout, want) {
					t.Errorf("the output lacks %q:\n%s", want, stdout)
				}
			}
			if posted := postedVerdicts(t, base, recv.URL); !maps.Equal(posted, printedVerdicts(stdout)) || len(posted) != len(checkRules) {
				t.Errorf("the server keeps the verdicts %v; check-receiver printed %v (stderr %s)", posted, printedVerdicts(stdout), stderr)
			}
		})
	}

	t.Run("a server without -admin", func(t *testing.T) {
		t.Parallel()
		plain := startServer(t, defaultLimits)
		secret, err := keygen.WebhookSecret()
		if err != nil {
			t.Fatal(err)
		}
		recv := httptest.NewServer(correctReceiver(t, secret))
		defer recv.Close()
		code, _, stderr := runCheck(t, secret.Reveal(), "-server", plain, recv.URL)
		if code != 1 || !strings.Contains(stderr, "start scribe-server with -admin") {
			t.Errorf("exit %d, stderr %q; want 1 and a word about -admin", code, stderr)
		}
	})
}

// demoDeveloperKey is the demo data set's developer key, public.
const demoDeveloperKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"

// installationsOf lists plugin 100's installations on the server at base,
// as its developer sees them.
func installationsOf(t *testing.T, base string) []scribe.PluginInstallation {
	t.Helper()
	key, err := auth.ParseDeveloperKey(demoDeveloperKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := scribe.NewClient(base, scribe.WithDeveloperKey(key))
	if err != nil {
		t.Fatal(err)
	}
	var all []scribe.PluginInstallation
	for in, err := range client.ListPluginInstallations(t.Context(), 100, nil).All() {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, in)
	}
	return all
}

// check-receiver -server removes the users, installations and transcripts
// it made on the server when it ends, and so does a run interrupted (its
// context canceled, as SIGINT cancels it) as far as it got: plugin 100's
// installations are then what they were before.
func TestCheckReceiverRemovesItsScenes(t *testing.T) {
	t.Parallel()
	base := startServer(t, defaultLimits, "-admin")
	before := installationsOf(t, base)
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	recv := httptest.NewServer(correctReceiver(t, secret))
	defer recv.Close()
	if code, _, stderr := runCheck(t, secret.Reveal(), "-server", base, recv.URL); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(before, installationsOf(t, base)); diff != "" {
		t.Errorf("plugin 100's installations after the check (-before +after):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var made atomic.Int32 // the installations on the server when the check was interrupted
	var n atomic.Int32
	interrupting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 3 {
			made.Store(int32(len(installationsOf(t, base)) - len(before)))
			cancel()
		}
		correctReceiver(t, secret).ServeHTTP(w, r)
	}))
	defer interrupting.Close()
	getenv := func(string) string { return secret.Reveal() }
	err = checkReceiver(ctx, []string{"-server", base, interrupting.URL}, io.Discard, io.Discard, getenv)
	if !errors.Is(err, context.Canceled) || made.Load() < 2 {
		t.Fatalf("the interrupted check = %v with %d scenes made; want the cancellation, after some", err, made.Load())
	}
	if diff := cmp.Diff(before, installationsOf(t, base)); diff != "" {
		t.Errorf("plugin 100's installations after the interrupted check (-before +after):\n%s", diff)
	}
}

// printedVerdicts reads each rule's verdict from check-receiver's output.
func printedVerdicts(stdout string) map[string]string {
	out := map[string]string{}
	for line := range strings.Lines(stdout) {
		for prefix, verdict := range map[string]string{"PASS ": "pass", "FAIL ": "fail", "NOT CHECKED ": "not_checked"} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				rule, _, _ := strings.Cut(rest, ":")
				out[rule] = verdict
			}
		}
	}
	return out
}

// postedVerdicts reads the verdicts of the receiver at recv that
// check-receiver -server posted to the server at base.
func postedVerdicts(t *testing.T, base, recv string) map[string]string {
	t.Helper()
	var list struct {
		Checks []struct {
			Receiver string `json:"receiver"`
			Rule     string `json:"rule"`
			Verdict  string `json:"verdict"`
		} `json:"checks"`
	}
	if err := adminCall(t.Context(), http.DefaultClient, http.MethodGet, base+"/_scribetest/checks", nil, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Checks {
		if c.Receiver == recv {
			out[c.Rule] = c.Verdict
		}
	}
	return out
}
