package httpapi

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// idempotent runs do once per Idempotency-Key of a POST, replaying the first
// answer for 24 hours; a 5xx is not kept, so a retry does the work. Any other
// request, or a POST without a key, runs do.
func (a *API) idempotent(w http.ResponseWriter, c *call, do func(*call) (reply, *problem)) {
	values := c.r.Header["Idempotency-Key"]
	if len(values) == 0 || c.r.Method != http.MethodPost {
		body, p := do(c)
		write(w, body, p)
		return
	}
	key := values[0]
	switch {
	case len(values) > 1:
		writeProblem(w, invalidParameter("Idempotency-Key: given more than once; send one"))
		return
	case !validKey(key):
		writeProblem(w, invalidParameter(fmt.Sprintf(
			"Idempotency-Key: must be 1 to %d visible ASCII characters (! to ~), got %d bytes", state.MaxIdempotencyKey, len(key))))
		return
	}
	claim, v := a.idem.begin(newIdemKey(c.caller.Scope, key), fingerprintOf(c.r.Method, c.r.URL.Path, c.body), c.info.at)
	switch v {
	case reused:
		writeProblem(w, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyReused,
			"this Idempotency-Key was used with another request body (or another operation); use a new key for a new operation"))
		return
	case inUse:
		writeProblem(w, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyInUse,
			"the first request with this Idempotency-Key is still running; retry later with the same key"))
		return
	case replay:
		w.Header()["Idempotent-Replayed"] = []string{"true"}
		write(w, claim.Body, claim.problem())
		return
	}
	done := false
	defer func() { // a panic in do abandons the key too
		if !done {
			a.idem.abandon(claim)
		}
	}()
	body, p := do(c)
	if done = p == nil || p.status < 500; done {
		a.idem.finish(claim, body, p) // kept before it is written
	}
	write(w, body, p)
}

// validKey reports 1 to 255 visible ASCII characters (api/openapi.yaml).
func validKey(k string) bool {
	invisible := func(r rune) bool { return r < '!' || r > '~' } // a byte not ASCII reads as a rune above '~'
	return k != "" && len(k) <= state.MaxIdempotencyKey && !strings.ContainsFunc(k, invisible)
}

// keyTTL is how long a key's answer is kept.
const keyTTL = 24 * time.Hour

// idemKey is the SHA-256 of the holder's scope, a NUL and the key.
type idemKey [32]byte

// newIdemKey scopes key to holder.
func newIdemKey(holder, key string) idemKey {
	return sha256.Sum256([]byte(holder + "\x00" + key))
}

// fingerprint is the SHA-256 of a request's method, path and body.
type fingerprint [32]byte

// fingerprintOf returns the fingerprint of a request.
func fingerprintOf(method, path string, body []byte) fingerprint {
	return sha256.Sum256(slices.Concat([]byte(method+" "+path+"\n"), body))
}

// verdict is what begin decided.
type verdict int

// The verdicts of begin.
const (
	proceed verdict = iota // do the work, then finish or abandon
	replay                 // answer with the kept answer
	reused                 // the key was used with another request: 409
	inUse                  // the key's first request is still running: 409
)

// claim is a key claimed by a request; its answer, once finished. The
// claim itself, not its key, is what finish and abandon name, so that a
// claim abandoned and then made anew is not finished by the first request.
type claim struct {
	key idemKey
	keptRecord
	done bool
}

// problem is the problem the claim's answer is, or nil for a body.
func (c *claim) problem() *problem {
	if c.Status == 0 {
		return nil
	}
	return newProblem(c.Status, c.Code, c.Detail)
}

// Answers remembers the first answer to each Idempotency-Key, scoped to its
// holder, for 24 hours of the server's clock (docs/contract.md, "Rate limits
// and idempotency").
type Answers struct {
	// Keep, if not nil, is given each answer kept, encoded, under its key
	// (the SHA-256 of the holder and the key), before it is written, with
	// the keys of the answers expired since (gone): to keep them on disk.
	Keep func(key, answer []byte, gone [][]byte)

	mu     sync.Mutex
	claims map[idemKey]*claim
	order  []*claim // by claim time, for expiry from the front
	gone   [][]byte // the keys expired since the last Keep
}

// NewAnswers returns an empty Answers.
func NewAnswers() *Answers {
	return &Answers{claims: map[idemKey]*claim{}}
}

// keptRecord is a kept answer, as replayed and as Keep is given it in
// JSON: a body, or a problem's status, code and detail (the operations'
// own problems have no extra headers).
type keptRecord struct {
	Fingerprint fingerprint `json:"fingerprint"`
	Created     time.Time   `json:"created"`
	Body        reply       `json:"body,omitempty"`
	Status      int         `json:"status,omitempty"`
	Code        string      `json:"code,omitempty"`
	Detail      string      `json:"detail,omitempty"`
}

// Restore adds an answer Keep was given.
func (s *Answers) Restore(key, answer []byte) error {
	c := &claim{done: true}
	if err := apijson.Unmarshal(answer, &c.keptRecord, apijson.Lenient()); err != nil || len(key) != len(idemKey{}) {
		return fmt.Errorf("a kept answer (of a key of %d bytes) cannot be read: %v", len(key), err)
	}
	c.key = idemKey(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := slices.BinarySearchFunc(s.order, c.Created, func(o *claim, t time.Time) int { return o.Created.Compare(t) })
	s.order, s.claims[c.key] = slices.Insert(s.order, i, c), c
	return nil
}

// Forget forgets every answer.
func (s *Answers) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claims, s.order, s.gone = map[idemKey]*claim{}, nil, nil
}

// begin claims k for a request with fingerprint fp at now, or says why not.
func (s *Answers) begin(k idemKey, fp fingerprint, now time.Time) (*claim, verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	c, ok := s.claims[k]
	switch {
	case !ok || now.Sub(c.Created) >= keyTTL: // none, or the clock went back
		c = &claim{key: k, keptRecord: keptRecord{Fingerprint: fp, Created: now}}
		s.claims[k] = c
		s.order = append(s.order, c)
		return c, proceed
	case c.Fingerprint != fp:
		return c, reused
	case !c.done:
		return c, inUse
	}
	return c, replay
}

// expire drops the claims TTL old from the front of the order.
func (s *Answers) expire(now time.Time) {
	n := 0
	for _, c := range s.order {
		if now.Sub(c.Created) < keyTTL {
			break
		}
		if s.claims[c.key] == c {
			delete(s.claims, c.key)
			if s.Keep != nil {
				s.gone = append(s.gone, c.key[:])
			}
		}
		n++
	}
	s.order = s.order[n:]
}

// finish keeps body, or p if not nil, as the answer of claim c; one
// abandoned or expired since is no longer looked up, and keeps it in vain.
func (s *Answers) finish(c *claim, body reply, p *problem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.done, c.Body = true, body
	if p != nil {
		c.Status, c.Code, c.Detail = p.status, p.code, p.detail
	}
	if s.Keep != nil && s.claims[c.key] == c {
		b, _ := apijson.Marshal(c.keptRecord) // cannot fail: bytes, a time of the clock, strings
		s.Keep(c.key[:], b, s.gone)
		s.gone = nil
	}
}

// abandon forgets claim c, so that a retry does the work.
func (s *Answers) abandon(c *claim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claims[c.key] == c {
		delete(s.claims, c.key)
	}
}
