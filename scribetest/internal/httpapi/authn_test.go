package httpapi

import (
	"net/http"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

// world is a store with two developers, a plugin of the first installed by
// two users, and its secret key.
type world struct {
	st          *state.Store
	a           authenticator
	clock       *fakeClock
	key         auth.SecretKey
	keyID       int64
	ada, bob    string // developer keys
	grace, alan string // installation uuids
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clock := &fakeClock{time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)}
	st := state.New(clock.Now, nil)
	w := &world{st: st, a: authenticator{st: st, verifier: jwtverify.New(clock.Now, jwtverify.DefaultLeeway)}, clock: clock, ada: "dk_live_ada", bob: "dk_live_bob"}
	ada, _ := addUser(st, scribe.User{FirstName: "Ada"}, w.ada)
	if _, err := addUser(st, scribe.User{FirstName: "Bob"}, w.bob); err != nil {
		t.Fatal(err)
	}
	p, err := addPlugin(st, scribe.Plugin{Name: "CRM", UserID: ada.ID, Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionNone}})
	if err != nil {
		t.Fatal(err)
	}
	w.key, _ = keygen.SecretKey()
	k, _ := addSecretKey(st, scribe.PluginSecretKey{PluginID: p.ID, Value: w.key})
	w.keyID = k.ID
	for _, name := range []string{"Grace", "Alan"} {
		u, _ := addUser(st, scribe.User{FirstName: name}, "")
		in, err := install(st, scribe.PluginInstallation{PluginID: p.ID, UserID: u.ID})
		if err != nil {
			t.Fatal(err)
		}
		if name == "Grace" {
			w.grace = in.UUID
		} else {
			w.alan = in.UUID
		}
	}
	return w
}

func (w *world) jwt(t *testing.T, uuid string) string {
	t.Helper()
	tok, err := auth.Mint(w.key, uuid, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (w *world) auth(t *testing.T, token string) (*principal, *problem) {
	t.Helper()
	return w.a.authenticate([]string{"Bearer " + token})
}

// TestScopeIsTheHolder pins the rule docs/contract.md states: an
// Idempotency-Key is scoped to the credential's holder, not to the token.
// Two JWTs minted an hour apart for one installation share one scope;
// another installation, and each developer, have their own.
func TestScopeIsTheHolder(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scope := func(tok string) string {
		p, r := w.auth(t, tok)
		if r != nil {
			t.Fatalf("refused: %+v", r)
		}
		return p.Scope
	}
	first := scope(w.jwt(t, w.grace))
	w.clock.t = w.clock.t.Add(59 * time.Minute) // the client mints another
	if second := scope(w.jwt(t, w.grace)); first != second {
		t.Errorf("two JWTs of one installation have scopes %q and %q", first, second)
	}
	seen := map[string]bool{}
	for _, s := range []string{first, scope(w.jwt(t, w.alan)), scope(w.ada), scope(w.bob)} {
		if seen[s] {
			t.Errorf("scope %q is shared", s)
		}
		seen[s] = true
	}
}

// TestRefusals: what each bad credential is answered, and that the wrong
// kind of credential is a 403.
func TestRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, tt := range []struct {
		values []string
		status int
		code   string
	}{
		{nil, http.StatusUnauthorized, scribe.CodeMissingToken},
		{[]string{"Basic x"}, http.StatusUnauthorized, scribe.CodeMissingToken},
		{[]string{"Bearer "}, http.StatusUnauthorized, scribe.CodeMissingToken},
		{[]string{"Bearer a", "Bearer b"}, http.StatusUnauthorized, scribe.CodeInvalidToken},
		{[]string{"Bearer dk_live_nobody"}, http.StatusUnauthorized, scribe.CodeInvalidToken},
		{[]string{"Bearer a.b.c"}, http.StatusUnauthorized, scribe.CodeInvalidToken},
	} {
		_, r := w.a.authenticate(tt.values)
		if r == nil || r.status != tt.status || r.code != tt.code {
			t.Errorf("%q: %+v, want %d %s", tt.values, r, tt.status, tt.code)
		}
	}
	p, _ := w.auth(t, w.ada)
	if r := checkKind(p, installationJWT); r == nil || r.status != http.StatusForbidden {
		t.Errorf("a developer key where a JWT is needed: %+v", r)
	}
}

// The writes of the tests, each in a transaction of its own.

func addUser(st *state.Store, u scribe.User, key string) (scribe.User, error) {
	return state.Write(st, func(tx *state.Tx) (scribe.User, error) { return tx.AddUser(u, key) })
}

func addPlugin(st *state.Store, p scribe.Plugin) (scribe.Plugin, error) {
	return state.Write(st, func(tx *state.Tx) (scribe.Plugin, error) { return tx.AddPlugin(p) })
}

func addSecretKey(st *state.Store, k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	return state.Write(st, func(tx *state.Tx) (scribe.PluginSecretKey, error) { return tx.AddSecretKey(k) })
}

func install(st *state.Store, in scribe.PluginInstallation) (scribe.PluginInstallation, error) {
	return state.Write(st, func(tx *state.Tx) (scribe.PluginInstallation, error) { return tx.Install(in) })
}
