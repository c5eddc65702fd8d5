package jwtverify_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
)

// TestVerifyClaimRanges protects the claim ranges of the contract: iat and
// exp are integers from 0 to 2^53-1, and 0 < exp - iat <= 3600. Every
// boundary is a hand-signed token (sign, in verify_test.go, with crypto/hmac),
// verified at a time where the time checks alone would accept it, so each
// refusal comes from the range rule under test.
func TestVerifyClaimRanges(t *testing.T) {
	t.Parallel()
	const huge = 9223372036854775707 // the overflowing iat
	raw := func(iat, exp string) string {
		return fmt.Sprintf(`{"iat":%s,"exp":%s,"plugin_installation_uuid":%q}`, iat, exp, goldenUUID)
	}
	n := func(i int64) string { return fmt.Sprint(i) }
	for _, tc := range []struct {
		name   string
		claims string
		at     int64 // the verifier's clock
		want   error // nil: accepted
		detail string
	}{
		{"lifetime 3600 accepted", raw(n(goldenIat), n(goldenIat+3600)), goldenIat, nil, ""},
		{"lifetime 1 accepted", raw(n(goldenIat), n(goldenIat+1)), goldenIat, nil, ""},
		{"lifetime 3601", raw(n(goldenIat), n(goldenIat+3601)), goldenIat, jwtverify.ErrLifetimeTooLong, "3601 seconds"},
		{"lifetime 0", raw(n(goldenIat), n(goldenIat)), goldenIat, jwtverify.ErrLifetimeNotPositive, "0 seconds"},
		{"lifetime -1", raw(n(goldenIat), n(goldenIat-1)), goldenIat, jwtverify.ErrLifetimeNotPositive, "-1 seconds"},
		{"exp long before iat", raw(n(goldenIat), "1"), goldenIat, jwtverify.ErrLifetimeNotPositive, "exp must come after iat"},
		{"a century", raw(n(goldenIat), n(goldenIat+100*365*86400)), goldenIat, jwtverify.ErrLifetimeTooLong, ""},
		{"iat fraction 1.5", raw("1.5", n(goldenIat+3600)), goldenIat, jwtverify.ErrTokenMalformed, "claim iat must be an integer"},
		{"exp fraction", raw(n(goldenIat), n(goldenIat+3600)+".0"), goldenIat, jwtverify.ErrTokenMalformed, "claim exp must be an integer"},
		{"iat exponent 1e3", raw("1e3", "4600"), goldenIat, jwtverify.ErrTokenMalformed, "claim iat must be an integer"},
		{"exp exponent", raw(n(goldenIat), "1.7000036E9"), goldenIat, jwtverify.ErrTokenMalformed, "claim exp must be an integer"},
		{"iat string", raw(`"`+n(goldenIat)+`"`, n(goldenIat+3600)), goldenIat, jwtverify.ErrTokenMalformed, "claim iat must be an integer"},
		{"exp string", raw(n(goldenIat), `"`+n(goldenIat+3600)+`"`), goldenIat, jwtverify.ErrTokenMalformed, "claim exp must be an integer"},
		{"iat boolean", raw("true", n(goldenIat+3600)), goldenIat, jwtverify.ErrTokenMalformed, "claim iat must be an integer"},
		{"exp object", raw(n(goldenIat), "{}"), goldenIat, jwtverify.ErrTokenMalformed, "claim exp must be an integer"},
		{"iat negative", raw("-1", "3599"), 0, jwtverify.ErrTokenMalformed, "from 0 to 9007199254740991"},
		{"exp negative", raw("0", "-3600"), 0, jwtverify.ErrTokenMalformed, "claim exp must be an integer number of seconds from 0"},
		{"iat 0 accepted", raw("0", "3600"), 0, nil, ""},
		{"iat huge with a century exp (the issue's case)", raw(n(huge), n(huge+100)), goldenIat, jwtverify.ErrTokenMalformed, "claim iat must be an integer number of seconds from 0"},
		{"iat beyond int64", raw("92233720368547758070", "92233720368547761670"), goldenIat, jwtverify.ErrTokenMalformed, "from 0 to"},
		{"iat 2^53", raw(n(1<<53), n(1<<53+3600)), goldenIat, jwtverify.ErrTokenMalformed, "claim iat"},
		{"exp 2^53", raw(n(1<<53-3600), n(1<<53)), 1<<53 - 3600, jwtverify.ErrTokenMalformed, "claim exp"},
		{"iat and exp at the top of the range accepted", raw(n(jwtverify.MaxClaimSeconds-3600), n(jwtverify.MaxClaimSeconds)), jwtverify.MaxClaimSeconds - 3600, nil, ""},
		{"exp minus iat overflowing int64", raw("0", "9223372036854775807"), goldenIat, jwtverify.ErrTokenMalformed, "claim exp"},
		{"missing iat", fmt.Sprintf(`{"exp":%d,"plugin_installation_uuid":%q}`, goldenIat+3600, goldenUUID), goldenIat, jwtverify.ErrMissingClaim, "claim iat is required"},
		{"missing exp", fmt.Sprintf(`{"iat":%d,"plugin_installation_uuid":%q}`, goldenIat, goldenUUID), goldenIat, jwtverify.ErrMissingClaim, "claim exp is required"},
		{"null exp", raw(n(goldenIat), "null"), goldenIat, jwtverify.ErrMissingClaim, "claim exp is required"},
		{"missing both", fmt.Sprintf(`{"plugin_installation_uuid":%q}`, goldenUUID), goldenIat, jwtverify.ErrMissingClaim, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := sign(sha256.New, goldenKey, hs256Header, tc.claims)
			at := time.Unix(tc.at, 0)
			c, err := verifierAt(at).Verify(tok, mustKey(t, goldenKey))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify refused %s: %v", tc.claims, err)
				}
				if d := c.ExpiresAt.Sub(c.IssuedAt.Time); d <= 0 || d > auth.TokenLifetime {
					t.Errorf("accepted claims with lifetime %v", d)
				}
				return
			}
			var te *jwtverify.TokenError
			if !errors.As(err, &te) || te.Reason != tc.want {
				t.Fatalf("Verify(%s) error = %v; want a *TokenError with reason %v", tc.claims, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("error %q does not say %q", err, tc.detail)
			}
			if c != nil {
				t.Errorf("claims %+v returned with an error", c)
			}
		})
	}
}

// TestVerifyClaimRangesGolangJWT: the same boundaries minted with golang-jwt
// (the way a user's other tooling mints), so the rule does not depend on how
// the JSON was written.
func TestVerifyClaimRangesGolangJWT(t *testing.T) {
	t.Parallel()
	key := mustKey(t, goldenKey)
	v := verifierAt(goldenTime)
	for _, tc := range []struct {
		life int64
		want error
	}{
		{3600, nil}, {3601, jwtverify.ErrLifetimeTooLong}, {0, jwtverify.ErrLifetimeNotPositive}, {-1, jwtverify.ErrLifetimeNotPositive},
	} {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"iat": goldenIat, "exp": goldenIat + tc.life, "plugin_installation_uuid": goldenUUID,
		}).SignedString([]byte(goldenKey))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(tok, key); !errors.Is(err, tc.want) && (tc.want != nil || err != nil) {
			t.Errorf("lifetime %d: error = %v, want %v", tc.life, err, tc.want)
		}
	}
	// golang-jwt writes a float claim as a JSON number with a fraction.
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iat": float64(goldenIat) + 0.5, "exp": goldenIat + 3600, "plugin_installation_uuid": goldenUUID,
	}).SignedString([]byte(goldenKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(tok, key); !errors.Is(err, jwtverify.ErrTokenMalformed) {
		t.Errorf("fractional iat: error = %v, want ErrTokenMalformed", err)
	}
}

// TestServiceStyleKeySignsWithItsBytes: a key of any form the service may
// issue signs with its UTF-8 bytes, prefix included, exactly as golang-jwt
// does with []byte(key); and a token it signed verifies with it.
func TestServiceStyleKeySignsWithItsBytes(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"ask_live_4eC39HqLyjWDarjtT1zdp7dc", "ask_live_!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "ask_live_x"} {
		key := mustKey(t, s)
		tok, err := auth.Mint(key, goldenUUID, goldenTime)
		if err != nil {
			t.Fatal(err)
		}
		_, err = jwt.NewParser(jwt.WithTimeFunc(func() time.Time { return goldenTime })).
			Parse(tok, func(*jwt.Token) (any, error) { return []byte(s), nil })
		if err != nil {
			t.Errorf("golang-jwt with the key's bytes refuses the token of %s: %v", key, err)
		}
		if _, err := verifierAt(goldenTime).Verify(tok, key); err != nil {
			t.Errorf("Verify: %v", err)
		}
	}
}
