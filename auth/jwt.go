package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenLifetime is how long an installation JWT is valid: exp = iat + 3600.
// The service refuses tokens whose exp - iat is longer.
const TokenLifetime = time.Hour

// tokenLifetimeSeconds is TokenLifetime as claim arithmetic uses it.
const tokenLifetimeSeconds = int64(TokenLifetime / time.Second)

// maxClaimSeconds is the largest iat or exp the service accepts: 2^53 - 1,
// the largest integer a JSON number holds exactly everywhere (RFC 7493).
const maxClaimSeconds = 1<<53 - 1

// ErrInvalidInstallationUUID is matched by errors.Is when an installation
// uuid passed to Mint, NewTokenSource or Cache.Source is not in the RFC 4122
// text form (8-4-4-4-12 hexadecimal digits).
var ErrInvalidInstallationUUID = errors.New("invalid installation uuid")

// The names of the claims, as they appear in the token.
const (
	claimIssuedAt         = "iat"
	claimExpiresAt        = "exp"
	claimInstallationUUID = "plugin_installation_uuid"
)

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
	return mint(key, installationUUID, now.Unix())
}

// ErrTimeOutOfRange is matched by errors.Is when Mint, or a TokenSource
// reading its clock, is asked to issue a token at a time the service
// refuses: iat and exp (iat + 3600) must lie in [0, 2^53 - 1].
var ErrTimeOutOfRange = errors.New("time out of range")

// checkIssuedAt refuses an iat whose token the service would refuse.
func checkIssuedAt(iat int64) error {
	if iat < 0 || iat > maxClaimSeconds-tokenLifetimeSeconds {
		return fmt.Errorf("auth: %w: iat %d is outside [0, %d]: iat and exp (iat + %d) must lie in [0, 2^53-1], the range the service accepts",
			ErrTimeOutOfRange, iat, maxClaimSeconds-tokenLifetimeSeconds, tokenLifetimeSeconds)
	}
	return nil
}

// mint signs the token issued at iat with golang-jwt. The header is
// {"alg":"HS256","typ":"JWT"} and MapClaims are written with their keys
// sorted (exp, iat, plugin_installation_uuid), so a token is determined by
// the key, the uuid and iat; the golden tests pin its bytes.
func mint(key SecretKey, uuid string, iat int64) (string, error) {
	if err := checkIssuedAt(iat); err != nil {
		return "", err
	}
	claims := jwt.MapClaims{
		claimExpiresAt:        iat + tokenLifetimeSeconds,
		claimIssuedAt:         iat,
		claimInstallationUUID: uuid,
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key.bytes())
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
