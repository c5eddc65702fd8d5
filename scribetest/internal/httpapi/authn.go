package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// kind is the kind of credential: an operation takes one of them.
type kind int

// The two kinds of credential.
const (
	developerKey    kind = iota + 1 // a developer key
	installationJWT                 // an installation JWT
)

func (k kind) String() string {
	if k == developerKey {
		return "a developer key"
	}
	return "an installation JWT"
}

// principal is who a request authenticated as.
type principal struct {
	Kind         kind
	Developer    scribe.User               // the caller of a developer-key request
	Installation scribe.PluginInstallation // the caller of an installation-JWT request
	Plugin       scribe.Plugin             // and its plugin
	Scope        string                    // the holder (not the hourly token), for idempotency keys and the rate limit
}

// The RFC 6750 challenges, when no token was given and when one was refused.
const (
	challengeNone    = "Bearer"
	challengeInvalid = `Bearer error="invalid_token"`
)

// A credential refused is answered with a problem whose detail quotes
// nothing of the token.

func unauthorized(code, detail string) *problem {
	return newProblem(http.StatusUnauthorized, code, detail).with("WWW-Authenticate", challengeInvalid)
}

func missing(detail string) *problem {
	return newProblem(http.StatusUnauthorized, scribe.CodeMissingToken, detail).with("WWW-Authenticate", challengeNone)
}

// authenticator tells who a request's bearer token belongs to: a developer
// (a developer key) or an installation (a JWT verified with
// internal/jwtverify against the plugin's current secret keys, read from the
// state).
type authenticator struct {
	st       *state.Store
	verifier *jwtverify.Verifier
}

// authenticate finds who the Authorization header values belong to.
func (a authenticator) authenticate(values []string) (*principal, *problem) {
	if len(values) == 0 {
		return nil, missing("the request has no Authorization header; send Authorization: Bearer <token>")
	}
	if len(values) > 1 {
		return nil, unauthorized(scribe.CodeInvalidToken, "the request has more than one Authorization header; send exactly one")
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, missing("the Authorization header does not use the Bearer scheme; send Authorization: Bearer <token>")
	}
	if token = strings.TrimLeft(token, " "); token == "" {
		return nil, missing("the Authorization header has no token after Bearer")
	}
	if state.LooksLikeJWT(token) {
		return a.installation(token)
	}
	dev, ok := a.st.DeveloperByKey(token)
	if !ok {
		return nil, unauthorized(scribe.CodeInvalidToken, "the token is neither a known developer key nor an installation JWT")
	}
	return &principal{Kind: developerKey, Developer: dev, Scope: "developer:" + strconv.FormatInt(dev.ID, 10)}, nil
}

// installation verifies an installation JWT (docs/contract.md, "Tokens");
// what the token names is told only once its signature verifies. A token
// that verifies but is refused (an uninstalled installation, a disabled
// plugin) comes with its principal too, for the request log.
func (a authenticator) installation(token string) (*principal, *problem) {
	var in scribe.PluginInstallation
	var p scribe.Plugin
	_, err := a.verifier.VerifyLookup(token, func(uuid string) ([]auth.SecretKey, error) {
		var keys []auth.SecretKey
		in, p, keys = a.st.CredentialsFor(strings.ToLower(uuid))
		return keys, nil // none: refused exactly like a bad signature
	})
	if err != nil {
		return nil, tokenRefusal(err)
	}
	caller := &principal{Kind: installationJWT, Installation: in, Plugin: p, Scope: "installation:" + in.UUID}
	switch {
	case in.DeletedOn != nil:
		return caller, unauthorized(scribe.CodeInstallationDeleted,
			"the installation the token names was uninstalled on "+in.DeletedOn.Format(time.RFC3339)+"; stop calling for it")
	case p.Disabled:
		return caller, newProblem(http.StatusForbidden, scribe.CodePluginDisabled,
			fmt.Sprintf("plugin %d is disabled; its installations cannot call the service", p.ID))
	}
	return caller, nil
}

// tokenRefusal maps a refusal of the verifier to a 401 that shows nothing of the token.
func tokenRefusal(err error) *problem {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return unauthorized(r.code, r.detail)
		}
	}
	return internalError("verifying the token failed")
}

var refusals = []struct {
	err          error
	code, detail string
}{
	{jwtverify.ErrTokenExpired, scribe.CodeTokenExpired, "the installation JWT has expired; mint a new one"},
	{jwtverify.ErrIssuedInFuture, scribe.CodeTokenExpired, "the installation JWT is not valid yet: its iat (or nbf) is in the future; check the clock of the machine that minted it"},
	{jwtverify.ErrLifetimeTooLong, scribe.CodeInvalidToken, "the installation JWT's exp is more than 3600 seconds after its iat"},
	{jwtverify.ErrLifetimeNotPositive, scribe.CodeInvalidToken, "the installation JWT's exp is not after its iat; exp must be iat + 3600"},
	{jwtverify.ErrTokenTooLarge, scribe.CodeInvalidToken, fmt.Sprintf("the token is larger than %d bytes", jwtverify.MaxTokenSize)},
	{jwtverify.ErrAlgorithm, scribe.CodeInvalidToken, `the installation JWT's alg must be "HS256"`},
	{jwtverify.ErrCriticalHeader, scribe.CodeInvalidToken, `the installation JWT's header has "crit"; the service understands no critical extension, so it refuses the token`},
	{jwtverify.ErrKeyID, scribe.CodeInvalidToken, `the installation JWT's header has "kid"; a plugin's secret keys have no ids, so leave it out`},
	{jwtverify.ErrMissingClaim, scribe.CodeInvalidToken, "the installation JWT lacks iat, exp or plugin_installation_uuid"},
	{jwtverify.ErrTokenMalformed, scribe.CodeInvalidToken, "the token is not a well-formed JWT (three base64url parts holding a JSON header and JSON claims)"},
	{jwtverify.ErrSignature, scribe.CodeInvalidToken, "the installation JWT's signature does not verify with any current secret key of the installation's plugin (or no such installation exists)"},
}

// checkKind refuses a caller of the wrong kind: 403 wrong_token_kind.
func checkKind(p *principal, want kind) *problem {
	if p.Kind == want {
		return nil
	}
	return newProblem(http.StatusForbidden, scribe.CodeWrongTokenKind,
		fmt.Sprintf("this operation takes %s, and the request sent %s", want, p.Kind))
}
