package scribetest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/internal/receivercheck"
)

// A check on a server that is interrupted (its context canceled, as a
// signal cancels the binary's) removes the scenes it made so far too: the
// users and the plugin's installations are what they were before.
func TestCheckScenesRemovedWhenInterrupted(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t)
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	users, installs := s.Users(), s.Installations(plugin.ID)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var deliveries atomic.Int32
	var made atomic.Int32 // the scenes on the server when the check was interrupted
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if deliveries.Add(1) == 3 {
			made.Store(int32(len(s.Users()) - len(users)))
			cancel()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rc.Close()
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	cfg := receivercheck.Config{URL: rc.URL, Secret: secret, Server: checkScenes{s, plugin.ID}}
	if _, err := receivercheck.Run(ctx, cfg, func(receivercheck.Result) {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want the context's cancellation", err)
	}
	if made.Load() < 2 {
		t.Fatalf("%d scenes were on the server when the check was interrupted; the test needs some", made.Load())
	}
	if diff := cmp.Diff(users, s.Users()); diff != "" {
		t.Errorf("the users after the interrupted check (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(installs, s.Installations(plugin.ID)); diff != "" {
		t.Errorf("the plugin's installations after the interrupted check (-before +after):\n%s", diff)
	}
}
