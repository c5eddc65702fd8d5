// Package jwtverify checks installation JWTs by the service's rules
// (docs/contract.md, "Tokens"), for the reference server and scribe-jwt
// verify. A plugin backend only mints tokens, so this is no part of package
// auth. The checks are golang-jwt's, through its parser options and
// jwt.RegisteredClaims; this package adds what the contract asks beyond
// them: integer iat and exp, a lifetime of at most an hour, no crit and no
// kid header, a size limit, and the installation uuid.
package jwtverify

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/scribehq/scribe-go/auth"
)

// MaxTokenSize is the longest token, in bytes, a Verifier parses.
const MaxTokenSize = 8 << 10

// DefaultLeeway is the clock skew the service tolerates on iat and exp.
const DefaultLeeway = 60 * time.Second

// MaxClaimSeconds is the largest iat or exp accepted: 2^53 - 1, the largest
// integer a JSON number holds exactly in every implementation (RFC 7493).
const MaxClaimSeconds = 1<<53 - 1

// The reasons a token is refused: every refusal is a *TokenError whose
// Reason is one of them.
var (
	ErrTokenTooLarge       = errors.New("token too large")
	ErrTokenMalformed      = errors.New("token malformed")
	ErrAlgorithm           = errors.New("token algorithm not accepted")
	ErrSignature           = errors.New("token signature invalid")
	ErrTokenExpired        = errors.New("token expired")
	ErrIssuedInFuture      = errors.New("token issued in the future")
	ErrLifetimeTooLong     = errors.New("token lifetime too long")
	ErrLifetimeNotPositive = errors.New("token lifetime not positive")
	ErrCriticalHeader      = errors.New("token header has crit")
	ErrKeyID               = errors.New("token header has kid")
	ErrMissingClaim        = errors.New("token claim missing")
)

// TokenError is the error of a refused token. Its message never holds the
// token or a key.
type TokenError struct {
	Reason error  // one of the Err... values above
	Detail string // what was wrong, and what to do
}

func (e *TokenError) Error() string { return "jwt: " + e.Reason.Error() + ": " + e.Detail }

// Unwrap returns Reason, for errors.Is.
func (e *TokenError) Unwrap() error { return e.Reason }

func refuse(reason error, detail string) *TokenError {
	return &TokenError{Reason: reason, Detail: detail}
}

// Claims are an installation JWT's claims: the registered ones, which
// golang-jwt checks, and the installation's uuid.
type Claims struct {
	jwt.RegisteredClaims
	InstallationUUID string `json:"plugin_installation_uuid"`
}

// UnmarshalJSON holds iat and exp to integers from 0 to MaxClaimSeconds
// before golang-jwt reads them: jwt.NumericDate takes any JSON number, a
// fraction, an exponent or a quoted number too, and encoding/json refuses
// all of these for an int64.
func (c *Claims) UnmarshalJSON(b []byte) error {
	var times struct {
		IssuedAt  *int64 `json:"iat"`
		ExpiresAt *int64 `json:"exp"`
	}
	type plain Claims // without this method
	err := json.Unmarshal(b, &times)
	if err == nil {
		err = json.Unmarshal(b, (*plain)(c))
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && (typeErr.Field == "iat" || typeErr.Field == "exp"):
		return claimRange(typeErr.Field)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return refuse(ErrTokenMalformed, "claim "+typeErr.Field+" has the wrong type")
	case err != nil:
		return refuse(ErrTokenMalformed, "the claims are not a JSON object")
	case times.IssuedAt != nil && (*times.IssuedAt < 0 || *times.IssuedAt > MaxClaimSeconds):
		return claimRange("iat")
	case times.ExpiresAt != nil && (*times.ExpiresAt < 0 || *times.ExpiresAt > MaxClaimSeconds):
		return claimRange("exp")
	}
	return nil
}

func claimRange(claim string) error {
	return refuse(ErrTokenMalformed, fmt.Sprintf("claim %s must be an integer number of seconds from 0 to %d (2^53 - 1)", claim, MaxClaimSeconds))
}

// Validate implements jwt.ClaimsValidator with the rules golang-jwt lacks;
// it checks exp (required), iat and nbf against the clock itself.
func (c *Claims) Validate() error {
	lifetime := int64(auth.TokenLifetime / time.Second)
	switch {
	case c.IssuedAt == nil:
		return refuse(ErrMissingClaim, "claim iat is required")
	case c.ExpiresAt == nil:
		return nil // golang-jwt reports it
	}
	switch life := c.ExpiresAt.Unix() - c.IssuedAt.Unix(); {
	case life <= 0:
		return refuse(ErrLifetimeNotPositive, fmt.Sprintf("exp - iat is %d seconds; exp must come after iat (exp = iat + %d)", life, lifetime))
	case life > lifetime:
		return refuse(ErrLifetimeTooLong, fmt.Sprintf("exp - iat is %d seconds, more than %d", life, lifetime))
	}
	return nil
}

// Verifier checks installation JWTs. It is safe for concurrent use.
type Verifier struct{ parser *jwt.Parser }

// New returns a Verifier that reads the time from now and tolerates leeway
// of clock skew on iat, exp and nbf.
func New(now func() time.Time, leeway time.Duration) *Verifier {
	return &Verifier{jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithStrictDecoding(),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(now),
	)}
}

// Verify checks token, accepting a signature by any of keys (so that a
// plugin's old and new keys both work during a rotation).
func (v *Verifier) Verify(token string, keys ...auth.SecretKey) (*Claims, error) {
	return v.VerifyLookup(token, func(string) ([]auth.SecretKey, error) { return keys, nil })
}

// VerifyLookup checks token like Verify, with the keys lookup returns for
// the (not yet trusted) plugin_installation_uuid claim, as a server does. A
// lookup that returns no key gives the error of a wrong signature, so that
// no answer says whether an installation exists; a lookup error is returned
// wrapped.
func (v *Verifier) VerifyLookup(token string, lookup func(installationUUID string) ([]auth.SecretKey, error)) (*Claims, error) {
	if len(token) > MaxTokenSize {
		return nil, refuse(ErrTokenTooLarge, fmt.Sprintf("%d bytes; the limit is %d", len(token), MaxTokenSize))
	}
	// encoding/base64 skips CR and LF, so a signature with them inserted
	// would still verify.
	if strings.ContainsAny(token, "\r\n") {
		return nil, refuse(ErrTokenMalformed, "a token holds no line break")
	}
	var c Claims
	var lookupErr error
	_, err := v.parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		if _, ok := t.Header["crit"]; ok { // RFC 7515 §4.1.11: no extension is understood
			return nil, refuse(ErrCriticalHeader, `the header has "crit"; no critical extension is understood, so the token is refused`)
		}
		if _, ok := t.Header["kid"]; ok {
			return nil, refuse(ErrKeyID, `the header has "kid"; a plugin's secret keys have no ids, and the token is verified with all of them`)
		}
		if c.InstallationUUID == "" {
			return nil, refuse(ErrMissingClaim, "claim plugin_installation_uuid is required")
		}
		keys, err := lookup(c.InstallationUUID)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		var set jwt.VerificationKeySet
		for _, k := range keys {
			if !k.IsZero() {
				set.Keys = append(set.Keys, []byte(k.Reveal()))
			}
		}
		if len(set.Keys) == 0 {
			return nil, badSignature()
		}
		return set, nil
	})
	switch {
	case err == nil:
		return &c, nil
	case lookupErr != nil:
		return nil, fmt.Errorf("jwt: looking up the keys of the token's installation: %w", lookupErr)
	}
	return nil, classify(err)
}

func badSignature() *TokenError { return refuse(ErrSignature, "no key verifies the signature") }

// classify turns golang-jwt's error into a TokenError by its error values.
func classify(err error) error {
	var own *TokenError
	switch {
	case errors.As(err, &own): // from the claims or the key function
		return own
	case errors.Is(err, jwt.ErrTokenMalformed):
		return refuse(ErrTokenMalformed, "a token is three parts of strict base64url without padding, holding a JSON header and JSON claims")
	case errors.Is(err, jwt.ErrSignatureInvalid): // the HMAC's verdict
		return badSignature()
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		// alg is not among WithValidMethods, or missing, or unknown to golang-jwt.
		return refuse(ErrAlgorithm, `header alg must be exactly "HS256"`)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return refuse(ErrMissingClaim, "claim exp is required")
	case errors.Is(err, jwt.ErrTokenExpired):
		return refuse(ErrTokenExpired, "exp is in the past by more than the leeway; mint a new token")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		return refuse(ErrIssuedInFuture, "iat (or nbf) is in the future by more than the leeway; check the clock of the minting host")
	}
	return refuse(ErrTokenMalformed, "the token cannot be verified")
}
