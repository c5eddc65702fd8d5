package jwtverify_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/internal/keygen"
)

// Fixed material: the key's random part is the bytes 0..31.
const (
	goldenKey  = "ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	goldenUUID = "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f"
	goldenIat  = 1700000000
	// goldenToken was computed outside Go (Python's hmac and base64 modules).
	goldenToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
		"eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwicGx1Z2luX2luc3RhbGxhdGlvbl91dWlkIjoiMGI2ZDNjNWUtMWYyYS00YjNjLThkOWUtMGExYjJjM2Q0ZTVmIn0." +
		"Pg0NYbMQbe0ajV7URcC2jkWI6yivy056dYIQo5FnIjk"
)

var goldenTime = time.Unix(goldenIat, 0)

func mustKey(t testing.TB, s string) auth.SecretKey {
	t.Helper()
	k, err := auth.ParseSecretKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newKey(t testing.TB) auth.SecretKey {
	t.Helper()
	k, err := keygen.SecretKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// verifierAt is the service's Verifier on a clock that reads at.
func verifierAt(at time.Time) *jwtverify.Verifier {
	return jwtverify.New(func() time.Time { return at }, jwtverify.DefaultLeeway)
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// sign builds a JWT by hand, independently of package auth and golang-jwt:
// base64url of the header and claims bytes as given, HMAC over them.
func sign(h func() hash.Hash, key, header, claims string) string {
	input := b64(header) + "." + b64(claims)
	mac := hmac.New(h, []byte(key))
	mac.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

const hs256Header = `{"alg":"HS256","typ":"JWT"}`

func claimsJSON(iat, exp int64, uuid string) string {
	return fmt.Sprintf(`{"iat":%d,"exp":%d,"plugin_installation_uuid":%q}`, iat, exp, uuid)
}

// TestVerifyIndependentToken: a token signed by hand (no golang-jwt, no
// package auth) verifies, with the claims it carries.
func TestVerifyIndependentToken(t *testing.T) {
	t.Parallel()
	c, err := verifierAt(goldenTime).Verify(goldenToken, mustKey(t, goldenKey))
	if err != nil {
		t.Fatal(err)
	}
	if c.InstallationUUID != goldenUUID || !c.IssuedAt.Equal(goldenTime) || !c.ExpiresAt.Equal(goldenTime.Add(time.Hour)) {
		t.Errorf("claims = %s iat %v exp %v; want %s, %v and an hour later", c.InstallationUUID, c.IssuedAt, c.ExpiresAt, goldenUUID, goldenTime)
	}
}

// TestMintRangeMatchesVerify: Mint signs exactly the iats Verify accepts.
// At the top of the range the token verifies; one second later Mint refuses
// instead of signing a token no verifier takes.
func TestMintRangeMatchesVerify(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	for _, iat := range []int64{0, jwtverify.MaxClaimSeconds - 3600} {
		tok, err := auth.Mint(key, goldenUUID, time.Unix(iat, 0))
		if err != nil {
			t.Fatalf("Mint at iat %d: %v", iat, err)
		}
		if _, err := verifierAt(time.Unix(iat+1, 0)).Verify(tok, key); err != nil {
			t.Errorf("Verify of a token minted at iat %d: %v", iat, err)
		}
	}
	if _, err := auth.Mint(key, goldenUUID, time.Unix(jwtverify.MaxClaimSeconds-3599, 0)); !errors.Is(err, auth.ErrTimeOutOfRange) {
		t.Errorf("Mint past the range: %v; want ErrTimeOutOfRange", err)
	}
}

// TestVerifyKeepsUUIDCase: RFC 4122 text is case-insensitive on input; a
// token minted for an upper-case uuid carries it as given.
func TestVerifyKeepsUUIDCase(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	upper := strings.ToUpper(goldenUUID)
	tok, err := auth.Mint(key, upper, goldenTime)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := verifierAt(goldenTime).Verify(tok, key); err != nil || c.InstallationUUID != upper {
		t.Errorf("Verify = %+v, %v; want uuid %s", c, err, upper)
	}
}

func rs256Token(t *testing.T, claims string) string {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	input := b64(`{"alg":"RS256","typ":"JWT"}`) + "." + b64(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, priv, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// flipChar replaces the character at i with another base64url character
// whose low bits are equal, so the token stays canonical base64.
func flipChar(s string, i int) string {
	c := s[i]
	r := byte('A')
	if c == 'A' {
		r = 'Q' // same low four bits as 'A'
	}
	return s[:i] + string(r) + s[i+1:]
}

// TestVerifyRefuses is the table of the service's rules: each token breaks
// exactly one of them and must be refused with the matching sentinel; the
// boundary cases just inside a rule must be accepted.
func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	const leeway = 60
	now := int64(goldenIat + 600)
	key := goldenKey
	good := claimsJSON(goldenIat, goldenIat+3600, goldenUUID)
	valid := sign(sha256.New, key, hs256Header, good)
	parts := strings.Split(valid, ".")
	otherKey := newKey(t)

	// A valid token of exactly n bytes, padded with an extra claim.
	sized := func(n int) string {
		for pad := 0; ; pad++ {
			tok := sign(sha256.New, key, hs256Header,
				fmt.Sprintf(`{"iat":%d,"exp":%d,"plugin_installation_uuid":%q,"x":%q}`, goldenIat, goldenIat+3600, goldenUUID, strings.Repeat("a", pad)))
			if len(tok) == n {
				return tok
			}
			if len(tok) > n {
				t.Fatalf("cannot build a token of exactly %d bytes", n)
			}
		}
	}

	nonCanonicalSig := func() string {
		// 32 bytes take 43 characters; the last carries 2 unused bits, which
		// strict decoding requires to be zero. 'B' sets them.
		s := parts[2]
		return parts[0] + "." + parts[1] + "." + s[:len(s)-1] + "B"
	}()

	for _, tc := range []struct {
		name  string
		token string
		keys  []auth.SecretKey
		at    int64 // verifier clock; default now
		want  error // nil: accepted
	}{
		{name: "valid", token: valid},
		{name: "wrong key", token: valid, keys: []auth.SecretKey{otherKey}, want: jwtverify.ErrSignature},
		{name: "no keys", token: valid, keys: []auth.SecretKey{}, want: jwtverify.ErrSignature},
		{name: "expired beyond leeway", token: valid, at: goldenIat + 3600 + leeway, want: jwtverify.ErrTokenExpired},
		{name: "expired within leeway accepted", token: valid, at: goldenIat + 3600 + leeway - 1},
		{name: "iat in future beyond leeway", token: valid, at: goldenIat - leeway - 1, want: jwtverify.ErrIssuedInFuture},
		{name: "iat in future within leeway accepted", token: valid, at: goldenIat - leeway},
		{name: "lifetime one second too long", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+3601, goldenUUID)), want: jwtverify.ErrLifetimeTooLong},
		{name: "lifetime shorter accepted", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+1800, goldenUUID))},
		{name: "iat and exp outside the claim range (overflowing int64 arithmetic)", token: sign(sha256.New, key, hs256Header, claimsJSON(math.MinInt64, math.MaxInt64, goldenUUID)), want: jwtverify.ErrTokenMalformed},
		{name: "missing exp", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenUUID)), want: jwtverify.ErrMissingClaim},
		{name: "missing iat", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"exp":%d,"plugin_installation_uuid":%q}`, goldenIat+3600, goldenUUID)), want: jwtverify.ErrMissingClaim},
		{name: "null iat", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":null,"exp":%d,"plugin_installation_uuid":%q}`, goldenIat+3600, goldenUUID)), want: jwtverify.ErrMissingClaim},
		{name: "missing uuid", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d}`, goldenIat, goldenIat+3600)), want: jwtverify.ErrMissingClaim},
		{name: "empty uuid", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+3600, "")), want: jwtverify.ErrMissingClaim},
		{name: "uuid not a string", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d,"plugin_installation_uuid":42}`, goldenIat, goldenIat+3600)), want: jwtverify.ErrTokenMalformed},
		{name: "iat a fraction", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d.5,"exp":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, goldenUUID)), want: jwtverify.ErrTokenMalformed},
		{name: "exp with an exponent", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":1.7000036e9,"plugin_installation_uuid":%q}`, goldenIat, goldenUUID)), want: jwtverify.ErrTokenMalformed},
		{name: "iat a string", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":"%d","exp":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, goldenUUID)), want: jwtverify.ErrTokenMalformed},
		{name: "claims not an object", token: sign(sha256.New, key, hs256Header, `[1,2]`), want: jwtverify.ErrTokenMalformed},
		{name: "alg none", token: b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(good) + ".", want: jwtverify.ErrAlgorithm},
		{name: "alg none with a valid HS256 signature", token: b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(good) + "." + strings.Split(sign(sha256.New, key, `{"alg":"none","typ":"JWT"}`, good), ".")[2], want: jwtverify.ErrAlgorithm},
		{name: "alg HS384", token: sign(sha512.New384, key, `{"alg":"HS384","typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "alg HS512", token: sign(sha512.New, key, `{"alg":"HS512","typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "alg RS256", token: rs256Token(t, good), want: jwtverify.ErrAlgorithm},
		{name: "alg lower case", token: sign(sha256.New, key, `{"alg":"hs256","typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "alg with a space", token: sign(sha256.New, key, `{"alg":"HS256 ","typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "alg as an array", token: sign(sha256.New, key, `{"alg":["HS256"],"typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "alg missing", token: sign(sha256.New, key, `{"typ":"JWT"}`, good), want: jwtverify.ErrAlgorithm},
		{name: "crit naming an extension", token: sign(sha256.New, key, `{"alg":"HS256","typ":"JWT","crit":["x-must-understand"],"x-must-understand":1}`, good), want: jwtverify.ErrCriticalHeader},
		{name: "crit with b64 false (RFC 7797)", token: sign(sha256.New, key, `{"alg":"HS256","b64":false,"crit":["b64"]}`, good), want: jwtverify.ErrCriticalHeader},
		{name: "crit empty", token: sign(sha256.New, key, `{"alg":"HS256","crit":[]}`, good), want: jwtverify.ErrCriticalHeader},
		{name: "crit null", token: sign(sha256.New, key, `{"alg":"HS256","crit":null}`, good), want: jwtverify.ErrCriticalHeader},
		{name: "kid naming a key", token: sign(sha256.New, key, `{"alg":"HS256","typ":"JWT","kid":"1"}`, good), want: jwtverify.ErrKeyID},
		{name: "kid empty", token: sign(sha256.New, key, `{"alg":"HS256","kid":""}`, good), want: jwtverify.ErrKeyID},
		{name: "nbf in the future beyond leeway", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d,"nbf":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, now+61, goldenUUID)), want: jwtverify.ErrIssuedInFuture},
		{name: "nbf in the past accepted", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d,"nbf":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, goldenIat, goldenUUID))},
		{name: "header tampered", token: b64(`{"alg":"HS256","typ":"JWS"}`) + "." + parts[1] + "." + parts[2], want: jwtverify.ErrSignature},
		{name: "payload tampered", token: parts[0] + "." + b64(claimsJSON(goldenIat, goldenIat+3600, "ffffffff-1f2a-4b3c-8d9e-0a1b2c3d4e5f")) + "." + parts[2], want: jwtverify.ErrSignature},
		{name: "signature tampered", token: parts[0] + "." + parts[1] + "." + flipChar(parts[2], 10), want: jwtverify.ErrSignature},
		{name: "signature missing", token: parts[0] + "." + parts[1] + ".", want: jwtverify.ErrSignature},
		{name: "padded header", token: base64.URLEncoding.EncodeToString([]byte(hs256Header+" ")) + "." + parts[1] + "." + parts[2], want: jwtverify.ErrTokenMalformed},
		{name: "padded signature", token: valid + "=", want: jwtverify.ErrTokenMalformed},
		{name: "non-canonical base64 signature", token: nonCanonicalSig, want: jwtverify.ErrTokenMalformed},
		{name: "standard base64 alphabet", token: strings.NewReplacer("-", "+", "_", "/").Replace(valid) + "+/", want: jwtverify.ErrTokenMalformed},
		{name: "newline in signature", token: parts[0] + "." + parts[1] + "." + parts[2][:5] + "\n" + parts[2][5:], want: jwtverify.ErrTokenMalformed},
		{name: "surrounding whitespace", token: " " + valid, want: jwtverify.ErrTokenMalformed},
		{name: "header not JSON", token: b64("hello") + "." + parts[1] + "." + parts[2], want: jwtverify.ErrTokenMalformed},
		{name: "two segments", token: parts[0] + "." + parts[1], want: jwtverify.ErrTokenMalformed},
		{name: "four segments", token: valid + ".x", want: jwtverify.ErrTokenMalformed},
		{name: "empty", token: "", want: jwtverify.ErrTokenMalformed},
		{name: "garbage", token: "not a token", want: jwtverify.ErrTokenMalformed},
		{name: "Bearer prefix left on", token: "Bearer " + valid, want: jwtverify.ErrTokenMalformed},
		{name: "exactly 8 KiB accepted", token: sized(jwtverify.MaxTokenSize)},
		{name: "8 KiB + 1 refused before parsing", token: strings.Repeat("a", jwtverify.MaxTokenSize+1), want: jwtverify.ErrTokenTooLarge},
		{name: "valid token over 8 KiB", token: sized(jwtverify.MaxTokenSize + 1), want: jwtverify.ErrTokenTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			at := now
			if tc.at != 0 {
				at = tc.at
			}
			keys := tc.keys
			if keys == nil {
				keys = []auth.SecretKey{mustKey(t, key)}
			}
			v := verifierAt(time.Unix(at, 0))
			c, err := v.Verify(tc.token, keys...)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify refused a valid token: %v", err)
				}
				if c.InstallationUUID != goldenUUID {
					t.Errorf("uuid = %q, want %q", c.InstallationUUID, goldenUUID)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify error = %v; want errors.Is %v", err, tc.want)
			}
			var te *jwtverify.TokenError
			if !errors.As(err, &te) || te.Reason != tc.want {
				t.Errorf("error %#v is not a *TokenError with Reason %v", err, tc.want)
			}
			if c != nil {
				t.Errorf("claims %+v returned with an error", c)
			}
			if len(tc.token) > 20 && strings.Contains(err.Error(), tc.token[len(tc.token)-20:]) {
				t.Errorf("error %q quotes the token", err)
			}
		})
	}
}

// TestVerifyKeyRotation: a token verifies if any one of the plugin's keys
// signed it, whatever its position among them.
func TestVerifyKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newK, unrelated := newKey(t), newKey(t), newKey(t)
	v := verifierAt(goldenTime)
	for _, signer := range []auth.SecretKey{oldKey, newK} {
		tok, err := auth.Mint(signer, goldenUUID, goldenTime)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(tok, oldKey, newK); err != nil {
			t.Errorf("token of one of two keys refused: %v", err)
		}
		if _, err := v.Verify(tok, unrelated, auth.SecretKey{}, newK, oldKey); err != nil {
			t.Errorf("token refused with its key last among several: %v", err)
		}
	}
	tok, _ := auth.Mint(unrelated, goldenUUID, goldenTime)
	if _, err := v.Verify(tok, oldKey, newK); !errors.Is(err, jwtverify.ErrSignature) {
		t.Errorf("token of a removed key: err = %v, want ErrSignature", err)
	}
}

// TestVerifyLookup: the server's path. The lookup sees the uuid claim; an
// unknown installation looks exactly like a bad signature; lookup errors come
// back wrapped; tokens refused by form or algorithm never reach the lookup.
func TestVerifyLookup(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	v := verifierAt(goldenTime)
	tok, _ := auth.Mint(key, goldenUUID, goldenTime)

	t.Run("finds keys", func(t *testing.T) {
		var asked []string
		c, err := v.VerifyLookup(tok, func(uuid string) ([]auth.SecretKey, error) {
			asked = append(asked, uuid)
			return []auth.SecretKey{newKey(t), key}, nil
		})
		if err != nil || c.InstallationUUID != goldenUUID {
			t.Fatalf("VerifyLookup = %+v, %v", c, err)
		}
		if len(asked) != 1 || asked[0] != goldenUUID {
			t.Errorf("lookup called with %q, want once with %s", asked, goldenUUID)
		}
	})

	t.Run("unknown installation is indistinguishable from a bad signature", func(t *testing.T) {
		_, errNone := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return nil, nil })
		_, errWrong := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return []auth.SecretKey{newKey(t)}, nil })
		if !errors.Is(errNone, jwtverify.ErrSignature) {
			t.Fatalf("no keys: err = %v, want ErrSignature", errNone)
		}
		if errWrong.Error() != errNone.Error() {
			t.Errorf("unknown installation says %q, wrong key says %q; they must not differ", errNone, errWrong)
		}
	})

	t.Run("no keys refuses even an otherwise broken token as bad signature", func(t *testing.T) {
		expired := sign(sha256.New, "ask_live_whatever", hs256Header, claimsJSON(goldenIat-7200, goldenIat-3600, goldenUUID))
		_, err := v.VerifyLookup(expired, func(string) ([]auth.SecretKey, error) { return nil, nil })
		if !errors.Is(err, jwtverify.ErrSignature) {
			t.Errorf("err = %v, want ErrSignature", err)
		}
	})

	t.Run("lookup error is wrapped", func(t *testing.T) {
		storeDown := errors.New("store unavailable")
		_, err := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return nil, storeDown })
		if !errors.Is(err, storeDown) {
			t.Fatalf("err = %v, want it to wrap the lookup error", err)
		}
		var te *jwtverify.TokenError
		if errors.As(err, &te) {
			t.Errorf("a lookup failure must not look like a refused token: %v", err)
		}
	})

	refusedEarly := map[string]struct {
		token string
		want  error
	}{
		"missing uuid": {sign(sha256.New, key.Reveal(), hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d}`, goldenIat, goldenIat+3600)), jwtverify.ErrMissingClaim},
		"alg none":     {b64(`{"alg":"none"}`) + "." + b64(claimsJSON(goldenIat, goldenIat+3600, goldenUUID)) + ".", jwtverify.ErrAlgorithm},
		"too large":    {strings.Repeat("a", jwtverify.MaxTokenSize+1), jwtverify.ErrTokenTooLarge},
		"malformed":    {"a.b.c", jwtverify.ErrTokenMalformed},
	}
	for name, tc := range refusedEarly {
		t.Run(name+" never reaches lookup", func(t *testing.T) {
			_, err := v.VerifyLookup(tc.token, func(string) ([]auth.SecretKey, error) {
				t.Error("lookup called")
				return []auth.SecretKey{key}, nil
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestVerifierLeeway: the leeway given to New is the tolerance on exp.
func TestVerifierLeeway(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	tok, _ := auth.Mint(key, goldenUUID, goldenTime)
	justExpired := goldenTime.Add(time.Hour + 30*time.Second)
	if _, err := verifierAt(justExpired).Verify(tok, key); err != nil {
		t.Errorf("30 s past exp with the default leeway: %v", err)
	}
	v := jwtverify.New(func() time.Time { return justExpired }, 10*time.Second)
	if _, err := v.Verify(tok, key); !errors.Is(err, jwtverify.ErrTokenExpired) {
		t.Errorf("30 s past exp with 10 s leeway: err = %v, want ErrTokenExpired", err)
	}
}

// TestTokenErrorMessage: the message names the reason and the detail.
func TestTokenErrorMessage(t *testing.T) {
	t.Parallel()
	err := &jwtverify.TokenError{Reason: jwtverify.ErrMissingClaim, Detail: "claim iat is required"}
	if got, want := err.Error(), "jwt: token claim missing: claim iat is required"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// BenchmarkVerify: a full check of a valid token with one key, as the
// reference server does for every request. Run:
//
//	go test -run '^$' -bench . -benchmem ./internal/jwtverify/
func BenchmarkVerify(b *testing.B) {
	key := mustKey(b, goldenKey)
	v := verifierAt(goldenTime)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(goldenToken, key); err != nil {
			b.Fatal(err)
		}
	}
}
