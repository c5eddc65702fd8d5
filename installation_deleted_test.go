package scribe_test

import (
	"errors"
	"strings"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// Protects: the error of a call for an uninstalled installation says "stop
// calling" once: the hint is left out when the service's detail says it.
func TestInstallationDeletedSaysStopCallingOnce(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateSecretKey(plugin.ID, "backend")
	if err != nil {
		t.Fatal(err)
	}
	user, err := s.CreateUser(scribe.User{FirstName: "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := s.Install(plugin.ID, user.ID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.InstallationClient(key.Key, inst.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uninstall(inst.UUID); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetMe(t.Context())
	var apiErr *scribe.Error
	if !errors.As(err, &apiErr) || apiErr.Code != scribe.CodeInstallationDeleted {
		t.Fatalf("GetMe = %v, want installation_deleted", err)
	}
	if n := strings.Count(err.Error(), "stop calling"); n != 1 {
		t.Errorf("the message says \"stop calling\" %d times, want once: %q", n, err)
	}

	// A detail that does not say it gets the hint.
	e := &scribe.Error{Method: "GET", Path: "/users/me", StatusCode: 401, Code: scribe.CodeInstallationDeleted, Detail: "uninstalled"}
	if n := strings.Count(e.Error(), "stop calling"); n != 1 {
		t.Errorf("without the service saying it, the message says \"stop calling\" %d times, want once: %q", n, e)
	}
}
