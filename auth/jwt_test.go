package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/scribehq/scribe-go/auth"
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

// maxClaimSeconds is the largest iat or exp the service accepts, 2^53 - 1.
const maxClaimSeconds = 1<<53 - 1

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
		{"iat 2^53-1", key, goldenUUID, time.Unix(maxClaimSeconds, 0), auth.ErrTimeOutOfRange},
		{"exp one past 2^53-1", key, goldenUUID, time.Unix(maxClaimSeconds-3599, 0), auth.ErrTimeOutOfRange},
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
