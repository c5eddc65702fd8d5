// Package authn tells who a request's bearer token belongs to: a developer
// (a developer key) or an installation (a JWT verified with package auth
// against the plugin's current secret keys). It reads only the state.
package authn

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Kind is the kind of credential: an operation takes one of them.
type Kind int

// The two kinds of credential.
const (
	Developer    Kind = iota + 1 // a developer key
	Installation                 // an installation JWT
)

func (k Kind) String() string {
	if k == Developer {
		return "a developer key"
	}
	return "an installation JWT"
}

// Principal is who a request authenticated as; shared, read only.
type Principal struct {
	Kind         Kind
	Developer    scribe.User               // the caller of a developer-key request
	Installation scribe.PluginInstallation // the caller of an installation-JWT request
	Plugin       scribe.Plugin             // and its plugin
	Scope        string                    // the holder (not the hourly token), for idempotency keys and the rate limit
}

// Refusal is why a credential was refused; Detail quotes nothing of the token.
type Refusal struct {
	Status    int
	Code      string
	Detail    string
	Challenge string
}

// The RFC 6750 challenges, when no token was given and when one was refused.
const (
	challengeNone    = "Bearer"
	challengeInvalid = `Bearer error="invalid_token"`
)

func unauthorized(code, detail string) *Refusal {
	return &Refusal{Status: http.StatusUnauthorized, Code: code, Detail: detail, Challenge: challengeInvalid}
}

func missing(detail string) *Refusal {
	return &Refusal{Status: http.StatusUnauthorized, Code: scribe.CodeMissingToken, Detail: detail, Challenge: challengeNone}
}

// maxCached bounds the cache of verified tokens (about one per active installation).
const maxCached = 10000

// Authenticator authenticates requests against a store.
type Authenticator struct {
	st       *state.Store
	verifier *auth.Verifier

	mu sync.RWMutex
	// cache holds the principal of each JWT that verified, valid while the
	// state's generation is unchanged. Its look-up compares strings only on
	// a match of the randomly seeded hash: its timing tells a forger nothing.
	cache map[string]cached
}

type cached struct {
	gen      uint64
	iat, exp time.Time
	p        *Principal
}

// New returns an Authenticator of st's credentials.
func New(st *state.Store, v *auth.Verifier) *Authenticator {
	return &Authenticator{st: st, verifier: v, cache: map[string]cached{}}
}

// Authenticate finds who the Authorization header values belong to at now.
func (a *Authenticator) Authenticate(values []string, now time.Time) (*Principal, *Refusal) {
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
		return a.installation(token, now)
	}
	dev, ok := a.st.DeveloperByKey(token)
	if !ok {
		return nil, unauthorized(scribe.CodeInvalidToken, "the token is neither a known developer key nor an installation JWT")
	}
	return &Principal{Kind: Developer, Developer: dev, Scope: "developer:" + strconv.FormatInt(dev.ID, 10)}, nil
}

// installation verifies an installation JWT (docs/contract.md, "Tokens"), or takes the
// cached result; what the token names is told only once its signature verifies.
func (a *Authenticator) installation(token string, now time.Time) (*Principal, *Refusal) {
	gen := a.st.Gen() // before the state is read: a later change shows as a newer generation
	a.mu.RLock()
	c, ok := a.cache[token]
	a.mu.RUnlock()
	if ok && c.gen == gen && now.Before(c.exp.Add(auth.DefaultLeeway)) && !now.Before(c.iat.Add(-auth.DefaultLeeway)) {
		return c.p, nil
	}
	var found state.Credentials
	claims, err := a.verifier.VerifyLookup(token, func(uuid string) ([]auth.SecretKey, error) {
		c, ok := a.st.CredentialsFor(strings.ToLower(uuid))
		found = c
		if !ok {
			return nil, nil // no keys: refused exactly like a bad signature
		}
		return c.Keys, nil
	})
	if err != nil {
		return nil, tokenRefusal(err)
	}
	in, p := found.Installation, found.Plugin
	switch {
	case in.DeletedOn != nil:
		return nil, unauthorized(scribe.CodeInstallationDeleted,
			"the installation the token names was uninstalled on "+in.DeletedOn.Format(time.RFC3339)+"; stop calling for it")
	case p.Disabled:
		return nil, &Refusal{Status: http.StatusForbidden, Code: scribe.CodePluginDisabled,
			Detail: fmt.Sprintf("plugin %d is disabled; its installations cannot call the service", p.ID)}
	}
	pr := &Principal{Kind: Installation, Installation: in, Plugin: p, Scope: "installation:" + in.UUID}
	a.mu.Lock()
	if len(a.cache) >= maxCached {
		clear(a.cache)
	}
	a.cache[strings.Clone(token)] = cached{gen: gen, iat: claims.IssuedAt, exp: claims.ExpiresAt, p: pr}
	a.mu.Unlock()
	return pr, nil
}

// tokenRefusal maps a refusal of package auth to a 401 that shows nothing of the token.
func tokenRefusal(err error) *Refusal {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return unauthorized(r.code, r.detail)
		}
	}
	return &Refusal{Status: http.StatusInternalServerError, Code: scribe.CodeInternalError, Detail: "verifying the token failed; report the request id"}
}

var refusals = []struct {
	err          error
	code, detail string
}{
	{auth.ErrTokenExpired, scribe.CodeTokenExpired, "the installation JWT has expired; mint a new one"},
	{auth.ErrIssuedInFuture, scribe.CodeTokenExpired, "the installation JWT is not valid yet: its iat is in the future; check the clock of the machine that minted it"},
	{auth.ErrLifetimeTooLong, scribe.CodeInvalidToken, "the installation JWT's exp is more than 3600 seconds after its iat"},
	{auth.ErrLifetimeNotPositive, scribe.CodeInvalidToken, "the installation JWT's exp is not after its iat; exp must be iat + 3600"},
	{auth.ErrTokenTooLarge, scribe.CodeInvalidToken, fmt.Sprintf("the token is larger than %d bytes", auth.MaxTokenSize)},
	{auth.ErrAlgorithm, scribe.CodeInvalidToken, `the installation JWT's alg must be "HS256"`},
	{auth.ErrCriticalHeader, scribe.CodeInvalidToken, `the installation JWT's header has "crit"; the service understands no critical extension, so it refuses the token`},
	{auth.ErrMissingClaim, scribe.CodeInvalidToken, "the installation JWT lacks iat, exp or plugin_installation_uuid"},
	{auth.ErrTokenMalformed, scribe.CodeInvalidToken, "the token is not a well-formed JWT (three base64url parts holding a JSON header and JSON claims)"},
	{auth.ErrSignature, scribe.CodeInvalidToken, "the installation JWT's signature does not verify with any current secret key of the installation's plugin (or no such installation exists)"},
}

// CheckKind refuses a caller of the wrong kind: 403 wrong_token_kind.
func CheckKind(p *Principal, want Kind) *Refusal {
	if p.Kind == want {
		return nil
	}
	return &Refusal{Status: http.StatusForbidden, Code: scribe.CodeWrongTokenKind,
		Detail: fmt.Sprintf("this operation takes %s, and the request sent %s", want, p.Kind)}
}
