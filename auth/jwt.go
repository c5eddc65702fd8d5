package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// TokenLifetime is how long an installation JWT is valid: exp = iat + 3600.
// Verification refuses tokens whose exp - iat is longer.
const TokenLifetime = time.Hour

// tokenLifetimeSeconds is TokenLifetime as claim arithmetic uses it.
const tokenLifetimeSeconds = int64(TokenLifetime / time.Second)

// headerSegment is base64url(`{"alg":"HS256","typ":"JWT"}`): the header of
// every token Mint produces, byte for byte what golang-jwt writes for HS256.
const headerSegment = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

// The names of the claims, as they appear in the token.
const (
	claimIssuedAt         = "iat"
	claimExpiresAt        = "exp"
	claimInstallationUUID = "plugin_installation_uuid"
)

// Claims are the verified contents of an installation JWT.
type Claims struct {
	// InstallationUUID is the plugin_installation_uuid claim: the installation
	// the token speaks for.
	InstallationUUID string
	// IssuedAt and ExpiresAt are the iat and exp claims, in UTC.
	IssuedAt, ExpiresAt time.Time
}

// Mint returns an installation JWT for installationUUID, signed with key:
// header {"alg":"HS256","typ":"JWT"}, claims iat (now, in whole seconds),
// exp (iat + 3600) and plugin_installation_uuid. The uuid must be in the
// RFC 4122 text form (8-4-4-4-12 hexadecimal digits, either case); it is
// written as given.
//
// Most callers want a TokenSource, which mints once and reuses the token until
// shortly before it expires.
func Mint(key SecretKey, installationUUID string, now time.Time) (string, error) {
	if key.IsZero() {
		return "", keyError("secret key", "is the zero value; create it with ParseSecretKey")
	}
	if err := checkInstallationUUID(installationUUID); err != nil {
		return "", err
	}
	if now.IsZero() {
		return "", errors.New("auth: the time to mint at is the zero time; pass time.Now()")
	}
	iat := now.Unix()
	if iat > math.MaxInt64-tokenLifetimeSeconds {
		return "", errors.New("auth: the time to mint at is too far in the future to express exp")
	}
	return mint(key, installationUUID, iat), nil
}

// mint builds the token directly: the header is a constant and the claims are
// three known fields, so JSON encoding through reflection (what
// jwt.NewWithClaims does) would only cost time. The output is byte for byte
// what golang-jwt produces for the same MapClaims; the tests prove it.
func mint(key SecretKey, uuid string, iat int64) string {
	var claims [160]byte
	p := append(claims[:0], `{"exp":`...)
	p = strconv.AppendInt(p, iat+tokenLifetimeSeconds, 10)
	p = append(p, `,"iat":`...)
	p = strconv.AppendInt(p, iat, 10)
	p = append(p, `,"`+claimInstallationUUID+`":"`...)
	p = append(p, uuid...) // hexadecimal and '-' only: nothing to escape
	p = append(p, `"}`...)

	enc := base64.RawURLEncoding
	size := len(headerSegment) + 1 + enc.EncodedLen(len(p)) + 1 + enc.EncodedLen(sha256.Size)
	buf := make([]byte, 0, size)
	buf = append(buf, headerSegment...)
	buf = append(buf, '.')
	buf = enc.AppendEncode(buf, p)

	mac := hmac.New(sha256.New, key.bytes())
	mac.Write(buf)
	var sum [sha256.Size]byte
	buf = append(buf, '.')
	buf = enc.AppendEncode(buf, mac.Sum(sum[:0]))
	// buf is never written again, so it can back the string without a copy,
	// as strings.Builder does.
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// checkInstallationUUID checks the RFC 4122 text form: 36 characters,
// hexadecimal digits in groups of 8-4-4-4-12 separated by '-'.
func checkInstallationUUID(s string) error {
	if len(s) != 36 {
		return fmt.Errorf("auth: %w: must be 36 characters in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got %d characters", ErrInvalidInstallationUUID, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return fmt.Errorf("auth: %w: must have '-' at position %d (form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", ErrInvalidInstallationUUID, i)
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return fmt.Errorf("auth: %w: has a non-hexadecimal character at position %d", ErrInvalidInstallationUUID, i)
			}
		}
	}
	return nil
}
