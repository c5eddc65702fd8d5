package scribetest_test

import (
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// TestCachedTokenRechecked: a token the server has verified (and cached) is
// refused as soon as a full verification would refuse it: its key deleted,
// its installation uninstalled, its plugin disabled, expired, or not yet
// valid after the clock moved back. Deleting another key of the plugin
// does not refuse it.
func TestCachedTokenRechecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, e *env)
		status int
		code   string
	}{
		{"nothing changed", func(*testing.T, *env) {}, 200, ""},
		{"its key deleted", func(t *testing.T, e *env) {
			if err := e.s.DeleteSecretKey(e.key.ID); err != nil {
				t.Fatal(err)
			}
		}, 401, scribe.CodeInvalidToken},
		{"another key deleted", func(t *testing.T, e *env) {
			other, err := e.s.CreateSecretKey(e.plugin.ID, "other")
			if err != nil {
				t.Fatal(err)
			}
			if err := e.s.DeleteSecretKey(other.ID); err != nil {
				t.Fatal(err)
			}
		}, 200, ""},
		{"uninstalled", func(t *testing.T, e *env) {
			if _, err := e.s.Uninstall(e.inst.UUID); err != nil {
				t.Fatal(err)
			}
		}, 401, scribe.CodeInstallationDeleted},
		{"plugin disabled", func(t *testing.T, e *env) {
			if _, err := e.s.DisablePlugin(e.plugin.ID); err != nil {
				t.Fatal(err)
			}
		}, 403, scribe.CodePluginDisabled},
		{"within exp + leeway", func(_ *testing.T, e *env) { e.clock.Advance(time.Hour + 59*time.Second) }, 200, ""},
		{"expired", func(_ *testing.T, e *env) { e.clock.Advance(time.Hour + 60*time.Second) }, 401, scribe.CodeTokenExpired},
		{"clock back within the leeway", func(_ *testing.T, e *env) { e.clock.Set(t0.Add(-60 * time.Second)) }, 200, ""},
		{"clock back past iat - leeway", func(_ *testing.T, e *env) { e.clock.Set(t0.Add(-61 * time.Second)) }, 401, scribe.CodeTokenExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			// A second key exists from the start, so "another key deleted"
			// is a rotation, and the token's key is one of several.
			if _, err := e.s.CreateSecretKey(e.plugin.ID, "spare"); err != nil {
				t.Fatal(err)
			}
			tok := e.userToken(t)
			for i := range 2 { // the first verifies in full, the second hits the cache
				if resp, _ := e.do(t, req{method: "GET", path: "/users/me", token: tok}); resp.StatusCode != 200 {
					t.Fatalf("request %d before the change: status %d, want 200", i+1, resp.StatusCode)
				}
			}
			tt.change(t, e)
			for i := range 2 { // after a refusal the token is verified in full again
				resp, body := e.do(t, req{method: "GET", path: "/users/me", token: tok})
				code := ""
				if resp.StatusCode != 200 {
					code = problemOf(t, resp, body).Code
				}
				if resp.StatusCode != tt.status || code != tt.code {
					t.Errorf("request %d after the change: %d %q, want %d %q", i+1, resp.StatusCode, code, tt.status, tt.code)
				}
			}
		})
	}
}
