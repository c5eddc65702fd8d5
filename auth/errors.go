package auth

import "errors"

// The reasons a token is refused. Verification errors are *TokenError values
// whose Reason is one of these, so callers branch with errors.Is.
var (
	// ErrTokenTooLarge means the token is longer than MaxTokenSize bytes. It is
	// refused before any parsing.
	ErrTokenTooLarge = errors.New("token too large")
	// ErrTokenMalformed means the token is not three segments of strict base64url
	// (no padding) holding a JSON header and JSON claims, or a claim has the
	// wrong type, or iat or exp lies outside [0, MaxClaimSeconds].
	ErrTokenMalformed = errors.New("token malformed")
	// ErrAlgorithm means the header's alg is not exactly "HS256".
	ErrAlgorithm = errors.New("token algorithm not accepted")
	// ErrSignature means no candidate key verifies the signature. It is also what
	// VerifyLookup returns when the lookup finds no key, so that whether an
	// installation exists never shows.
	ErrSignature = errors.New("token signature invalid")
	// ErrTokenExpired means exp is in the past by more than the leeway.
	ErrTokenExpired = errors.New("token expired")
	// ErrIssuedInFuture means iat is in the future by more than the leeway.
	ErrIssuedInFuture = errors.New("token issued in the future")
	// ErrLifetimeTooLong means exp - iat exceeds TokenLifetime.
	ErrLifetimeTooLong = errors.New("token lifetime too long")
	// ErrLifetimeNotPositive means exp is not after iat (exp - iat <= 0).
	ErrLifetimeNotPositive = errors.New("token lifetime not positive")
	// ErrCriticalHeader means the header has "crit" (RFC 7515 §4.1.11): it
	// names extensions a verifier must understand, and this one understands
	// none, so the token is refused whatever crit lists.
	ErrCriticalHeader = errors.New("token header has crit")
	// ErrMissingClaim means exp, iat or plugin_installation_uuid is absent, null or
	// empty.
	ErrMissingClaim = errors.New("token claim missing")
)

// ErrInvalidInstallationUUID is matched by errors.Is when an installation
// uuid passed to Mint, NewTokenSource or Cache.Source is not in the RFC 4122
// text form (8-4-4-4-12 hexadecimal digits).
var ErrInvalidInstallationUUID = errors.New("invalid installation uuid")

// TokenError is the error of a refused token. Its message says what was wrong
// and never contains the token or a key.
type TokenError struct {
	// Reason is one of the sentinel errors above (ErrSignature, ...).
	Reason error
	// Detail says more, such as which claim is missing; it may be empty.
	Detail string
}

// Error returns "auth: <reason>: <detail>".
func (e *TokenError) Error() string {
	msg := "auth: " + e.Reason.Error()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns Reason, so errors.Is(err, ErrTokenExpired) and the like work.
func (e *TokenError) Unwrap() error { return e.Reason }

func tokenError(reason error, detail string) *TokenError {
	return &TokenError{Reason: reason, Detail: detail}
}
