package scribetest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// TestDeleteUser: DeleteUser removes a user with their installations,
// uninstalled ones too, and their transcripts, emitting no event; their
// installation's JWT is refused from then on, and the ids stay taken. A
// developer who owns a plugin, and a user that does not exist, are refused.
func TestDeleteUser(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	rc := newReceiver(t, nil)
	e.hook(t, e.plugin.ID, rc.url())
	other := e.newPlugin(t, scribe.PermissionRead)
	gone, err := e.s.Install(other.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Uninstall(gone.UUID); err != nil {
		t.Fatal(err)
	}
	in, tr := scene(t, e.s, e.plugin.ID)
	e.settle(t)
	attempts := len(e.s.Deliveries())
	key, err := e.s.CreateSecretKey(e.plugin.ID, "backend")
	if err != nil {
		t.Fatal(err)
	}
	client, err := e.s.InstallationClient(key.Key, in.UUID, scribe.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}

	for _, id := range []int64{e.user.ID, in.UserID} {
		if err := e.s.DeleteUser(id); err != nil {
			t.Fatalf("DeleteUser(%d): %v", id, err)
		}
	}
	for _, p := range []int64{e.plugin.ID, other.ID} {
		if ins := e.s.Installations(p); len(ins) != 0 {
			t.Errorf("plugin %d still lists %v", p, ins)
		}
	}
	if ts := e.s.Transcripts(in.UserID); len(ts) != 0 || len(e.s.Users()) != 1 {
		t.Errorf("after DeleteUser: transcripts %v, %d users; want none, and the developer only", ts, len(e.s.Users()))
	}
	if _, err := client.GetTranscript(context.Background(), tr.ID); !errors.Is(err, scribe.ErrUnauthorized) {
		t.Errorf("the deleted installation's JWT: %v, want 401", err)
	}
	e.settle(t)
	if n := len(e.s.Deliveries()); n != attempts {
		t.Errorf("DeleteUser emitted %d events", n-attempts)
	}
	if u, err := e.s.CreateUser(scribe.User{}); err != nil || u.ID == in.UserID {
		t.Errorf("a new user = %v, %v; want a fresh id, not %d", u.ID, err, in.UserID)
	}
	if err := e.s.DeleteUser(e.dev.User.ID); !errors.Is(err, scribetest.ErrConflict) {
		t.Errorf("DeleteUser(the developer) = %v, want ErrConflict", err)
	}
	if err := e.s.DeleteUser(in.UserID); !errors.Is(err, scribetest.ErrNotFound) {
		t.Errorf("DeleteUser twice = %v, want ErrNotFound", err)
	}
}

// scene makes a receiver check's scene of plugin on s, checking what it is.
func scene(t *testing.T, s *scribetest.Server, plugin int64) (scribe.PluginInstallation, scribe.Transcript) {
	t.Helper()
	in, tr, err := s.CreateScene(plugin, false)
	if err != nil || in.PluginID != plugin || in.DeletedOn != nil || tr.User.ID != in.UserID {
		t.Fatalf("CreateScene = %+v, %+v, %v", in, tr, err)
	}
	return in, tr
}

// TestCreateWebhookWithSecret: the webhook signs with the secret given, and
// with a fresh one for the zero Secret.
func TestCreateWebhookWithSecret(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	hook, err := e.s.CreateWebhookWithSecret(e.plugin.ID, "https://example.com/a", secret)
	if err != nil || hook.SigningSecret.Reveal() != secret.Reveal() {
		t.Fatalf("CreateWebhookWithSecret = %v, %v; want the secret given", hook, err)
	}
	fresh, err := e.s.CreateWebhookWithSecret(e.plugin.ID, "https://example.com/b", auth.WebhookSecret{})
	if err != nil || fresh.SigningSecret.IsZero() || fresh.SigningSecret.Reveal() == secret.Reveal() {
		t.Errorf("with the zero Secret = %v, %v; want a fresh secret", fresh, err)
	}
	if _, err := e.s.CreateWebhookWithSecret(404, "https://example.com/c", secret); !errors.Is(err, scribetest.ErrNotFound) {
		t.Errorf("for no plugin = %v, want ErrNotFound", err)
	}
}

// TestCanTrigger: CanTrigger refuses what Trigger refuses but for a
// missing webhook, with the same errors.
func TestCanTrigger(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	blind := e.newPlugin(t, scribe.PermissionNone)
	if err := e.s.CanTrigger(e.plugin.ID, webhook.EventTranscriptCreated); err != nil {
		t.Errorf("a plugin without a webhook: %v, want nil", err)
	}
	for _, tt := range []struct {
		plugin int64
		typ    webhook.EventType
		want   error
	}{{404, webhook.EventInstallationCreated, scribetest.ErrNotFound}, {blind.ID, webhook.EventTranscriptUpdated, scribetest.ErrConflict}} {
		_, triggerErr := e.s.Trigger(tt.plugin, tt.typ)
		if err := e.s.CanTrigger(tt.plugin, tt.typ); !errors.Is(err, tt.want) || err.Error() != triggerErr.Error() {
			t.Errorf("CanTrigger(%d, %s) = %v; want Trigger's error %v", tt.plugin, tt.typ, err, triggerErr)
		}
	}
	if err := e.s.CanTrigger(e.plugin.ID, "plugin.renamed"); err == nil {
		t.Error("an unknown type: no error")
	}
}

// TestStartWith: StartWith serves the handler given, which wraps Handler,
// at the server's URL; nil and a second start are refused.
func TestStartWith(t *testing.T) {
	t.Parallel()
	s, err := scribetest.NewUnstartedServer(scribetest.WithBasePath("/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.StartWith(nil); err == nil {
		t.Fatal("StartWith(nil): no error")
	}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Wrapped", "yes")
		s.Handler().ServeHTTP(w, r)
	})
	if err := s.StartWith(wrapped); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL() + "/plugins")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Wrapped") != "yes" || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /plugins: %d, X-Wrapped %q; want the service's 401 through the wrapper", resp.StatusCode, resp.Header.Get("X-Wrapped"))
	}
	if err := s.StartWith(wrapped); err == nil {
		t.Error("a second StartWith: no error")
	}
}
