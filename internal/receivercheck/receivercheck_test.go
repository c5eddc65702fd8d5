package receivercheck_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// capture is a receiver that verifies deliveries, keeps the first body of
// each event type, and answers 200.
type capture struct {
	v      *webhook.Verifier
	mu     sync.Mutex
	bodies map[webhook.EventType][]byte
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e, err := c.v.VerifyEvent(r.Header, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bodies[e.Type] == nil {
		c.bodies[e.Type] = body
	}
}

// newCapture starts a capture; set its verifier before anything is sent.
func newCapture(t *testing.T) (*capture, string) {
	t.Helper()
	c := &capture{bodies: map[webhook.EventType][]byte{}}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func verifier(t *testing.T, secret auth.WebhookSecret) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// skeleton renders a JSON document with its member names, in order, and
// the kind of every value, but not the values: two bodies with the same
// skeleton have the same shape.
func skeleton(t *testing.T, doc []byte) string {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(doc))
	var b strings.Builder
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatalf("%v in %s", err, doc)
		}
		kind, n := dec.StackIndex(dec.StackDepth())
		switch {
		case tok.Kind() == '"' && kind == '{' && n%2 == 1:
			b.WriteString(" " + tok.String() + ":")
		case tok.Kind() == '"' || tok.Kind() == '0':
			b.WriteString(string(tok.Kind()))
		default:
			b.WriteString(tok.Kind().String())
		}
	}
}

// The check's events have the shape of the reference server's events of
// the same types, member for member and in the same order: a receiver sees
// from the check what it will see from the service.
func TestEventsHaveTheServicesShape(t *testing.T) {
	t.Parallel()
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	fromCheck, url := newCapture(t)
	fromCheck.v = verifier(t, secret)
	if _, err := receivercheck.Run(t.Context(), receivercheck.Config{URL: url, Secret: secret}, func(receivercheck.Result) {}); err != nil {
		t.Fatal(err)
	}

	s := scribetest.NewTestServer(t, scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	user, err := s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	fromServer, serverURL := newCapture(t)
	hook, err := s.CreateWebhook(plugin.ID, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	fromServer.v = verifier(t, hook.SigningSecret) // before the first event
	inst, err := s.Install(plugin.ID, user.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Standup", Text: "Hello.", Type: "meeting",
		Metadata: map[string]any{"language": "en", "participants": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateTranscript(tr.ID, func(tr *scribe.Transcript) { tr.Text += " Bye." }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uninstall(inst.UUID); err != nil {
		t.Fatal(err)
	}
	s.RequireDelivered(t)

	for _, typ := range []webhook.EventType{webhook.EventInstallationCreated, webhook.EventTranscriptCreated,
		webhook.EventTranscriptUpdated, webhook.EventInstallationDeleted} {
		want, got := fromServer.bodies[typ], fromCheck.bodies[typ]
		if want == nil || got == nil {
			t.Fatalf("%s: the server delivered %q, the check %q", typ, want, got)
		}
		if diff := cmp.Diff(skeleton(t, want), skeleton(t, got)); diff != "" {
			t.Errorf("%s: the check's event differs in shape from the server's (-server +check):\n%s\nserver: %s\ncheck:  %s", typ, diff, want, got)
		}
	}
	if fromCheck.bodies[receivercheck.UnknownEventType] == nil {
		t.Errorf("the check sent no %s event", receivercheck.UnknownEventType)
	}
}

// What a receiver answers reaches the report scrubbed: the signing secret
// in any form it may be quoted in, and anything shaped like a credential,
// redacted; control characters blanked; the excerpt cut short.
func TestAnswersAreScrubbed(t *testing.T) {
	t.Parallel()
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	bare := strings.TrimPrefix(secret.Reveal(), auth.WebhookSecretPrefix)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "bad config: "+bare+" ("+secret.Reveal()+")\x1b[31m\r\nkey ask_live_abcdefgh "+strings.Repeat("x", 500))
	}))
	defer srv.Close()
	var results []receivercheck.Result
	sum, err := receivercheck.Run(t.Context(), receivercheck.Config{URL: srv.URL, Secret: secret}, func(r receivercheck.Result) { results = append(results, r) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != len(results) || sum.Failed != 9 {
		t.Errorf("summary %v of %d results; want every rule failed", sum, len(results))
	}
	for _, r := range results {
		line := r.String()
		for _, leak := range []string{secret.Reveal(), bare, strings.TrimRight(bare, "="), "ask_live_abcdefgh"} {
			if strings.Contains(line, leak) {
				t.Errorf("%s: the report holds a secret: %s", r.Rule, line)
			}
		}
		if strings.ContainsFunc(line, unicode.IsControl) {
			t.Errorf("%s: the report holds a control character: %q", r.Rule, line)
		}
		if !strings.Contains(line, `500 Internal Server Error "bad config: [REDACTED] (whsec_[REDACTED])`) || strings.Contains(line, strings.Repeat("x", 101)) {
			t.Errorf("%s: the answer is not quoted scrubbed and cut: %s", r.Rule, line)
		}
	}
}

// A receiver that does not answer breaks every rule, each saying so; it is
// not an error of the check. Where nothing listens at the URL, the lines say
// that, not that the receiver failed while handling the event.
func TestUnreachableReceiver(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/hook"
	ln.Close()
	secret, _ := keygen.WebhookSecret()
	var results []receivercheck.Result
	sum, err := receivercheck.Run(t.Context(), receivercheck.Config{URL: url, Secret: secret}, func(r receivercheck.Result) { results = append(results, r) })
	if err != nil || sum != (receivercheck.Summary{Failed: 9}) {
		t.Fatalf("Run = %v, %v; want 9 failed and no error", sum, err)
	}
	for _, r := range results {
		if !strings.Contains(r.Detail, "got no answer: ") {
			t.Errorf("%s: %s", r.Rule, r)
		}
		// Nothing was reached: no hint about callbacks or keys, which would
		// send the user looking in the wrong place.
		if strings.Contains(r.Detail, "-server") || strings.Contains(r.Detail, "secret key") {
			t.Errorf("%s blames callbacks for an unreachable receiver: %s", r.Rule, r)
		}
	}
	if r := results[0]; !strings.Contains(r.Detail, "Nothing answers at the receiver's URL") {
		t.Errorf("valid does not say that nothing answers at the URL: %s", r)
	}
}

// Run stops when its context ends, with the context's error, and reports
// nothing it could not judge.
func TestRunStopsWithContext(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	secret, _ := keygen.WebhookSecret()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	reported := 0
	_, err := receivercheck.Run(ctx, receivercheck.Config{URL: srv.URL, Secret: secret}, func(receivercheck.Result) { reported++ })
	if !errors.Is(err, context.Canceled) || reported != 0 {
		t.Errorf("Run = %v after %d results; want context.Canceled and none", err, reported)
	}
}

// An unusable Config is an error wrapping ErrConfig that says what to give,
// before anything is sent.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	secret, _ := keygen.WebhookSecret()
	for _, cfg := range []receivercheck.Config{
		{URL: "127.0.0.1:9000/hook", Secret: secret},
		{URL: "http:///hook", Secret: secret},
		{URL: "http://127.0.0.1:9000/hook"},
		{URL: "http://127.0.0.1:9000/hook", Secret: secret, Timeout: -1},
	} {
		_, err := receivercheck.Run(t.Context(), cfg, func(receivercheck.Result) { t.Error("a rule was checked") })
		if !errors.Is(err, receivercheck.ErrConfig) || strings.Contains(err.Error(), secret.Reveal()) {
			t.Errorf("Run(%q) = %v, want an ErrConfig without the secret", cfg.URL, err)
		}
	}
}

// A call's path is the receiver's to choose: reported, its control
// characters are written as escapes and its credentials redacted, so that
// a path cannot rewrite the terminal or leak a key into a CI log.
func TestCallPathsAreSanitized(t *testing.T) {
	t.Parallel()
	call := receivercheck.Call{Method: "GET", Path: "/transcripts/\x1b]0;owned\x07\x1b[2J/ask_live_abcdefghijklmnop", Status: 404, Code: "not_found"}
	got := call.String()
	if want := `GET /transcripts/\x1b]0;owned\a\x1b[2J/ask_live_[REDACTED] 404 not_found`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
