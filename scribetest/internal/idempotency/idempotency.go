// Package idempotency remembers the first answer to each Idempotency-Key,
// scoped to its holder, for 24 hours of the server's clock (docs/contract.md,
// "Rate limits and idempotency"). It knows nothing of HTTP.
package idempotency

import (
	"crypto/sha256"
	"sync"
	"time"
)

// TTL is how long a key's answer is kept.
const TTL = 24 * time.Hour

// MaxKeyLen is the longest Idempotency-Key.
const MaxKeyLen = 255

// Key is the SHA-256 of the holder's scope, a NUL and the key.
type Key [32]byte

// NewKey scopes key to holder.
func NewKey(holder, key string) Key {
	return sha256.Sum256([]byte(holder + "\x00" + key))
}

// Fingerprint is the SHA-256 of a request's method, path and body.
type Fingerprint [32]byte

// FingerprintOf returns the fingerprint of a request.
func FingerprintOf(method, path string, body []byte) Fingerprint {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return Fingerprint(h.Sum(nil))
}

// Response is an answer as kept and replayed; Value is the caller's.
type Response struct {
	Status int
	Body   []byte
	Value  any
}

// Verdict is what Begin decided.
type Verdict int

// The verdicts of Begin.
const (
	Proceed Verdict = iota // do the work, then Finish or Abandon
	Replay                 // answer with the kept Response
	Reused                 // the key was used with another request: 409
	InUse                  // the key's first request is still running: 409
)

// Ticket identifies a claim, not a later one of the same key.
type Ticket uint64

type claim struct {
	k Key
	t Ticket
}

type entry struct {
	fp      Fingerprint
	created time.Time
	ticket  Ticket
	done    bool
	resp    Response
}

// Store is the idempotency store. The zero value is not ready; use New.
type Store struct {
	mu      sync.Mutex
	entries map[Key]*entry
	order   []claim // by claim time, for expiry from the front
	last    Ticket
}

// New returns an empty store.
func New() *Store { return &Store{entries: map[Key]*entry{}} }

// Begin claims k for a request with fingerprint fp at now.
func (s *Store) Begin(k Key, fp Fingerprint, now time.Time) (Response, Verdict, Ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	e, ok := s.entries[k]
	if ok && now.Sub(e.created) >= TTL { // the clock went back, or the order is not by time
		delete(s.entries, k)
		ok = false
	}
	switch {
	case !ok:
		s.last++
		s.entries[k] = &entry{fp: fp, created: now, ticket: s.last}
		s.order = append(s.order, claim{k, s.last})
		return Response{}, Proceed, s.last
	case e.fp != fp:
		return Response{}, Reused, 0
	case !e.done:
		return Response{}, InUse, 0
	}
	return e.resp, Replay, 0
}

// expire drops the claims TTL old from the front of the order.
func (s *Store) expire(now time.Time) {
	n := 0
	for _, c := range s.order {
		e, ok := s.entries[c.k]
		if ok && e.ticket == c.t {
			if now.Sub(e.created) < TTL {
				break
			}
			delete(s.entries, c.k)
		}
		n++
	}
	if n > 0 {
		s.order = append(s.order[:0], s.order[n:]...)
	}
}

// Finish keeps resp (its body copied) as the answer of the claim t of k.
func (s *Store) Finish(k Key, t Ticket, resp Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[k]; ok && e.ticket == t {
		resp.Body = append([]byte(nil), resp.Body...)
		e.done, e.resp = true, resp
	}
}

// Abandon forgets the claim t of k, so that a retry does the work.
func (s *Store) Abandon(k Key, t Ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[k]; ok && e.ticket == t {
		delete(s.entries, k)
	}
}

// Len returns how many keys are kept.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
