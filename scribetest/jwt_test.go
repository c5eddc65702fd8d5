package scribetest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
)

// sign builds a JWT with any header and claims, signed by HMAC-SHA256 with
// key: the tampered tokens a verifier must refuse.
func sign(t *testing.T, header, claims map[string]any, key string) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(header) + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// TestInstallationJWTRules checks every rule of docs/contract.md, "Tokens" on GET /users/me.
func TestInstallationJWTRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := e.clock.Now()
	key := e.key.Key.Reveal()
	hs256 := map[string]any{"alg": "HS256", "typ": "JWT"}
	claims := func(iat, exp int64, uuid string) map[string]any {
		return map[string]any{"iat": iat, "exp": exp, "plugin_installation_uuid": uuid}
	}
	mint := func(at time.Time) string {
		tok, err := auth.Mint(e.key.Key, e.inst.UUID, at)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	otherKey, err := keygen.SecretKey()
	if err != nil {
		t.Fatal(err)
	}
	withLib := func(m jwt.SigningMethod, k any) string {
		s, err := jwt.NewWithClaims(m, jwt.MapClaims(claims(now.Unix(), now.Unix()+3600, e.inst.UUID))).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	valid := mint(now)
	parts := strings.Split(valid, ".")
	otherClaims := base64.RawURLEncoding.EncodeToString([]byte(`{"iat":` + itoa(now.Unix()) + `,"exp":` + itoa(now.Unix()+3600) + `,"plugin_installation_uuid":"` + e.instNone.UUID + `"}`))

	tests := []struct {
		name   string
		token  string
		status int
		code   string
	}{
		{"a token minted now", valid, 200, ""},
		{"the uuid in upper case", sign(t, hs256, claims(now.Unix(), now.Unix()+3600, strings.ToUpper(e.inst.UUID)), key), 200, ""},
		{"expired 30 s ago, within the leeway", mint(now.Add(-time.Hour - 30*time.Second)), 200, ""},
		{"expired 2 minutes ago", mint(now.Add(-time.Hour - 2*time.Minute)), 401, scribe.CodeTokenExpired},
		{"issued 30 s ahead, within the leeway", mint(now.Add(30 * time.Second)), 200, ""},
		{"issued 2 minutes ahead", mint(now.Add(2 * time.Minute)), 401, scribe.CodeTokenExpired},
		{"lifetime over an hour", sign(t, hs256, claims(now.Unix(), now.Unix()+3601, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"exp before iat", sign(t, hs256, claims(now.Unix(), now.Unix()-1, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"iat beyond 2^53 with a century-long exp", sign(t, hs256, claims(9223372036854775707-100*365*86400, 9223372036854775707, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"signed with another key", sign(t, hs256, claims(now.Unix(), now.Unix()+3600, e.inst.UUID), otherKey.Reveal()), 401, scribe.CodeInvalidToken},
		{"signed with another plugin's key", sign(t, hs256, claims(now.Unix(), now.Unix()+3600, e.inst.UUID), e.keyNone.Key.Reveal()), 401, scribe.CodeInvalidToken},
		{"claims swapped for another installation's", parts[0] + "." + otherClaims + "." + parts[2], 401, scribe.CodeInvalidToken},
		{"signature cut off", parts[0] + "." + parts[1] + ".", 401, scribe.CodeInvalidToken},
		{"alg none", withLib(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType), 401, scribe.CodeInvalidToken},
		{"alg HS512 with the right key", withLib(jwt.SigningMethodHS512, []byte(key)), 401, scribe.CodeInvalidToken},
		{"alg RS256 over an HMAC signature", sign(t, map[string]any{"alg": "RS256", "typ": "JWT"}, claims(now.Unix(), now.Unix()+3600, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"crit in the header", sign(t, map[string]any{"alg": "HS256", "typ": "JWT", "crit": []string{"x-must-understand"}, "x-must-understand": true}, claims(now.Unix(), now.Unix()+3600, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"b64 false under crit", sign(t, map[string]any{"alg": "HS256", "b64": false, "crit": []string{"b64"}}, claims(now.Unix(), now.Unix()+3600, e.inst.UUID), key), 401, scribe.CodeInvalidToken},
		{"no exp", sign(t, hs256, map[string]any{"iat": now.Unix(), "plugin_installation_uuid": e.inst.UUID}, key), 401, scribe.CodeInvalidToken},
		{"no iat", sign(t, hs256, map[string]any{"exp": now.Unix() + 3600, "plugin_installation_uuid": e.inst.UUID}, key), 401, scribe.CodeInvalidToken},
		{"no installation uuid", sign(t, hs256, map[string]any{"iat": now.Unix(), "exp": now.Unix() + 3600}, key), 401, scribe.CodeInvalidToken},
		{"iat a string", sign(t, hs256, map[string]any{"iat": itoa(now.Unix()), "exp": now.Unix() + 3600, "plugin_installation_uuid": e.inst.UUID}, key), 401, scribe.CodeInvalidToken},
		{"an installation that does not exist", sign(t, hs256, claims(now.Unix(), now.Unix()+3600, "00000000-0000-4000-8000-000000000000"), key), 401, scribe.CodeInvalidToken},
		{"larger than 8 KiB", sign(t, hs256, map[string]any{"iat": now.Unix(), "exp": now.Unix() + 3600, "plugin_installation_uuid": e.inst.UUID, "pad": strings.Repeat("x", 8<<10)}, key), 401, scribe.CodeInvalidToken},
		{"three dots of nothing", "..", 401, scribe.CodeInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.do(t, req{method: "GET", path: "/users/me", token: tt.token})
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.code == "" {
				return
			}
			if p := problemOf(t, resp, body); p.Code != tt.code {
				t.Errorf("code = %q, want %q (%s)", p.Code, tt.code, p.Detail)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer error="invalid_token"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			if strings.Contains(string(body), tt.token) {
				t.Error("the answer repeats the token")
			}
		})
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestJWTFollowsTheServerClock: a token valid now answers token_expired once
// the server's clock reaches its exp plus the leeway (60 s).
func TestJWTFollowsTheServerClock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.userToken(t)
	e.clock.Advance(time.Hour + 59*time.Second)
	if resp, _ := e.do(t, req{method: "GET", path: "/users/me", token: tok}); resp.StatusCode != 200 {
		t.Fatalf("within exp + leeway: status %d, want 200", resp.StatusCode)
	}
	e.clock.Advance(time.Second)
	resp, body := e.do(t, req{method: "GET", path: "/users/me", token: tok})
	if p := problemOf(t, resp, body); resp.StatusCode != 401 || p.Code != scribe.CodeTokenExpired {
		t.Fatalf("at exp + leeway: %d %s, want 401 token_expired", resp.StatusCode, p.Code)
	}
}

// TestKeyRotation: every current key of a plugin signs valid JWTs; a deleted
// key stops working while the others go on.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	second, err := e.s.CreateSecretKey(e.plugin.ID, "next")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{e.jwt(t, e.key, e.inst.UUID), e.jwt(t, second, e.inst.UUID)} {
		if resp, _ := e.do(t, req{method: "GET", path: "/transcripts", token: k}); resp.StatusCode != 200 {
			t.Fatalf("with two keys: status %d, want 200", resp.StatusCode)
		}
	}
	if err := e.s.DeleteSecretKey(e.key.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.do(t, req{method: "GET", path: "/transcripts", token: e.jwt(t, e.key, e.inst.UUID)}); resp.StatusCode != 401 {
		t.Errorf("deleted key: status %d, want 401", resp.StatusCode)
	}
	if resp, _ := e.do(t, req{method: "GET", path: "/transcripts", token: e.jwt(t, second, e.inst.UUID)}); resp.StatusCode != 200 {
		t.Errorf("remaining key: status %d, want 200", resp.StatusCode)
	}
}

// TestUninstalledAndDisabled: an uninstalled installation's JWT is 401
// installation_deleted; a disabled plugin's is 403 plugin_disabled, and
// enabling it again restores access.
func TestUninstalledAndDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.userToken(t)
	if _, err := e.s.DisablePlugin(e.plugin.ID); err != nil {
		t.Fatal(err)
	}
	resp, body := e.do(t, req{method: "GET", path: "/transcripts", token: tok})
	if p := problemOf(t, resp, body); resp.StatusCode != 403 || p.Code != scribe.CodePluginDisabled {
		t.Errorf("disabled: %d %s, want 403 plugin_disabled", resp.StatusCode, p.Code)
	}
	if _, err := e.s.EnablePlugin(e.plugin.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.do(t, req{method: "GET", path: "/transcripts", token: tok}); resp.StatusCode != 200 {
		t.Errorf("enabled again: status %d, want 200", resp.StatusCode)
	}
	if _, err := e.s.Uninstall(e.inst.UUID); err != nil {
		t.Fatal(err)
	}
	resp, body = e.do(t, req{method: "GET", path: "/transcripts", token: tok})
	if p := problemOf(t, resp, body); resp.StatusCode != 401 || p.Code != scribe.CodeInstallationDeleted {
		t.Errorf("uninstalled: %d %s, want 401 installation_deleted", resp.StatusCode, p.Code)
	}
	if resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
	}
}
