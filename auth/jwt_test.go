package auth_test

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

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/scribehq/scribe-go/auth"
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
	k, err := auth.NewSecretKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
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

func fixedClock(t time.Time) auth.ClockOption { return auth.WithClock(func() time.Time { return t }) }

// TestMintGolden: a fixed key, uuid and time give exactly the known token,
// which an independent HS256 implementation also produces.
func TestMintGolden(t *testing.T) {
	t.Parallel()
	got, err := auth.Mint(mustKey(t, goldenKey), goldenUUID, goldenTime.Add(999*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if got != goldenToken {
		t.Errorf("Mint = %s\nwant   %s", got, goldenToken)
	}
	independent := sign(sha256.New, goldenKey, hs256Header,
		`{"exp":1700003600,"iat":1700000000,"plugin_installation_uuid":"`+goldenUUID+`"}`)
	if got != independent {
		t.Errorf("Mint = %s\nindependent HS256 = %s", got, independent)
	}
}

// TestMintMatchesGolangJWT: Mint produces byte for byte what a user would get
// from golang-jwt with MapClaims (the claims are integers, not floats, and no
// other claim is added), and golang-jwt verifies it.
func TestMintMatchesGolangJWT(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	got, err := auth.Mint(key, goldenUUID, goldenTime)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iat": goldenIat, "exp": goldenIat + 3600, "plugin_installation_uuid": goldenUUID,
	}).SignedString([]byte(key.Reveal()))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Mint = %s\ngolang-jwt = %s", got, want)
	}
	parsed, err := jwt.Parse(got, func(*jwt.Token) (any, error) { return []byte(key.Reveal()), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return goldenTime }))
	if err != nil {
		t.Fatalf("golang-jwt refuses a minted token: %v", err)
	}
	if diff := cmp.Diff(jwt.MapClaims{"iat": float64(goldenIat), "exp": float64(goldenIat + 3600),
		"plugin_installation_uuid": goldenUUID}, parsed.Claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

// TestVerifyIndependentToken: a token signed by hand (no golang-jwt, no
// package auth) verifies, with the claims it carries.
func TestVerifyIndependentToken(t *testing.T) {
	t.Parallel()
	v := auth.NewVerifier(fixedClock(goldenTime))
	got, err := v.Verify(goldenToken, mustKey(t, goldenKey))
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Claims{
		InstallationUUID: goldenUUID,
		IssuedAt:         time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC),
		ExpiresAt:        time.Date(2023, 11, 14, 23, 13, 20, 0, time.UTC),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}

// TestMintRefusesBadInput: a zero key, a malformed uuid and a zero time each
// give a clear error instead of a token.
func TestMintRefusesBadInput(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	for _, tc := range []struct {
		name string
		key  auth.SecretKey
		uuid string
		now  time.Time
		want error
	}{
		{"zero key", auth.SecretKey{}, goldenUUID, goldenTime, auth.ErrInvalidKey},
		{"empty uuid", key, "", goldenTime, auth.ErrInvalidInstallationUUID},
		{"uuid without dashes", key, "0b6d3c5e1f2a4b3c8d9e0a1b2c3d4e5f", goldenTime, auth.ErrInvalidInstallationUUID},
		{"dash misplaced", key, "0b6d3c5e1-f2a-4b3c-8d9e-0a1b2c3d4e5f", goldenTime, auth.ErrInvalidInstallationUUID},
		{"non-hex digit", key, "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5g", goldenTime, auth.ErrInvalidInstallationUUID},
		{"braces", key, "{0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f}", goldenTime, auth.ErrInvalidInstallationUUID},
		{"quote injection", key, `0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e"f`, goldenTime, auth.ErrInvalidInstallationUUID},
		{"zero time", key, goldenUUID, time.Time{}, nil},
		{"negative iat", key, goldenUUID, time.Unix(-1, 0), auth.ErrTimeOutOfRange},
		{"iat 2^53-1", key, goldenUUID, time.Unix(auth.MaxClaimSeconds, 0), auth.ErrTimeOutOfRange},
		{"exp one past 2^53-1", key, goldenUUID, time.Unix(auth.MaxClaimSeconds-3599, 0), auth.ErrTimeOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := auth.Mint(tc.key, tc.uuid, tc.now)
			if err == nil || tok != "" {
				t.Fatalf("Mint = %q, %v; want an error", tok, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Mint error %q is not %v", err, tc.want)
			}
		})
	}
}

// TestMintRangeMatchesVerify: Mint signs exactly the iats Verify accepts.
// At the top of the range the token verifies; one second later Mint refuses,
// naming the bound, instead of signing a token no verifier takes.
func TestMintRangeMatchesVerify(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	for _, iat := range []int64{0, auth.MaxClaimSeconds - 3600} {
		tok, err := auth.Mint(key, goldenUUID, time.Unix(iat, 0))
		if err != nil {
			t.Fatalf("Mint at iat %d: %v", iat, err)
		}
		v := auth.NewVerifier(fixedClock(time.Unix(iat+1, 0)))
		if _, err := v.Verify(tok, key); err != nil {
			t.Errorf("Verify of a token minted at iat %d: %v", iat, err)
		}
	}
	_, err := auth.Mint(key, goldenUUID, time.Unix(auth.MaxClaimSeconds-3599, 0))
	if !errors.Is(err, auth.ErrTimeOutOfRange) || !strings.Contains(err.Error(), "9007199254737391") {
		t.Errorf("Mint past the range: %v; want ErrTimeOutOfRange naming the bound 9007199254737391", err)
	}
}

// TestMintAcceptsUpperCaseUUID: RFC 4122 text is case-insensitive on input;
// the uuid is carried as given.
func TestMintAcceptsUpperCaseUUID(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	upper := strings.ToUpper(goldenUUID)
	tok, err := auth.Mint(key, upper, goldenTime)
	if err != nil {
		t.Fatal(err)
	}
	c, err := auth.NewVerifier(fixedClock(goldenTime)).Verify(tok, key)
	if err != nil || c.InstallationUUID != upper {
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
		{name: "wrong key", token: valid, keys: []auth.SecretKey{otherKey}, want: auth.ErrSignature},
		{name: "no keys", token: valid, keys: []auth.SecretKey{}, want: auth.ErrSignature},
		{name: "expired beyond leeway", token: valid, at: goldenIat + 3600 + leeway, want: auth.ErrTokenExpired},
		{name: "expired within leeway accepted", token: valid, at: goldenIat + 3600 + leeway - 1},
		{name: "iat in future beyond leeway", token: valid, at: goldenIat - leeway - 1, want: auth.ErrIssuedInFuture},
		{name: "iat in future within leeway accepted", token: valid, at: goldenIat - leeway},
		{name: "lifetime one second too long", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+3601, goldenUUID)), want: auth.ErrLifetimeTooLong},
		{name: "lifetime shorter accepted", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+1800, goldenUUID))},
		{name: "iat and exp outside the claim range (overflowing int64 arithmetic)", token: sign(sha256.New, key, hs256Header, claimsJSON(math.MinInt64, math.MaxInt64, goldenUUID)), want: auth.ErrTokenMalformed},
		{name: "missing exp", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenUUID)), want: auth.ErrMissingClaim},
		{name: "missing iat", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"exp":%d,"plugin_installation_uuid":%q}`, goldenIat+3600, goldenUUID)), want: auth.ErrMissingClaim},
		{name: "null iat", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":null,"exp":%d,"plugin_installation_uuid":%q}`, goldenIat+3600, goldenUUID)), want: auth.ErrMissingClaim},
		{name: "missing uuid", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d}`, goldenIat, goldenIat+3600)), want: auth.ErrMissingClaim},
		{name: "empty uuid", token: sign(sha256.New, key, hs256Header, claimsJSON(goldenIat, goldenIat+3600, "")), want: auth.ErrMissingClaim},
		{name: "uuid not a string", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d,"plugin_installation_uuid":42}`, goldenIat, goldenIat+3600)), want: auth.ErrTokenMalformed},
		{name: "iat a fraction", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d.5,"exp":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, goldenUUID)), want: auth.ErrTokenMalformed},
		{name: "exp with an exponent", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":%d,"exp":1.7000036e9,"plugin_installation_uuid":%q}`, goldenIat, goldenUUID)), want: auth.ErrTokenMalformed},
		{name: "iat a string", token: sign(sha256.New, key, hs256Header, fmt.Sprintf(`{"iat":"%d","exp":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenIat+3600, goldenUUID)), want: auth.ErrTokenMalformed},
		{name: "claims not an object", token: sign(sha256.New, key, hs256Header, `[1,2]`), want: auth.ErrTokenMalformed},
		{name: "alg none", token: b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(good) + ".", want: auth.ErrAlgorithm},
		{name: "alg none with a valid HS256 signature", token: b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(good) + "." + strings.Split(sign(sha256.New, key, `{"alg":"none","typ":"JWT"}`, good), ".")[2], want: auth.ErrAlgorithm},
		{name: "alg HS384", token: sign(sha512.New384, key, `{"alg":"HS384","typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "alg HS512", token: sign(sha512.New, key, `{"alg":"HS512","typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "alg RS256", token: rs256Token(t, good), want: auth.ErrAlgorithm},
		{name: "alg lower case", token: sign(sha256.New, key, `{"alg":"hs256","typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "alg with a space", token: sign(sha256.New, key, `{"alg":"HS256 ","typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "alg as an array", token: sign(sha256.New, key, `{"alg":["HS256"],"typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "alg missing", token: sign(sha256.New, key, `{"typ":"JWT"}`, good), want: auth.ErrAlgorithm},
		{name: "crit naming an extension", token: sign(sha256.New, key, `{"alg":"HS256","typ":"JWT","crit":["x-must-understand"],"x-must-understand":1}`, good), want: auth.ErrCriticalHeader},
		{name: "crit with b64 false (RFC 7797)", token: sign(sha256.New, key, `{"alg":"HS256","b64":false,"crit":["b64"]}`, good), want: auth.ErrCriticalHeader},
		{name: "crit empty", token: sign(sha256.New, key, `{"alg":"HS256","crit":[]}`, good), want: auth.ErrCriticalHeader},
		{name: "crit null", token: sign(sha256.New, key, `{"alg":"HS256","crit":null}`, good), want: auth.ErrCriticalHeader},
		{name: "header tampered", token: b64(`{"alg":"HS256","typ":"JWS"}`) + "." + parts[1] + "." + parts[2], want: auth.ErrSignature},
		{name: "payload tampered", token: parts[0] + "." + b64(claimsJSON(goldenIat, goldenIat+3600, "ffffffff-1f2a-4b3c-8d9e-0a1b2c3d4e5f")) + "." + parts[2], want: auth.ErrSignature},
		{name: "signature tampered", token: parts[0] + "." + parts[1] + "." + flipChar(parts[2], 10), want: auth.ErrSignature},
		{name: "signature missing", token: parts[0] + "." + parts[1] + ".", want: auth.ErrSignature},
		{name: "padded header", token: base64.URLEncoding.EncodeToString([]byte(hs256Header+" ")) + "." + parts[1] + "." + parts[2], want: auth.ErrTokenMalformed},
		{name: "padded signature", token: valid + "=", want: auth.ErrTokenMalformed},
		{name: "non-canonical base64 signature", token: nonCanonicalSig, want: auth.ErrTokenMalformed},
		{name: "standard base64 alphabet", token: strings.NewReplacer("-", "+", "_", "/").Replace(valid) + "+/", want: auth.ErrTokenMalformed},
		{name: "newline in signature", token: parts[0] + "." + parts[1] + "." + parts[2][:5] + "\n" + parts[2][5:], want: auth.ErrTokenMalformed},
		{name: "surrounding whitespace", token: " " + valid, want: auth.ErrTokenMalformed},
		{name: "header not JSON", token: b64("hello") + "." + parts[1] + "." + parts[2], want: auth.ErrTokenMalformed},
		{name: "two segments", token: parts[0] + "." + parts[1], want: auth.ErrTokenMalformed},
		{name: "four segments", token: valid + ".x", want: auth.ErrTokenMalformed},
		{name: "empty", token: "", want: auth.ErrTokenMalformed},
		{name: "garbage", token: "not a token", want: auth.ErrTokenMalformed},
		{name: "Bearer prefix left on", token: "Bearer " + valid, want: auth.ErrTokenMalformed},
		{name: "exactly 8 KiB accepted", token: sized(auth.MaxTokenSize)},
		{name: "8 KiB + 1 refused before parsing", token: strings.Repeat("a", auth.MaxTokenSize+1), want: auth.ErrTokenTooLarge},
		{name: "valid token over 8 KiB", token: sized(auth.MaxTokenSize + 1), want: auth.ErrTokenTooLarge},
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
			v := auth.NewVerifier(fixedClock(time.Unix(at, 0)))
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
			var te *auth.TokenError
			if !errors.As(err, &te) || te.Reason != tc.want {
				t.Errorf("error %#v is not a *TokenError with Reason %v", err, tc.want)
			}
			if diff := cmp.Diff(auth.Claims{}, c); diff != "" {
				t.Errorf("claims returned with an error (-want +got):\n%s", diff)
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
	v := auth.NewVerifier(fixedClock(goldenTime))
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
	if _, err := v.Verify(tok, oldKey, newK); !errors.Is(err, auth.ErrSignature) {
		t.Errorf("token of a removed key: err = %v, want ErrSignature", err)
	}
}

// TestVerifyLookup: the server's path. The lookup sees the uuid claim; an
// unknown installation looks exactly like a bad signature; lookup errors come
// back wrapped; tokens refused by form or algorithm never reach the lookup.
func TestVerifyLookup(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	v := auth.NewVerifier(fixedClock(goldenTime))
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
		if diff := cmp.Diff([]string{goldenUUID}, asked); diff != "" {
			t.Errorf("lookup calls (-want +got):\n%s", diff)
		}
	})

	t.Run("unknown installation is indistinguishable from a bad signature", func(t *testing.T) {
		_, errNone := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return nil, nil })
		_, errWrong := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return []auth.SecretKey{newKey(t)}, nil })
		if !errors.Is(errNone, auth.ErrSignature) {
			t.Fatalf("no keys: err = %v, want ErrSignature", errNone)
		}
		if errWrong.Error() != errNone.Error() {
			t.Errorf("unknown installation says %q, wrong key says %q; they must not differ", errNone, errWrong)
		}
	})

	t.Run("no keys refuses even an otherwise broken token as bad signature", func(t *testing.T) {
		expired := sign(sha256.New, "ask_live_whatever", hs256Header, claimsJSON(goldenIat-7200, goldenIat-3600, goldenUUID))
		_, err := v.VerifyLookup(expired, func(string) ([]auth.SecretKey, error) { return nil, nil })
		if !errors.Is(err, auth.ErrSignature) {
			t.Errorf("err = %v, want ErrSignature", err)
		}
	})

	t.Run("lookup error is wrapped", func(t *testing.T) {
		storeDown := errors.New("store unavailable")
		_, err := v.VerifyLookup(tok, func(string) ([]auth.SecretKey, error) { return nil, storeDown })
		if !errors.Is(err, storeDown) {
			t.Fatalf("err = %v, want it to wrap the lookup error", err)
		}
		var te *auth.TokenError
		if errors.As(err, &te) {
			t.Errorf("a lookup failure must not look like a refused token: %v", err)
		}
	})

	refusedEarly := map[string]struct {
		token string
		want  error
	}{
		"missing uuid": {sign(sha256.New, key.Reveal(), hs256Header, fmt.Sprintf(`{"iat":%d,"exp":%d}`, goldenIat, goldenIat+3600)), auth.ErrMissingClaim},
		"alg none":     {b64(`{"alg":"none"}`) + "." + b64(claimsJSON(goldenIat, goldenIat+3600, goldenUUID)) + ".", auth.ErrAlgorithm},
		"too large":    {strings.Repeat("a", auth.MaxTokenSize+1), auth.ErrTokenTooLarge},
		"malformed":    {"a.b.c", auth.ErrTokenMalformed},
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

// TestVerifierLeeway: WithLeeway changes the tolerance; the zero Verifier
// uses the default 60 s.
func TestVerifierLeeway(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	tok, _ := auth.Mint(key, goldenUUID, goldenTime)
	justExpired := goldenTime.Add(time.Hour + 30*time.Second)
	if _, err := auth.NewVerifier(fixedClock(justExpired)).Verify(tok, key); err != nil {
		t.Errorf("30 s past exp with the default leeway: %v", err)
	}
	if _, err := auth.NewVerifier(fixedClock(justExpired), auth.WithLeeway(10*time.Second)).Verify(tok, key); !errors.Is(err, auth.ErrTokenExpired) {
		t.Errorf("30 s past exp with 10 s leeway: err = %v, want ErrTokenExpired", err)
	}
	fresh, _ := auth.Mint(key, goldenUUID, time.Now())
	var zero auth.Verifier
	if _, err := zero.Verify(fresh, key); err != nil {
		t.Errorf("zero Verifier refuses a fresh token: %v", err)
	}
}

// TestTokenErrorMessage: the message names the reason and the detail.
func TestTokenErrorMessage(t *testing.T) {
	t.Parallel()
	err := &auth.TokenError{Reason: auth.ErrMissingClaim, Detail: "claim iat is required"}
	if got, want := err.Error(), "auth: token claim missing: claim iat is required"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := (&auth.TokenError{Reason: auth.ErrSignature}).Error(), "auth: token signature invalid"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
