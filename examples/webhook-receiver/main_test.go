package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// syncBuffer is a bytes.Buffer safe for the receiver's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The example receiver, run against the reference server, receives and
// verifies the events the server emits: every delivery gets a 2xx (NewHandler
// answers 2xx only to a verified event the function accepted), and the
// receiver prints each event with its id and its data. A delivery signed with
// another secret is refused with 401 and never reaches the function.
func TestReceiverAgainstReferenceServer(t *testing.T) {
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
	user, err := s.CreateUser(scribe.User{FirstName: "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hook, err := s.CreateWebhook(plugin.ID, "http://"+ln.Addr().String()+"/hook")
	if err != nil {
		t.Fatal(err)
	}

	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, hook.SigningSecret, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	inst, err := s.Install(plugin.ID, user.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Standup", Type: "meeting", Text: "Hello."})
	if err != nil {
		t.Fatal(err)
	}
	attempts := s.RequireDelivered(t) // fails with every attempt and the receiver's answer if not
	out := stdout.String()
	for _, a := range attempts {
		if want := fmt.Sprintf("%s %s installation=%s known=true", a.EventType, a.EventID, inst.UUID); !strings.Contains(out, want) {
			t.Errorf("the receiver did not print %q; its output:\n%s", want, out)
		}
	}
	for _, want := range []string{
		fmt.Sprintf("installation %d of user %d", inst.ID, user.ID),
		fmt.Sprintf("transcript %d (meeting): %q", tr.ID, "Standup"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the receiver did not print %q; its output:\n%s", want, out)
		}
	}

	// A forgery: the right shape, signed with another secret.
	other, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"evt_forged","type":"installation.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,"plugin_installation_uuid":"x","data":{}}`)
	req, err := http.NewRequest(http.MethodPost, hook.URI, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(req.Header, webhook.SignHeaders(other, "evt_forged", time.Now(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(stdout.String(), "evt_forged") {
		t.Errorf("a forged delivery: status %d, printed: %v; want 401 and not handled", resp.StatusCode, strings.Contains(stdout.String(), "evt_forged"))
	}
	if !strings.Contains(stderr.String(), "no matching signature") {
		t.Errorf("the refusal was not logged: %q", stderr.String())
	}
}

// Without a usable secret the receiver does not start, and says so without
// repeating the value.
func TestReceiverNeedsSecret(t *testing.T) {
	for _, tc := range []struct{ secret, want string }{
		{"", "set SCRIBE_WEBHOOK_SECRET"},
		{"ask_live_notawebhooksecret", "SCRIBE_WEBHOOK_SECRET"},
	} {
		err := run(context.Background(), "127.0.0.1:0", tc.secret, &syncBuffer{}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.secret != "" && strings.Contains(err.Error(), tc.secret)) {
			t.Errorf("run with secret %q = %v; want an error saying %q, without the value", tc.secret, err, tc.want)
		}
	}
}
