package jwtverify_test

import (
	"crypto/sha256"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
)

// Fuzz targets of the verifier. Their committed corpora (testdata/fuzz/...)
// hold the boundaries of the claims: their ranges (lifetimes 3600, 3601, 0,
// -1; fractions, exponents, strings; iat and exp at 2^53 and beyond int64)
// as hand-signed tokens. Run one with, for example:
//
//	go test ./internal/jwtverify -run '^$' -fuzz FuzzVerifyClaims -fuzztime 30s

var reasons = []error{jwtverify.ErrTokenTooLarge, jwtverify.ErrTokenMalformed, jwtverify.ErrAlgorithm, jwtverify.ErrSignature,
	jwtverify.ErrTokenExpired, jwtverify.ErrIssuedInFuture, jwtverify.ErrLifetimeTooLong, jwtverify.ErrLifetimeNotPositive,
	jwtverify.ErrCriticalHeader, jwtverify.ErrKeyID, jwtverify.ErrMissingClaim}

// checkRefusal fails unless err is a *TokenError with a documented reason
// that does not quote the golden key.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	var te *jwtverify.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("error %v is not a *TokenError", err)
	}
	if !slices.Contains(reasons, te.Reason) {
		t.Fatalf("unknown reason %v", te.Reason)
	}
	if strings.Contains(err.Error(), goldenKey[len("ask_live_"):]) {
		t.Fatalf("error quotes the key: %v", err)
	}
}

// checkAccepted fails unless claims respect the ranges of the contract.
func checkAccepted(t *testing.T, token string, c *jwtverify.Claims) {
	t.Helper()
	life := c.ExpiresAt.Sub(c.IssuedAt.Time)
	if c.InstallationUUID == "" || life <= 0 || life > auth.TokenLifetime ||
		c.IssuedAt.Unix() < 0 || c.ExpiresAt.Unix() > jwtverify.MaxClaimSeconds {
		t.Fatalf("accepted %q with claims %+v", token, c)
	}
}

// FuzzVerify: whatever the input, Verify does not panic; a refusal is a
// *TokenError with one of the documented reasons and never quotes the key;
// an accepted token carries a uuid and a lifetime in (0, 1h].
func FuzzVerify(f *testing.F) {
	f.Add(goldenToken)
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add(goldenToken[:len(goldenToken)-1])
	f.Add(strings.Replace(goldenToken, ".", "..", 1))
	key := mustKey(f, goldenKey)
	v := verifierAt(goldenTime)
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(token, key)
		if err == nil {
			checkAccepted(t, token, c)
			return
		}
		checkRefusal(t, err)
	})
}

// integerLiteral is a JSON integer as the contract writes iat and exp.
var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// FuzzVerifyClaims signs claims whose iat and exp are arbitrary JSON text,
// so that the fuzzer reaches the claim rules behind the signature, and checks
// the verdict against the contract: accepted only if iat and exp are
// integers in [0, 2^53-1] with 0 < exp - iat <= 3600 and the time checks
// pass (with 60 s leeway) at iat + offset; and, for canonical integer
// literals meeting all that, always accepted.
func FuzzVerifyClaims(f *testing.F) {
	f.Add("1700000000", "1700003600", int64(0))
	f.Add("1700000000", "1700003601", int64(0))
	f.Add("1700000000", "1700000000", int64(0))
	f.Add("1700000000", "1699999999", int64(0))
	f.Add("1.5", "3601.5", int64(0))
	f.Add("1e3", "4600", int64(0))
	f.Add(`"1700000000"`, "1700003600", int64(0))
	f.Add("9223372036854775707", "9223372036854775807", int64(0))
	f.Add("9007199254740991", "9007199254740991", int64(0))
	f.Add("9007199254740990", "9007199254740991", int64(0))
	f.Add("-1", "3599", int64(0))
	f.Add("null", "1700003600", int64(0))
	key := mustKey(f, goldenKey)
	f.Fuzz(func(t *testing.T, iat, exp string, offset int64) {
		claims := `{"iat":` + iat + `,"exp":` + exp + `,"plugin_installation_uuid":"` + goldenUUID + `"}`
		tok := sign(sha256.New, goldenKey, hs256Header, claims)
		offset %= 2 * 3600
		base := int64(goldenIat)
		if n, err := strconv.ParseInt(iat, 10, 64); err == nil && n >= 0 && n <= jwtverify.MaxClaimSeconds {
			base = n
		}
		now := base + offset
		c, err := verifierAt(time.Unix(now, 0)).Verify(tok, key)

		wantOK := false
		if integerLiteral.MatchString(iat) && integerLiteral.MatchString(exp) {
			i, ierr := strconv.ParseInt(iat, 10, 64)
			e, eerr := strconv.ParseInt(exp, 10, 64)
			wantOK = ierr == nil && eerr == nil && i >= 0 && e >= 0 && i <= jwtverify.MaxClaimSeconds && e <= jwtverify.MaxClaimSeconds &&
				e-i > 0 && e-i <= 3600 && now < e+60 && now >= i-60
		}
		if err == nil {
			checkAccepted(t, tok, c)
			if c.IssuedAt.Unix() > now+60 || c.ExpiresAt.Unix()+60 <= now {
				t.Fatalf("accepted claims %s at %d", claims, now)
			}
			return
		}
		checkRefusal(t, err)
		if wantOK {
			t.Fatalf("refused valid claims %s at %d: %v", claims, now, err)
		}
	})
}
