package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MaxTokenSize is the longest token, in bytes, a Verifier parses. Longer
// tokens are refused with ErrTokenTooLarge before any decoding.
const MaxTokenSize = 8 << 10

// DefaultLeeway is the clock skew a Verifier tolerates on iat and exp unless
// WithLeeway says otherwise; the service uses the same.
const DefaultLeeway = 60 * time.Second

// Verifier checks installation JWTs by the service's rules: alg exactly
// HS256; a signature by one of the candidate keys; iat and exp present
// integers from 0 to MaxClaimSeconds; iat not in the future and exp not in
// the past, each with the leeway; 0 < exp - iat <= TokenLifetime; plugin_installation_uuid present, a
// non-empty string; at most MaxTokenSize bytes, in strict base64url without
// padding. Other claims (nbf, aud, iss, sub, jti) are ignored.
//
// A Verifier is safe for concurrent use. Create it with NewVerifier; the zero
// Verifier behaves like NewVerifier().
type Verifier struct {
	leeway time.Duration
	clock  func() time.Time
	parser *jwt.Parser
}

// NewVerifier returns a Verifier with the default leeway and time.Now,
// changed by opts.
func NewVerifier(opts ...VerifierOption) *Verifier {
	v := &Verifier{leeway: DefaultLeeway, clock: time.Now}
	for _, o := range opts {
		o.applyVerifier(v)
	}
	v.parser = newParser(v.leeway, v.clock)
	return v
}

func newParser(leeway time.Duration, clock func() time.Time) *jwt.Parser {
	return jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithStrictDecoding(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(clock),
		jwt.WithIssuedAt(),
		jwt.WithExpirationRequired(),
	)
}

func (v *Verifier) jwtParser() *jwt.Parser {
	if v == nil || v.parser == nil {
		return newParser(DefaultLeeway, time.Now)
	}
	return v.parser
}

// Verify checks token and returns its claims. The token is accepted if any
// of keys verifies its signature, so that a plugin's old and new keys both
// work during a rotation. A refused token gives a *TokenError whose Reason
// is one of the Err... sentinels.
func (v *Verifier) Verify(token string, keys ...SecretKey) (Claims, error) {
	return v.verify(token, false, func(string) ([]SecretKey, error) { return keys, nil })
}

// VerifyLookup checks token like Verify, taking the candidate keys from
// lookup: after the size and form checks it reads the
// plugin_installation_uuid claim (not yet trusted), calls lookup with it to
// get the current secret keys of that installation's plugin, verifies the
// signature with them, then applies the time rules.
//
// An error from lookup is returned wrapped (errors.Is and errors.As reach it),
// for the caller to map. A lookup that returns no keys gives ErrSignature,
// exactly like a wrong signature, so a caller cannot tell whether an
// installation exists.
func (v *Verifier) VerifyLookup(token string, lookup func(installationUUID string) ([]SecretKey, error)) (Claims, error) {
	return v.verify(token, true, lookup)
}

// noKey stands in when there is no candidate key, so that an unknown
// installation costs an HMAC like a known one. Its verdict is never used: no
// key always means ErrSignature.
var noKey = []byte("auth: no candidate key")

func (v *Verifier) verify(token string, needUUID bool, lookup func(string) ([]SecretKey, error)) (Claims, error) {
	if len(token) > MaxTokenSize {
		return Claims{}, tokenError(ErrTokenTooLarge, fmt.Sprintf("%d bytes; the limit is %d", len(token), MaxTokenSize))
	}
	if err := checkTokenAlphabet(token); err != nil {
		return Claims{}, err
	}

	var (
		c         wireClaims
		lookupErr error
		early     *TokenError // a refusal decided inside the key function
		noKeys    bool
	)
	keyFunc := func(t *jwt.Token) (any, error) {
		if _, ok := t.Header["crit"]; ok {
			// RFC 7515 §4.1.11: a recipient must refuse a token whose crit
			// names an extension it does not understand, and this verifier
			// understands none ("b64": false among them, RFC 7797).
			early = tokenError(ErrCriticalHeader, `the header has "crit"; no critical extension is understood, so the token is refused`)
			return nil, early
		}
		uuid := ""
		if c.UUID != nil {
			uuid = *c.UUID
		}
		if needUUID && uuid == "" {
			early = tokenError(ErrMissingClaim, "claim "+claimInstallationUUID+" is required")
			return nil, early
		}
		keys, err := lookup(uuid)
		if err != nil {
			lookupErr = err
			return nil, err
		}
		set := jwt.VerificationKeySet{Keys: make([]jwt.VerificationKey, 0, max(len(keys), 1))}
		for _, k := range keys {
			if !k.IsZero() {
				set.Keys = append(set.Keys, k.bytes())
			}
		}
		if len(set.Keys) == 0 {
			noKeys = true
			set.Keys = append(set.Keys, noKey)
		}
		return set, nil
	}

	tok, err := v.jwtParser().ParseWithClaims(token, &c, keyFunc)
	switch {
	case err == nil && !noKeys:
		return c.claims(), nil
	case lookupErr != nil:
		return Claims{}, fmt.Errorf("auth: looking up the keys of the token's installation: %w", lookupErr)
	case early != nil:
		return Claims{}, early
	case noKeys:
		return Claims{}, tokenError(ErrSignature, "no key verifies the signature")
	}
	return Claims{}, classify(tok, err)
}

// checkTokenAlphabet refuses any byte outside base64url and '.'. The base64
// decoder skips '\r' and '\n', which would let a signature segment be
// altered without failing verification; nothing else in a JWT may hold them.
func checkTokenAlphabet(token string) error {
	if token == "" {
		return tokenError(ErrTokenMalformed, "token is empty")
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; !isBase64URL(c) && c != '.' {
			return tokenError(ErrTokenMalformed, fmt.Sprintf("character at position %d is outside base64url without padding", i))
		}
	}
	return nil
}

// classify turns golang-jwt's error into a TokenError. Checks run in the order
// golang-jwt applies them: form, algorithm, signature, then claims.
func classify(tok *jwt.Token, err error) error {
	var typeErr *claimTypeError
	var jsonTypeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		switch {
		case tok == nil:
			return tokenError(ErrTokenMalformed, "a token is three base64url segments separated by '.'")
		case tok.Header == nil:
			return tokenError(ErrTokenMalformed, "header is not a base64url-encoded JSON object")
		case errors.As(err, &typeErr):
			return tokenError(ErrTokenMalformed, typeErr.Error())
		case errors.As(err, &jsonTypeErr) && jsonTypeErr.Field == claimInstallationUUID:
			return tokenError(ErrTokenMalformed, "claim "+claimInstallationUUID+" must be a string")
		case tok.Method == nil:
			return tokenError(ErrTokenMalformed, "claims are not a base64url-encoded JSON object")
		default:
			return tokenError(ErrTokenMalformed, "signature is not base64url without padding")
		}
	case tok == nil:
		return tokenError(ErrTokenMalformed, "token cannot be parsed")
	case tok.Header["alg"] != jwt.SigningMethodHS256.Alg():
		alg, _ := tok.Header["alg"].(string)
		if alg == "" {
			return tokenError(ErrAlgorithm, `header alg is missing or not a string; only "HS256" is accepted`)
		}
		return tokenError(ErrAlgorithm, fmt.Sprintf(`header alg is %q; only "HS256" is accepted`, truncate(alg, 16)))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return tokenError(ErrSignature, "no key verifies the signature")
	}

	var own *TokenError
	switch {
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return tokenError(ErrMissingClaim, "claim "+claimExpiresAt+" is required")
	case errors.As(err, &own):
		return own
	case errors.Is(err, jwt.ErrTokenExpired):
		return tokenError(ErrTokenExpired, "exp is in the past by more than the leeway; mint a new token")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return tokenError(ErrIssuedInFuture, "iat is in the future by more than the leeway; check the clock of the minting host")
	}
	return tokenError(ErrTokenMalformed, "token cannot be verified")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// wireClaims is what the token carries. Pointers tell absent (or null)
// claims from zero ones.
type wireClaims struct {
	ExpiresAt *expSeconds `json:"exp"`
	IssuedAt  *iatSeconds `json:"iat"`
	UUID      *string     `json:"plugin_installation_uuid"`
}

func (c *wireClaims) claims() Claims {
	return Claims{
		InstallationUUID: *c.UUID,
		IssuedAt:         time.Unix(int64(*c.IssuedAt), 0).UTC(),
		ExpiresAt:        time.Unix(int64(*c.ExpiresAt), 0).UTC(),
	}
}

// GetExpirationTime implements jwt.Claims.
func (c *wireClaims) GetExpirationTime() (*jwt.NumericDate, error) {
	if c.ExpiresAt == nil {
		return nil, nil
	}
	return jwt.NewNumericDate(time.Unix(int64(*c.ExpiresAt), 0)), nil
}

// GetIssuedAt implements jwt.Claims.
func (c *wireClaims) GetIssuedAt() (*jwt.NumericDate, error) {
	if c.IssuedAt == nil {
		return nil, nil
	}
	return jwt.NewNumericDate(time.Unix(int64(*c.IssuedAt), 0)), nil
}

// GetNotBefore implements jwt.Claims; nbf is not part of the contract.
func (c *wireClaims) GetNotBefore() (*jwt.NumericDate, error) { return nil, nil }

// GetIssuer implements jwt.Claims; iss is not part of the contract.
func (c *wireClaims) GetIssuer() (string, error) { return "", nil }

// GetSubject implements jwt.Claims; sub is not part of the contract.
func (c *wireClaims) GetSubject() (string, error) { return "", nil }

// GetAudience implements jwt.Claims; aud is not part of the contract.
func (c *wireClaims) GetAudience() (jwt.ClaimStrings, error) { return nil, nil }

// Validate implements jwt.ClaimsValidator: the rules golang-jwt lacks. It
// runs after the signature is verified, beside golang-jwt's exp and iat
// checks, and its refusal comes first. iat and exp are already known to lie
// in [0, MaxClaimSeconds] (parseSeconds), so exp - iat cannot overflow.
func (c *wireClaims) Validate() error {
	switch {
	case c.IssuedAt == nil:
		return tokenError(ErrMissingClaim, "claim "+claimIssuedAt+" is required")
	case c.UUID == nil || *c.UUID == "":
		return tokenError(ErrMissingClaim, "claim "+claimInstallationUUID+" is required")
	case c.ExpiresAt == nil:
		return nil // golang-jwt reports it (WithExpirationRequired)
	}
	switch life := int64(*c.ExpiresAt) - int64(*c.IssuedAt); {
	case life <= 0:
		return tokenError(ErrLifetimeNotPositive, fmt.Sprintf("exp - iat is %d seconds; exp must come after iat (exp = iat + %d)", life, tokenLifetimeSeconds))
	case life > tokenLifetimeSeconds:
		return tokenError(ErrLifetimeTooLong, fmt.Sprintf("exp - iat is %d seconds, more than %d", life, tokenLifetimeSeconds))
	}
	return nil
}

// MaxClaimSeconds is the largest iat or exp a Verifier accepts: 2^53 - 1,
// the largest integer a JSON number holds exactly in every implementation
// (RFC 7493, I-JSON). Together with the lower bound 0 it keeps every time
// computation on the claims (time.Unix, the leeway, exp - iat) far from
// overflowing int64.
const MaxClaimSeconds = 1<<53 - 1

// expSeconds and iatSeconds are the exp and iat claims. The contract makes
// them integers, so unlike jwt.NumericDate (which takes any JSON number,
// fractions included) they accept only an integer literal from 0 to
// MaxClaimSeconds; a fraction, an exponent, a quoted number or a value
// outside that range is refused as malformed.
type (
	expSeconds int64
	iatSeconds int64
)

func (s *expSeconds) UnmarshalJSON(b []byte) error {
	n, err := parseSeconds(claimExpiresAt, b)
	*s = expSeconds(n)
	return err
}

func (s *iatSeconds) UnmarshalJSON(b []byte) error {
	n, err := parseSeconds(claimIssuedAt, b)
	*s = iatSeconds(n)
	return err
}

// claimTypeError says a claim has the wrong JSON type or is out of range.
type claimTypeError struct {
	claim      string
	outOfRange bool
}

func (e *claimTypeError) Error() string {
	if e.outOfRange {
		return fmt.Sprintf("claim %s must be an integer number of seconds from 0 to %d (2^53 - 1)", e.claim, MaxClaimSeconds)
	}
	return "claim " + e.claim + " must be an integer number of seconds"
}

// parseSeconds reads an integer literal in [0, MaxClaimSeconds]. JSON null
// never reaches it (encoding/json leaves the pointer nil).
func parseSeconds(claim string, b []byte) (int64, error) {
	// JSON integers are "-"? digits; ParseInt also takes a leading '+', which
	// JSON does not. Anything else (a fraction, an exponent, a string) is a
	// syntax error to ParseInt: the wrong type.
	if len(b) == 0 || b[0] == '+' {
		return 0, &claimTypeError{claim: claim}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange), err == nil && (n < 0 || n > MaxClaimSeconds):
		return 0, &claimTypeError{claim: claim, outOfRange: true}
	case err != nil:
		return 0, &claimTypeError{claim: claim}
	}
	return n, nil
}
