package scribetest

import (
	"crypto/sha256"
	"fmt"
	"hash/maphash"
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
// garbage collector to mark, however many there are. It stays a
// cryptographic hash (unlike fingerprint): two keys that met would let one
// holder's request replay another holder's answer.
type idemKey [32]byte

func newIdemKey(scope, key string) idemKey {
	b := make([]byte, 0, 320) // on the stack for any key of the contract's 255 bytes
	b = append(append(append(b, scope...), 0), key...)
	return sha256.Sum256(b)
}

// fingerprint identifies a request for its Idempotency-Key: a 128-bit hash
// of its method, path and body, two maphash sums under seeds random and
// secret to the process. It tells a key's retry (the same request) from
// another request sent with the same key by the same holder, and never
// meets another holder's requests (keys are scoped, idemKey): a collision
// could only make a holder's request replay that holder's own first
// answer, at odds of about 2^-128. That needs no cryptographic hash, and
// SHA-256 of a body took a few hundred nanoseconds of every POST.
type fingerprint [2]uint64

// fingerprintSeeds are fingerprint's two seeds.
var fingerprintSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// fingerprintOf is the fingerprint of signed, "METHOD PATH\n" and the
// body (readJSONBody lays a POST out so).
func fingerprintOf(signed []byte) fingerprint {
	return fingerprint{maphash.Bytes(fingerprintSeeds[0], signed), maphash.Bytes(fingerprintSeeds[1], signed)}
}

// idemEntry is a key's first request: its fingerprint, its creation time
// and, once it has finished, its response. It holds no pointer: the store
// keeps the entries in fixed-size chunks in creation order (idemChunk) and
// the map holds only each key's sequence number, so that a map that grows
// to a day of POSTs copies 40-byte slots rather than whole entries, and the
// collector has nothing to trace in either. A response's body is kept in
// its chunk's bodies, and a kept problem in the store's problems map.
type idemEntry struct {
	key         idemKey
	fingerprint fingerprint
	// created is when the key was claimed, by the server's clock, as
	// time.Time.Unix would give it.
	createdSec  int64
	createdNsec int32
	// status is the kept response's status once done.
	status int32
	// live is whether the index holds this entry for its key: set when
	// the key is claimed, cleared when the claim is abandoned, found
	// expired or expires. finish and expire read it instead of looking
	// the key up in the index (a cache miss in a large one).
	live    bool
	done    bool
	problem bool    // the response is a problem, in idempotencyStore.problems
	body    jsonRef // in its chunk's bodies
}

// created is when e was claimed.
func (e *idemEntry) created() time.Time { return time.Unix(e.createdSec, int64(e.createdNsec)) }

// expired reports whether e is 24 hours old or more at now.
func (e *idemEntry) expired(now time.Time) bool { return now.Sub(e.created()) >= idempotencyTTL }

// idemChunkLen is how many entries a chunk holds.
const idemChunkLen = 1024

// idemBlockSize is the size of the byte blocks a chunk keeps its entries'
// bodies in; a larger body gets a block of its own.
const idemBlockSize = 64 << 10

// idemChunk is idemChunkLen consecutive entries of the creation order, and
// the bodies of their responses in an arena of idemBlockSize chunks. It is
// let go, bodies and all, once the expiry has passed its last entry.
type idemChunk struct {
	entries *[idemChunkLen]idemEntry // pointer-free: not scanned
	bodies  jsonArena                // append-only; bytes once written never change
}

// idempotencyStore remembers the first response to each key for 24 hours
// of the server's clock. Entries are kept in creation order, in chunks, so
// expired ones are dropped from the front as new ones arrive.
type idempotencyStore struct {
	mu sync.Mutex
	// index is each live key's entry, by sequence number: the n-th claim
	// ever made is n. A key abandoned or claimed again no longer points
	// to its old entry, which stays in its chunk until it expires.
	index map[idemKey]uint64
	// problems holds the problems kept as responses (4xx answers), by
	// sequence number.
	problems map[uint64]*problem
	chunks   []*idemChunk
	head     int    // index of the front entry in chunks[0]
	tail     int    // index after the last entry in chunks[len(chunks)-1]
	headSeq  uint64 // sequence number of the front entry
}

func newIdempotencyStore() *idempotencyStore {
	return &idempotencyStore{index: map[idemKey]uint64{}, problems: map[uint64]*problem{}, headSeq: 1}
}

// len is the number of entries in the creation order, live or not.
func (st *idempotencyStore) len() int {
	if len(st.chunks) == 0 {
		return 0
	}
	return (len(st.chunks)-1)*idemChunkLen + st.tail - st.head
}

// at returns the entry of sequence number seq, which is in the order, and
// its chunk.
func (st *idempotencyStore) at(seq uint64) (*idemEntry, *idemChunk) {
	i := int(seq-st.headSeq) + st.head
	c := st.chunks[i/idemChunkLen]
	return &c.entries[i%idemChunkLen], c
}

// push appends e to the creation order and returns its sequence number.
func (st *idempotencyStore) push(e idemEntry) uint64 {
	if len(st.chunks) == 0 || st.tail == idemChunkLen {
		st.chunks = append(st.chunks, &idemChunk{entries: new([idemChunkLen]idemEntry), bodies: jsonArena{chunkSize: idemBlockSize}})
		st.tail = 0
	}
	st.chunks[len(st.chunks)-1].entries[st.tail] = e
	st.tail++
	return st.headSeq + uint64(st.len()) - 1
}

// pop drops the front entry; the order must not be empty.
func (st *idempotencyStore) pop() {
	st.head++
	st.headSeq++
	if len(st.chunks) == 1 && st.head == st.tail { // empty: start over
		st.chunks[0] = nil
		st.chunks = st.chunks[:0]
		st.head, st.tail = 0, 0
		return
	}
	if st.head == idemChunkLen {
		st.chunks[0] = nil
		st.chunks = st.chunks[1:]
		st.head = 0
	}
}

// idemTicket is a claim's sequence number, which finish and abandon take
// so that they touch that claim only: a key expired and claimed again
// meanwhile is another claim.
type idemTicket uint64

// begin claims k for a request with fingerprint fp. It returns the stored
// response to replay (replay true), or a 409 problem, or neither: the
// caller then does the work and calls finish or abandon with the ticket.
func (st *idempotencyStore) begin(k idemKey, fp fingerprint, now time.Time) (resp response, replay bool, ticket idemTicket, _ *problem) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.expire(now)
	seq, ok := st.index[k]
	var e *idemEntry
	var c *idemChunk
	if ok {
		e, c = st.at(seq)
		if e.expired(now) { // the clock went back, or the order is not by time
			st.forget(k, seq, e)
			ok = false
		}
	}
	switch {
	case !ok:
		sec, nsec := now.Unix(), int32(now.Nanosecond())
		seq = st.push(idemEntry{key: k, fingerprint: fp, createdSec: sec, createdNsec: nsec, live: true})
		st.index[k] = seq
		return response{}, false, idemTicket(seq), nil
	case e.fingerprint != fp:
		return response{}, false, 0, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyReused,
			"this Idempotency-Key was used with another request body (or another operation); use a new key for a new operation")
	case !e.done:
		return response{}, false, 0, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyInUse,
			"the first request with this Idempotency-Key is still running; retry later with the same key")
	case e.problem:
		return response{status: int(e.status), problem: st.problems[seq]}, true, 0, nil
	}
	return response{status: int(e.status), body: c.bodies.get(e.body)}, true, 0, nil
}

// forget drops k's entry e, of sequence number seq, from the index.
func (st *idempotencyStore) forget(k idemKey, seq uint64, e *idemEntry) {
	delete(st.index, k)
	e.live = false
	if e.problem {
		delete(st.problems, seq)
	}
}

// expire drops the entries older than the TTL from the front of the order.
// An entry whose key has since been abandoned and claimed again (a newer
// entry) leaves the index alone.
func (st *idempotencyStore) expire(now time.Time) {
	for st.len() > 0 {
		e := &st.chunks[0].entries[st.head]
		if !e.expired(now) {
			return
		}
		if e.live {
			st.forget(e.key, st.headSeq, e)
		}
		st.pop()
	}
}

// finish stores resp as the response to the claim of ticket, if k is still
// held by it. A body is copied into the store.
func (st *idempotencyStore) finish(k idemKey, ticket idemTicket, resp response) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e, c, ok := st.claim(k, ticket)
	if !ok {
		return
	}
	seq := uint64(ticket)
	e.done, e.status = true, int32(resp.status)
	if resp.problem != nil {
		e.problem = true
		st.problems[seq] = resp.problem
		return
	}
	e.body = c.bodies.put(resp.body)
}

// abandon forgets the claim of ticket, so that a retry does the work: the
// first request failed without an answer worth keeping (a 5xx).
func (st *idempotencyStore) abandon(k idemKey, ticket idemTicket) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e, _, ok := st.claim(k, ticket); ok {
		st.forget(k, uint64(ticket), e)
	}
}

// claim returns the entry of ticket and its chunk if the claim still holds
// k: the entry is still in the order and live (the index holds it for k).
func (st *idempotencyStore) claim(k idemKey, ticket idemTicket) (*idemEntry, *idemChunk, bool) {
	seq := uint64(ticket)
	if seq < st.headSeq || seq >= st.headSeq+uint64(st.len()) {
		return nil, nil, false
	}
	e, c := st.at(seq)
	if !e.live || e.key != k {
		return nil, nil, false
	}
	return e, c, true
}

// idempotent runs do once per Idempotency-Key (when the request has one):
// the same key with the same method, path and body within 24 hours replays
// the first response, status and body, with Idempotent-Replayed: true (a
// problem is replayed with the replay's own request_id). A
// 5xx answer is not kept, so a retry after a failure does the work.
// Without a key, do's result is written as any operation's is.
func (s *Server) idempotent(w http.ResponseWriter, c *call, do func(*call) result) {
	values := c.r.Header["Idempotency-Key"] // the canonical key: Values would canonicalize it again
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
	fp := fingerprintOf(c.signed)

	k := newIdemKey(c.caller.scope(), key)
	kept, replay, ticket, p := s.idem.begin(k, fp, s.requestTime(c.info))
	switch {
	case p != nil:
		writeProblem(w, c.r, p)
		return
	case replay:
		w.Header()["Idempotent-Replayed"] = headerTrue
		kept.write(w, c.r)
		return
	}
	var resp response
	var buf *[]byte
	defer func() { // a panic in do abandons the key too
		if resp.status == 0 || resp.status >= 500 {
			s.idem.abandon(k, ticket)
		} else {
			s.idem.finish(k, ticket, resp) // copies the body
		}
		if buf != nil {
			putBuf(buf)
		}
	}()
	res := do(c)
	if res.p != nil {
		resp = response{status: res.p.status, problem: res.p}
	} else {
		buf = res.encoded
		resp = response{status: res.status, body: *buf}
	}
	resp.write(w, c.r)
}

// headerTrue is the Idempotent-Replayed header's value; net/http only
// reads it.
var headerTrue = []string{"true"}
