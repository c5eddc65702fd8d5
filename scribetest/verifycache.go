package scribetest

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// maxVerifiedTokens bounds the verification cache. A client re-mints its
// JWT hourly, so this is about as many installations calling at once.
const maxVerifiedTokens = 10000

// verifiedToken is what a full verification of an installation JWT proved
// and what can stop being true later: the token was signed by one of keys,
// the plugin's keys at the time (the one that verified is among them), and
// names the installation uuid for the lifetime iat..exp. The signature, the
// algorithm, the claims' shape, the lifetime and the size cannot change;
// they are not checked again.
type verifiedToken struct {
	uuid     string
	iat, exp time.Time
	keys     []string // the plugin's key values when the token verified

	// caller is the principal last derived from the store for this token,
	// with the store's credentials generation (store.authGen) it was derived
	// at. While the generation is unchanged, nothing a principal is made of
	// (the installation, its plugin, the plugin's keys) has changed, and the
	// request takes it as is instead of copying them out of the store again.
	// The principal is shared by those requests, which only read it.
	caller atomic.Pointer[cachedCaller]
}

// cachedCaller is a principal and the credentials generation it is valid at.
type cachedCaller struct {
	gen uint64
	p   *principal
}

// callerAt returns the cached principal if it was derived at generation gen.
func (v *verifiedToken) callerAt(gen uint64) (*principal, bool) {
	if c := v.caller.Load(); c != nil && c.gen == gen {
		return c.p, true
	}
	return nil, false
}

// fresh reports whether the time rules of a full verification still hold at
// now, with the leeway the server's Verifier uses: exp not yet reached
// (now < exp + leeway) and iat not in the future (now >= iat - leeway). They
// are golang-jwt's comparisons exactly; where they fail, the caller verifies
// in full and gets the refusal from package auth.
func (v *verifiedToken) fresh(now time.Time) bool {
	return now.Before(v.exp.Add(auth.DefaultLeeway)) && !now.Before(v.iat.Add(-auth.DefaultLeeway))
}

// keysCurrent reports whether every key the token was verified against is
// still a key of the plugin. It does not know which of them signed, so the
// deletion of any of them sends the token back to a full verification.
func (v *verifiedToken) keysCurrent(current []string) bool {
outer:
	for _, k := range v.keys {
		for _, c := range current {
			if c == k {
				continue outer
			}
		}
		return false
	}
	return true
}

// credSeed seeds the hash the credential caches are keyed by: random, and
// secret to the process, so that no one can choose credentials that meet in
// the map.
var credSeed = maphash.MakeSeed()

// maxKeptCredential is the longest credential a cache keeps as it is: a
// developer key, a JWT as auth.Mint makes it (about 250 bytes). A longer one
// (a JWT may carry up to auth.MaxTokenSize bytes of claims) is kept as its
// SHA-256, so that a full cache holds at most maxVerifiedTokens times this
// many bytes of credentials, whatever the tokens' size.
const maxKeptCredential = 512

// credEntry is a cached value with the credential it was established for:
// the credential itself, or its SHA-256 (hashKey) when it is longer than
// maxKeptCredential.
type credEntry[V any] struct {
	cred string
	v    V
}

// keptCredential is the form a cache keeps cred in: a copy (cred is
// usually a substring of the request's Authorization header), or its
// SHA-256 when it is long.
func keptCredential(cred string) string {
	if len(cred) > maxKeptCredential {
		h := hashKey(cred)
		return string(h[:])
	}
	return strings.Clone(cred)
}

// matches reports whether e was established for cred, comparing in constant
// time (for a given length): a request learns nothing of a cached credential
// from how long the comparison takes.
func (e *credEntry[V]) matches(cred string) bool {
	if len(cred) > maxKeptCredential {
		h := hashKey(cred)
		return len(e.cred) == len(h) && equalSecret(e.cred, string(h[:]))
	}
	return len(e.cred) == len(cred) && equalSecret(e.cred, cred)
}

// equalSecret compares a and b in time that depends on their length only,
// as crypto/subtle.ConstantTimeCompare does, eight bytes at a time and
// without converting the strings to byte slices (which would allocate).
func equalSecret(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v uint64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		v |= load64(a, i) ^ load64(b, i)
	}
	for ; i < len(a); i++ {
		v |= uint64(a[i] ^ b[i])
	}
	return v == 0
}

// load64 is the eight bytes of s from i as a little-endian word (one load;
// the compiler combines the byte loads).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hashCache maps a credential (a developer key, an installation JWT) to
// what authenticating it established. It is keyed by the credential's
// maphash under credSeed, a few nanoseconds per request where a SHA-256 of
// a JWT took hundreds, and each entry keeps the credential (or, for a long
// one, its SHA-256) to compare with: two credentials whose hashes meet are
// told apart, the second simply missing the cache (and replacing the first
// when it is put). It holds at most maxVerifiedTokens entries: an insert
// into a full cache first drops the entries stale reports (when given),
// then a random sixteenth of the rest, so that the next inserts do not
// sweep again. The zero value is empty and ready. The verification cache
// and the developer cache are two of them.
type hashCache[V any] struct {
	mu sync.RWMutex
	m  map[uint64]credEntry[V]
}

func (c *hashCache[V]) get(cred string) (V, bool) {
	h := maphash.String(credSeed, cred)
	c.mu.RLock()
	e, ok := c.m[h]
	c.mu.RUnlock()
	if !ok || !e.matches(cred) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *hashCache[V]) put(cred string, v V, stale func(V) bool) {
	h := maphash.String(credSeed, cred)
	e := credEntry[V]{cred: keptCredential(cred), v: v}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[uint64]credEntry[V]{}
	}
	if _, ok := c.m[h]; !ok && len(c.m) >= maxVerifiedTokens {
		if stale != nil {
			for k, e := range c.m {
				if stale(e.v) {
					delete(c.m, k)
				}
			}
		}
		for k := range c.m { // map order is random
			if len(c.m) <= maxVerifiedTokens-maxVerifiedTokens/16 {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[h] = e
}

// remove drops cred's entry, if the cache holds one for it.
func (c *hashCache[V]) remove(cred string) {
	h := maphash.String(credSeed, cred)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[h]; ok && e.matches(cred) {
		delete(c.m, h)
	}
}

func (c *hashCache[V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// verifyCache remembers the installation JWTs the server has verified, so
// that a client sending the same token for an hour pays one full
// verification. When full, it drops the tokens no longer fresh first.
type verifyCache struct{ hashCache[*verifiedToken] }

func (c *verifyCache) put(token string, v *verifiedToken, now time.Time) {
	c.hashCache.put(token, v, func(e *verifiedToken) bool { return !e.fresh(now) })
}

// developerCache keeps the principal of each developer key that
// authenticated, with the store's user generation (store.userGen) it was
// derived at: while the generation is unchanged, no user and no developer
// key has changed, and a request takes the principal as is, without the
// store's lock, a copy of the user or an allocation. Requests share the
// principal and only read it. Only keys the store knows are cached, so it
// holds at most one entry per developer.
type developerCache struct{ hashCache[cachedCaller] }

// get returns the principal cached for key if it was derived at user
// generation gen.
func (c *developerCache) get(key string, gen uint64) (*principal, bool) {
	e, ok := c.hashCache.get(key)
	if !ok || e.gen != gen {
		return nil, false
	}
	return e.p, true
}

func (c *developerCache) put(key string, gen uint64, p *principal) {
	c.hashCache.put(key, cachedCaller{gen: gen, p: p}, nil)
}
