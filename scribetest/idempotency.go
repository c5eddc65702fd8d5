package scribetest

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// Idempotency-Key rules (CONTRACT §6, api/openapi.yaml).
const (
	maxIdempotencyKey = 255
	idempotencyTTL    = 24 * time.Hour
)

// idemKey is a key as the caller scopes it, so that two developers, or a
// developer and an installation, may use the same key without meeting: the
// SHA-256 of the caller's scope (principal.scope, which holds no NUL), a NUL
// and the key. A digest rather than the strings: the store keeps an entry
// per POST for 24 hours, and keys without pointers are nothing for the
// garbage collector to mark, however many there are.
type idemKey [32]byte

func newIdemKey(scope, key string) idemKey {
	b := make([]byte, 0, 320) // on the stack for any key of the contract's 255 bytes
	b = append(append(append(b, scope...), 0), key...)
	return sha256.Sum256(b)
}

// idemEntry is a key's first request: its fingerprint, and once it has
// finished, its response. The map holds entries by value, one object less
// per entry.
type idemEntry struct {
	fingerprint [32]byte
	created     time.Time
	done        bool
	resp        response
}

// idempotencyStore remembers the first response to each key for 24 hours
// of the server's clock. Entries are kept in creation order, so expired ones
// are dropped from the front as new ones arrive.
type idempotencyStore struct {
	mu      sync.Mutex
	entries map[idemKey]idemEntry
	order   claimQueue
}

// idemClaim is an entry's place in the creation order: its key and its
// creation time, so that expire finds the oldest entries' age without a
// look-up in the map (a cache miss per request in a large one).
type idemClaim struct {
	key     idemKey
	created time.Time
}

func newIdempotencyStore() *idempotencyStore {
	return &idempotencyStore{entries: map[idemKey]idemEntry{}}
}

// begin claims k for a request with fingerprint fp. It returns the stored
// response to replay, or a 409 problem, or neither: the caller then does the
// work and calls finish or abandon.
func (st *idempotencyStore) begin(k idemKey, fp [32]byte, now time.Time) (*response, *problem) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire(now)
	e, ok := st.entries[k]
	if ok && now.Sub(e.created) >= idempotencyTTL {
		delete(st.entries, k)
		ok = false
	}
	switch {
	case !ok:
		st.entries[k] = idemEntry{fingerprint: fp, created: now}
		st.order.push(idemClaim{k, now})
		return nil, nil
	case e.fingerprint != fp:
		return nil, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyReused,
			"this Idempotency-Key was used with another request body (or another operation); use a new key for a new operation")
	case !e.done:
		return nil, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyInUse,
			"the first request with this Idempotency-Key is still running; retry later with the same key")
	}
	resp := e.resp
	return &resp, nil
}

// expire drops the entries older than the TTL from the front of the order.
// A claim whose key has since been abandoned and claimed again (a newer
// entry, of another creation time) leaves that entry alone.
func (st *idempotencyStore) expire(now time.Time) {
	for {
		c, ok := st.order.front()
		if !ok || now.Sub(c.created) < idempotencyTTL {
			return
		}
		if e, ok := st.entries[c.key]; ok && e.created.Equal(c.created) {
			delete(st.entries, c.key)
		}
		st.order.pop()
	}
}

// claimChunk is how many claims a chunk of the queue holds.
const claimChunk = 1024

// claimQueue is the creation order of the claims: a FIFO of fixed-size
// chunks. A push never copies what is already queued (a slice grown by
// append copies every claim again each time it doubles, a cost that showed
// in the profile of a POST once a store held many keys), and the chunks
// before the head are let go as the head passes them.
type claimQueue struct {
	chunks []*[claimChunk]idemClaim
	head   int // index of the front claim in chunks[0]
	tail   int // index after the last claim in chunks[len(chunks)-1]
}

func (q *claimQueue) push(c idemClaim) {
	if len(q.chunks) == 0 || q.tail == claimChunk {
		q.chunks = append(q.chunks, new([claimChunk]idemClaim))
		q.tail = 0
	}
	q.chunks[len(q.chunks)-1][q.tail] = c
	q.tail++
}

func (q *claimQueue) front() (idemClaim, bool) {
	if len(q.chunks) == 0 || (len(q.chunks) == 1 && q.head == q.tail) {
		return idemClaim{}, false
	}
	return q.chunks[0][q.head], true
}

// pop drops the front claim; the queue must not be empty.
func (q *claimQueue) pop() {
	q.chunks[0][q.head] = idemClaim{}
	q.head++
	if len(q.chunks) == 1 && q.head == q.tail { // empty: start over
		q.head, q.tail = 0, 0
		return
	}
	if q.head == claimChunk {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// len is the number of queued claims.
func (q *claimQueue) len() int {
	if len(q.chunks) == 0 {
		return 0
	}
	return (len(q.chunks)-1)*claimChunk + q.tail - q.head
}

// finish stores the response to k's first request.
func (st *idempotencyStore) finish(k idemKey, resp response) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e, ok := st.entries[k]; ok {
		e.done, e.resp = true, resp
		st.entries[k] = e
	}
}

// abandon forgets k, so that a retry does the work: the first request failed
// without an answer worth keeping (a 5xx).
func (st *idempotencyStore) abandon(k idemKey) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.entries, k)
}

// idempotent runs do once per Idempotency-Key (when the request has one):
// the same key with the same method, path and body within 24 hours replays
// the first response, status and body, with Idempotent-Replayed: true (a
// problem is replayed with the replay's own request_id). A
// 5xx answer is not kept, so a retry after a failure does the work.
// Without a key, do's result is written as any operation's is.
func (s *Server) idempotent(w http.ResponseWriter, c *call, do func(*call) result) {
	values := c.r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		writeResult(w, c.r, do(c))
		return
	}
	key := values[0]
	switch {
	case len(values) > 1:
		writeProblem(w, c.r, invalidParameter("Idempotency-Key: given more than once; send one"))
		return
	case key == "" || len(key) > maxIdempotencyKey:
		writeProblem(w, c.r, invalidParameter(fmt.Sprintf("Idempotency-Key: must be 1 to %d characters, got %d", maxIdempotencyKey, len(key))))
		return
	}
	// "METHOD PATH\n" and the body, laid out so by readJSONBody.
	fp := sha256.Sum256(c.signed)

	k := newIdemKey(c.caller.scope(), key)
	replay, p := s.idem.begin(k, fp, s.requestTime(c.info))
	switch {
	case p != nil:
		writeProblem(w, c.r, p)
		return
	case replay != nil:
		w.Header().Set("Idempotent-Replayed", "true")
		replay.write(w, c.r)
		return
	}
	resp := response{status: http.StatusInternalServerError}
	defer func() { // a panic in do abandons the key too
		if resp.status >= 500 {
			s.idem.abandon(k)
		} else {
			s.idem.finish(k, resp)
		}
	}()
	resp = render(do(c))
	resp.write(w, c.r)
}
