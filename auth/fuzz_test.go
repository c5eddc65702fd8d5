package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/auth"
)

// FuzzVerify: whatever the input, Verify does not panic; a refusal is a
// *TokenError with one of the documented reasons and never quotes the key;
// an accepted token carries a uuid and a lifetime within an hour.
func FuzzVerify(f *testing.F) {
	f.Add(goldenToken)
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add(goldenToken[:len(goldenToken)-1])
	f.Add(strings.Replace(goldenToken, ".", "..", 1))
	key := mustKey(f, goldenKey)
	v := auth.NewVerifier(fixedClock(goldenTime))
	reasons := []error{auth.ErrTokenTooLarge, auth.ErrTokenMalformed, auth.ErrAlgorithm, auth.ErrSignature,
		auth.ErrTokenExpired, auth.ErrIssuedInFuture, auth.ErrLifetimeTooLong, auth.ErrLifetimeNotPositive, auth.ErrMissingClaim}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(token, key)
		if err == nil {
			if c.InstallationUUID == "" || c.ExpiresAt.Sub(c.IssuedAt) > auth.TokenLifetime {
				t.Fatalf("accepted %q with claims %+v", token, c)
			}
			return
		}
		var te *auth.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("error %v is not a *TokenError", err)
		}
		known := false
		for _, r := range reasons {
			known = known || te.Reason == r
		}
		if !known {
			t.Fatalf("unknown reason %v", te.Reason)
		}
		if strings.Contains(err.Error(), goldenKey[len("ask_live_"):]) {
			t.Fatalf("error quotes the key: %v", err)
		}
	})
}
