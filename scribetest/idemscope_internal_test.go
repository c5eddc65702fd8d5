package scribetest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// TestIdempotencyScopeIsTheHolder pins the rule docs/contract.md and
// docs/server.md state (issue 10 item 6): an Idempotency-Key is scoped to
// the credential's holder, not to the token string. Two JWTs minted an hour
// apart for one installation (the client's refresh while its retries go on)
// share one scope, so the retry replays; another installation, a developer
// and another developer each have their own.
func TestIdempotencyScopeIsTheHolder(t *testing.T) {
	t.Parallel()
	clock := NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	s, err := NewUnstartedServer(WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	ada, _ := s.CreateDeveloper(UserParams{FirstName: "Ada"})
	bob, _ := s.CreateDeveloper(UserParams{FirstName: "Bob"})
	plugin, err := s.CreatePlugin(ada.User.ID, PluginParams{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := s.CreateSecretKey(plugin.ID, "")
	grace, _ := s.CreateUser(UserParams{FirstName: "Grace"})
	alan, _ := s.CreateUser(UserParams{FirstName: "Alan"})
	instG, _ := s.Install(plugin.ID, grace.ID)
	instA, _ := s.Install(plugin.ID, alan.ID)

	jwtScope := func(uuid string) string {
		t.Helper()
		tok, err := auth.Mint(key.Key, uuid, clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return scopeOf(t, s, tok)
	}
	devScope := func(k auth.DeveloperKey) string {
		t.Helper()
		return scopeOf(t, s, k.Reveal())
	}

	first := jwtScope(instG.UUID)
	clock.Advance(59 * time.Minute) // the first token is near its end; the client mints another
	second := jwtScope(instG.UUID)
	if first != second {
		t.Errorf("two JWTs of one installation have scopes %q and %q; a refreshed token must replay the key", first, second)
	}
	scopes := map[string]string{
		"installation " + instG.UUID: first,
		"installation " + instA.UUID: jwtScope(instA.UUID),
		"developer Ada":              devScope(ada.Key),
		"developer Bob":              devScope(bob.Key),
	}
	seen := map[string]string{}
	for who, scope := range scopes {
		if other, ok := seen[scope]; ok {
			t.Errorf("%s and %s share the idempotency scope %q", who, other, scope)
		}
		seen[scope] = who
	}
}

// scopeOf authenticates a request bearing token as an operation would and
// returns the idempotency scope of its caller.
func scopeOf(t *testing.T, s *Server, token string) string {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/plugins", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	p, prob := s.authenticateHeader(r, s.clock.Now())
	if prob != nil {
		t.Fatalf("the credential was refused: %v", prob)
	}
	return p.scope()
}
