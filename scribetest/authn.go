package scribetest

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// tokenKind is the kind of credential an operation takes.
type tokenKind int

const (
	kindDeveloper    tokenKind = iota + 1 // a developer key
	kindInstallation                      // an installation JWT
)

func (k tokenKind) String() string {
	if k == kindDeveloper {
		return "a developer key"
	}
	return "an installation JWT"
}

// principal is who a request authenticated as.
type principal struct {
	kind tokenKind
	// developer is the caller of a developer-key request.
	developer scribe.User
	// installation and plugin are the caller of an installation-JWT request.
	installation scribe.PluginInstallation
	plugin       scribe.Plugin
	// scopeName is scope's answer, built once by newPrincipal: principals
	// are cached and shared by requests (verifycache.go), so the string is
	// not built again on every request.
	scopeName string
}

// newPrincipal returns p with its scope name built.
func newPrincipal(p principal) *principal {
	p.scopeName = p.buildScope()
	return &p
}

// scope names the caller for idempotency keys and the rate limiter: a
// developer, or an installation (not the token, which changes every hour
// while the client's retries go on).
func (p *principal) scope() string {
	if p.scopeName != "" {
		return p.scopeName
	}
	return p.buildScope()
}

func (p *principal) buildScope() string {
	if p.kind == kindDeveloper {
		return "developer:" + strconv.FormatInt(p.developer.ID, 10)
	}
	return "installation:" + p.installation.UUID
}

// The RFC 6750 challenges: without an error when no token was given
// (§3.1), with invalid_token when one was given and refused.
const (
	challengeNone    = "Bearer"
	challengeInvalid = `Bearer error="invalid_token"`
)

func unauthorized(code, detail string) *problem {
	return newProblem(http.StatusUnauthorized, code, detail).with("WWW-Authenticate", challengeInvalid)
}

// isJWT reports whether token is to be verified as an installation JWT
// rather than looked up as a developer key: it does not begin with dk_live_
// and has the JWT shape, three parts separated by two dots. Developer keys
// the server issues never contain a dot, and fixtures may not give one that
// looks like a JWT.
func isJWT(token string) bool {
	return !strings.HasPrefix(token, auth.DeveloperKeyPrefix) && strings.Count(token, ".") == 2
}

// authenticate finds who the request's bearer token belongs to. The verdict
// is kept with the request, so the rate limiter and the operation share one
// verification. info is the request's reqInfo (infoOf).
func (s *Server) authenticate(info *reqInfo, r *http.Request) (*principal, *problem) {
	if !info.authed {
		info.caller, info.authProblem = s.authenticateHeader(r, s.requestTime(info))
		info.authed = true
	}
	return info.caller, info.authProblem
}

// authenticateHeader authenticates r's Authorization header at now, the
// request's time.
func (s *Server) authenticateHeader(r *http.Request, now time.Time) (*principal, *problem) {
	values := r.Header["Authorization"] // the canonical key: Values would canonicalize it on every request
	if len(values) == 0 {
		return nil, newProblem(http.StatusUnauthorized, scribe.CodeMissingToken,
			"the request has no Authorization header; send Authorization: Bearer <token>").with("WWW-Authenticate", challengeNone)
	}
	if len(values) > 1 {
		return nil, unauthorized(scribe.CodeInvalidToken, "the request has more than one Authorization header; send exactly one")
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, newProblem(http.StatusUnauthorized, scribe.CodeMissingToken,
			"the Authorization header does not use the Bearer scheme; send Authorization: Bearer <token>").with("WWW-Authenticate", challengeNone)
	}
	token = strings.TrimLeft(token, " ")
	if token == "" {
		return nil, newProblem(http.StatusUnauthorized, scribe.CodeMissingToken,
			"the Authorization header has no token after Bearer").with("WWW-Authenticate", challengeNone)
	}
	if isJWT(token) {
		return s.authenticateJWTAt(token, now)
	}
	return s.authenticateDeveloper(token)
}

// authenticateDeveloper looks a developer key up. A key that authenticated
// before is answered from the developer cache (verifycache.go) while no
// user or developer key has changed since; otherwise the store is asked and
// the principal cached.
func (s *Server) authenticateDeveloper(token string) (*principal, *problem) {
	gen := s.st.userGen.Load() // before reading the store: a later change shows as a newer generation
	if p, ok := s.developers.get(token, gen); ok {
		return p, nil
	}
	dev, ok := s.st.developerByKeyHash(hashKey(token))
	if !ok {
		return nil, unauthorized(scribe.CodeInvalidToken, "the token is neither a known developer key nor an installation JWT")
	}
	p := newPrincipal(principal{kind: kindDeveloper, developer: dev})
	s.developers.put(token, gen, p)
	return p, nil
}

// authenticateJWT verifies an installation JWT with every rule of CONTRACT
// §4. A token verified before is taken from the verification cache, with
// whatever can have changed since checked again: the time rules at the
// clock's now, the plugin's keys (a deleted key sends the token back to a
// full verification), the installation and the plugin. What the token names
// (a deleted installation, a disabled plugin) is only told once the
// signature has verified, so a forged token learns nothing.
func (s *Server) authenticateJWT(token string) (*principal, *problem) {
	return s.authenticateJWTAt(token, s.clock.Now())
}

// authenticateJWTAt is authenticateJWT with the cached token's time rules
// checked at now, the request's time.
func (s *Server) authenticateJWTAt(token string, now time.Time) (*principal, *problem) {
	if v, ok := s.verified.get(token); ok && v.fresh(now) {
		gen := s.st.authGen.Load() // before reading the store: a later change shows as a newer generation
		if p, ok := v.callerAt(gen); ok {
			return p, nil
		}
		if c, ok := s.st.credentialsFor(v.uuid); ok && v.keysCurrent(c.keys) {
			p, prob := installationPrincipal(c)
			if prob == nil {
				v.caller.Store(&cachedCaller{gen: gen, p: p})
			}
			return p, prob
		}
	}
	c, p := s.verifyJWT(token)
	if p != nil {
		s.verified.remove(token)
		return nil, p
	}
	return installationPrincipal(c)
}

// verifyJWT verifies token in full with package auth, taking the keys of
// the installation it names from the store, and caches what it proved.
func (s *Server) verifyJWT(token string) (credentials, *problem) {
	var found credentials
	claims, err := s.verifier.VerifyLookup(token, func(uuid string) ([]auth.SecretKey, error) {
		c, ok := s.st.credentialsFor(strings.ToLower(uuid))
		if !ok {
			return nil, nil // no keys: refused exactly like a bad signature
		}
		keys := make([]auth.SecretKey, 0, len(c.keys))
		for _, v := range c.keys {
			k, err := auth.ParseSecretKey(v)
			if err != nil {
				return nil, fmt.Errorf("stored secret key of plugin %d does not parse: %w", c.plugin.ID, err)
			}
			keys = append(keys, k)
		}
		found = c
		return keys, nil
	})
	if err != nil {
		return credentials{}, tokenProblem(err)
	}
	s.verified.put(token, &verifiedToken{
		uuid: found.installation.UUID,
		iat:  claims.IssuedAt,
		exp:  claims.ExpiresAt,
		keys: found.keys,
	}, s.clock.Now())
	return found, nil
}

// installationPrincipal is the caller a verified JWT speaks for, unless its
// installation is uninstalled (401) or its plugin disabled (403).
func installationPrincipal(found credentials) (*principal, *problem) {
	switch {
	case found.installation.DeletedOn != nil:
		return nil, unauthorized(scribe.CodeInstallationDeleted,
			"the installation the token names was uninstalled on "+found.installation.DeletedOn.Format("2006-01-02T15:04:05Z07:00")+"; stop calling for it")
	case found.plugin.Disabled:
		return nil, newProblem(http.StatusForbidden, scribe.CodePluginDisabled,
			fmt.Sprintf("plugin %d is disabled; its installations cannot call the service", found.plugin.ID))
	}
	return newPrincipal(principal{kind: kindInstallation, installation: found.installation, plugin: found.plugin}), nil
}

// tokenProblem maps a refusal of package auth to a problem. The detail is
// written here, from the reason alone, so that nothing of the token shows.
func tokenProblem(err error) *problem {
	switch {
	case errors.Is(err, auth.ErrTokenExpired):
		return unauthorized(scribe.CodeTokenExpired, "the installation JWT has expired; mint a new one")
	case errors.Is(err, auth.ErrIssuedInFuture):
		return unauthorized(scribe.CodeTokenExpired, "the installation JWT is not valid yet: its iat is in the future; check the clock of the machine that minted it")
	case errors.Is(err, auth.ErrLifetimeTooLong):
		return unauthorized(scribe.CodeInvalidToken, "the installation JWT's exp is more than 3600 seconds after its iat")
	case errors.Is(err, auth.ErrLifetimeNotPositive):
		return unauthorized(scribe.CodeInvalidToken, "the installation JWT's exp is not after its iat; exp must be iat + 3600")
	case errors.Is(err, auth.ErrTokenTooLarge):
		return unauthorized(scribe.CodeInvalidToken, fmt.Sprintf("the token is larger than %d bytes", auth.MaxTokenSize))
	case errors.Is(err, auth.ErrAlgorithm):
		return unauthorized(scribe.CodeInvalidToken, `the installation JWT's alg must be "HS256"`)
	case errors.Is(err, auth.ErrMissingClaim):
		return unauthorized(scribe.CodeInvalidToken, "the installation JWT lacks iat, exp or plugin_installation_uuid")
	case errors.Is(err, auth.ErrTokenMalformed):
		return unauthorized(scribe.CodeInvalidToken, "the token is not a well-formed JWT (three base64url parts holding a JSON header and JSON claims)")
	case errors.Is(err, auth.ErrSignature):
		return unauthorized(scribe.CodeInvalidToken, "the installation JWT's signature does not verify with any current secret key of the installation's plugin (or no such installation exists)")
	}
	return newProblem(http.StatusInternalServerError, scribe.CodeInternalError, "verifying the token failed; report the request id")
}

// checkKind answers 403 wrong_token_kind when the caller's credential is not
// the kind the operation takes.
func checkKind(p *principal, want tokenKind) *problem {
	if p.kind == want {
		return nil
	}
	return newProblem(http.StatusForbidden, scribe.CodeWrongTokenKind,
		fmt.Sprintf("this operation takes %s, and the request sent %s", want, p.kind))
}
