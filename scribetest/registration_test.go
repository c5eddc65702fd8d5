package scribetest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// The admin API creates a webhook with a secret the caller chooses, so that
// receivers already running with it (replicas behind one URL) verify its
// deliveries; without one the webhook gets a fresh secret. A malformed
// secret is a 400 that does not repeat it.
func TestAdminCreatesWebhookWithGivenSecret(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t, scribetest.WithAdminAPI())
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	code, body := adminDo(t, e.s, http.MethodPost, "/_scribetest/webhooks",
		`{"plugin_id":`+itoa(e.plugin.ID)+`,"uri":"`+rc.url()+`","signing_secret":"`+secret.Reveal()+`"}`)
	if code != http.StatusOK || body["signing_secret"] != secret.Reveal() {
		t.Fatalf("POST /_scribetest/webhooks with signing_secret: %d %v", code, body)
	}
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.s.RequireDelivered(t)
	v, err := webhook.NewVerifier(secret, webhook.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	got := rc.got()
	if len(got) != 1 || v.Verify(got[0].header, got[0].body) != nil {
		t.Errorf("the delivery does not verify with the chosen secret: %d deliveries", len(got))
	}

	code, body = adminDo(t, e.s, http.MethodPost, "/_scribetest/webhooks", `{"plugin_id":`+itoa(e.plugin.ID)+`,"uri":"http://127.0.0.1:1/b"}`)
	if fresh, _ := body["signing_secret"].(string); code != http.StatusOK || !strings.HasPrefix(fresh, "whsec_") || fresh == secret.Reveal() {
		t.Errorf("without signing_secret: %d %v, want a fresh secret", code, body)
	}
	code, body = adminDo(t, e.s, http.MethodPost, "/_scribetest/webhooks", `{"plugin_id":`+itoa(e.plugin.ID)+`,"uri":"http://127.0.0.1:1/c","signing_secret":"whsec_not base64!"}`)
	if msg, _ := body["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, "signing_secret") || strings.Contains(msg, "not base64!") {
		t.Errorf("a malformed signing_secret: %d %v, want 400 naming the member without repeating it", code, body)
	}
}
