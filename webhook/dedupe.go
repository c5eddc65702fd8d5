package webhook

import (
	"container/list"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Reservation is the answer of DedupeStore.Reserve.
type Reservation int

const (
	// Reserved means the id is new, was released, or its holder's lease
	// expired; the caller now holds it and must call Complete or Release
	// with the Claim it got.
	Reserved Reservation = iota + 1
	// Duplicate means a delivery of this id was already processed.
	Duplicate
	// InFlight means another delivery of this id holds the claim, and its
	// lease has not expired.
	InFlight
)

// String returns "reserved", "duplicate" or "in flight".
func (r Reservation) String() string {
	switch r {
	case Reserved:
		return "reserved"
	case Duplicate:
		return "duplicate"
	case InFlight:
		return "in flight"
	}
	return fmt.Sprintf("Reservation(%d)", int(r))
}

// Claim is what DedupeStore.Reserve hands the delivery that gets Reserved:
// the id, and a token that no other reservation of the id shares. Complete
// and Release take the Claim back, and act only while the id is still held
// with that token. This is the fence: a holder whose lease expired, and
// whose id another delivery now holds, can neither complete nor release the
// newer claim.
type Claim struct {
	// ID is the webhook-id claimed.
	ID string
	// Token is random and unique to this reservation; stores compare it
	// before they complete or release the id.
	Token string
}

// ErrClaimLost is returned by Complete and Release when the claim is no
// longer held: its lease expired and another delivery has claimed or
// processed the id since. Nothing is changed. For Complete it means the
// function ran while another delivery could run it too: make the lease
// longer than the function's longest run.
var ErrClaimLost = errors.New("webhook: dedupe claim lost: its lease expired and another delivery claimed the id")

// DedupeStore remembers which webhook-ids were processed, so that a delivery
// repeated by the sender's retries runs your function once. The handler calls
// Reserve before your function, then Complete with the Claim if the function
// succeeded or Release if it failed (so that the sender's retry runs it
// again).
//
// Reserve must be atomic: of concurrent calls for one id, at most one gets
// Reserved. An in-flight claim lasts a lease (a few minutes, see
// DefaultLease): if its holder never settles it (the process died, say),
// a later Reserve gets the id again with a new token. A completed id is
// remembered for a TTL (DefaultDedupeTTL). A store shared by several
// receiver processes makes dedupe work across them: see the redisdedupe
// module, or a database table with a unique key (docs/webhooks.md, "Running
// several receivers"). Contexts passed to Complete and Release are not
// canceled with the request.
//
// A store that fails returns an error, never a guess: the handler then
// answers 503 and does not run your function.
//
// Complete and Release are idempotent per Claim: called again with the
// Claim they succeeded with, they succeed again. A store on a network needs
// this when its client sends a command again whose reply was lost (the
// memory store never loses one); ErrClaimLost then means that another
// delivery really holds or processed the id.
type DedupeStore interface {
	// Reserve claims id for processing, or says why not. The Claim is
	// meaningful only with Reserved.
	Reserve(ctx context.Context, id string) (Reservation, Claim, error)
	// Complete marks the claimed id processed, if c still holds it (or no
	// one does, or c completed it already): later Reserve calls answer
	// Duplicate. Else ErrClaimLost.
	Complete(ctx context.Context, c Claim) error
	// Release drops the claim, if c still holds it: the next Reserve
	// answers Reserved. Else ErrClaimLost.
	Release(ctx context.Context, c Claim) error
}

// DefaultDedupeTTL is how long a processed id is remembered by default: 30
// hours, longer than the service's whole retry schedule (about 27 hours 35
// minutes from the first attempt to the last) plus jitter, so that a retry
// sent because a 2xx answer got lost is still recognised.
const DefaultDedupeTTL = 30 * time.Hour

// DefaultLease is how long an in-flight claim lasts by default when its
// holder goes silent: 4 minutes. The service waits 15 s for an answer, so a
// function still running after 4 minutes has long been given up on; and the
// service's third attempt comes at least about 4.5 minutes after the first
// (15 s + 5 s + 15 s + 5 min, less 20 % jitter on each wait), so an event
// whose receiver died mid-run is run by that attempt, not lost for the
// 30 minutes after it. A function that may run longer needs a longer lease
// (it cannot renew one): see docs/webhooks.md.
const DefaultLease = 4 * time.Minute

// DefaultDedupeMaxEntries bounds the ids NewMemoryDedupeStore keeps by default.
const DefaultDedupeMaxEntries = 100_000

// ErrDedupeStoreFull is returned by MemoryDedupeStore.Reserve for a new id
// when the store holds its maximum number of ids and every one of them is a
// claim still being processed within its lease. The store never drops such
// a claim to make room: the dropped event would run twice at once. The
// handler answers 503 with Retry-After, so the service delivers the event
// again later; raise maxEntries above the number of deliveries you process
// at once.
var ErrDedupeStoreFull = errors.New("webhook: dedupe store full: every id it holds is being processed; retry later")

// MemoryDedupeStore is the in-process DedupeStore NewHandler uses by default.
// It forgets an id ttl after its last change, so its memory is bounded by
// maxEntries ids. When it is full, a new id makes it forget the processed id
// changed longest ago; a claim still being processed is never forgotten
// while its lease lasts (the event would run twice at once). If only such
// claims remain, Reserve refuses the new id with ErrDedupeStoreFull, which the
// handler answers with 503 and Retry-After. An in-flight claim that is
// neither completed nor released expires after its lease. It is safe for
// concurrent use; it dedupes within one process only.
type MemoryDedupeStore struct {
	ttl        time.Duration
	lease      time.Duration
	maxEntries int
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *dedupeEntry, in done or running
	// done holds the processed ids and running the claims in flight, each
	// oldest change first. Every entry of a list has the same ttl (and every
	// claim the same lease), so each list is also ordered by expiry.
	done    *list.List
	running *list.List
}

type dedupeEntry struct {
	id       string
	token    string    // of the in-flight claim, or of the claim that completed it
	isDone   bool      // processed
	leaseEnd time.Time // in flight: when the claim may be taken over
	expires  time.Time // when the entry is forgotten: its last change + ttl
}

// MemoryStoreOption configures NewMemoryDedupeStore; a bad value is an error
// from it. The zero MemoryStoreOption does nothing.
type MemoryStoreOption struct {
	apply func(*MemoryDedupeStore) error
}

// WithClaimLease sets how long an in-flight claim lasts when its holder
// neither completes nor releases it: DefaultLease (or the store's ttl, if
// shorter), which 0 selects too, as redisdedupe.WithLease does. A negative
// d, or one longer than the store's ttl, is an error.
func WithClaimLease(d time.Duration) MemoryStoreOption {
	return MemoryStoreOption{func(s *MemoryDedupeStore) error {
		switch {
		case d < 0:
			return fmt.Errorf("webhook: WithClaimLease(%v): the lease must not be negative; 0 keeps the default", d)
		case d > s.ttl:
			return fmt.Errorf("webhook: WithClaimLease(%v): the lease must not outlast the store's ttl of %v", d, s.ttl)
		case d > 0:
			s.lease = d
		}
		return nil
	}}
}

// NewMemoryDedupeStore returns an empty MemoryDedupeStore that remembers a
// processed id for ttl and at most maxEntries ids. A ttl or maxEntries of
// zero selects DefaultDedupeTTL or DefaultDedupeMaxEntries; a negative one,
// or a bad option, is an error. Keep ttl at least twice the Verifier's
// tolerance: a replay of a captured delivery passes the timestamp check for
// that long.
func NewMemoryDedupeStore(ttl time.Duration, maxEntries int, opts ...MemoryStoreOption) (*MemoryDedupeStore, error) {
	switch {
	case ttl < 0:
		return nil, fmt.Errorf("webhook: NewMemoryDedupeStore: ttl %v must not be negative; 0 keeps the default of %v", ttl, DefaultDedupeTTL)
	case maxEntries < 0:
		return nil, fmt.Errorf("webhook: NewMemoryDedupeStore: maxEntries %d must not be negative; 0 keeps the default of %d", maxEntries, DefaultDedupeMaxEntries)
	case ttl == 0:
		ttl = DefaultDedupeTTL
	}
	if maxEntries == 0 {
		maxEntries = DefaultDedupeMaxEntries
	}
	s := &MemoryDedupeStore{
		ttl:        ttl,
		lease:      min(DefaultLease, ttl),
		maxEntries: maxEntries,
		now:        time.Now,
		entries:    make(map[string]*list.Element),
		done:       list.New(),
		running:    list.New(),
	}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Reserve implements DedupeStore. For a new id while the store is full of
// claims in flight, it returns ErrDedupeStoreFull.
func (s *MemoryDedupeStore) Reserve(_ context.Context, id string) (Reservation, Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.prune(now)
	if el, ok := s.entries[id]; ok {
		e := el.Value.(*dedupeEntry)
		if e.isDone {
			return Duplicate, Claim{}, nil
		}
		if now.Before(e.leaseEnd) {
			return InFlight, Claim{}, nil
		}
		s.remove(el) // the holder went silent: its lease is over
	}
	if !s.makeRoom(now) {
		return 0, Claim{}, ErrDedupeStoreFull
	}
	c := Claim{ID: id, Token: rand.Text()}
	s.put(&dedupeEntry{id: id, token: c.Token, leaseEnd: now.Add(s.lease), expires: now.Add(s.ttl)})
	return Reserved, c, nil
}

// Complete implements DedupeStore. Completing a claim whose lease expired,
// while no one else claimed the id, records the id as processed all the
// same: the function did succeed. Completing it again succeeds again.
func (s *MemoryDedupeStore) Complete(_ context.Context, c Claim) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.prune(now)
	if el, ok := s.entries[c.ID]; ok {
		e := el.Value.(*dedupeEntry)
		if e.token != c.Token {
			return ErrClaimLost
		}
		if e.isDone {
			return nil
		}
		s.remove(el)
	}
	// The processed id is recorded even when no room can be made: the
	// store holds one id more than its bound until a claim settles, rather
	// than forget an event that ran.
	s.makeRoom(now)
	s.put(&dedupeEntry{id: c.ID, token: c.Token, isDone: true, expires: now.Add(s.ttl)})
	return nil
}

// Release implements DedupeStore. A completed id stays completed.
func (s *MemoryDedupeStore) Release(_ context.Context, c Claim) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[c.ID]
	if !ok {
		return nil // expired, and no one claimed it since: nothing to free
	}
	if e := el.Value.(*dedupeEntry); e.isDone || e.token != c.Token {
		return ErrClaimLost
	}
	s.remove(el)
	return nil
}

// Len returns how many ids the store remembers now, expired ones excluded.
func (s *MemoryDedupeStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	return len(s.entries)
}

// put adds e as the newest change of its list.
func (s *MemoryDedupeStore) put(e *dedupeEntry) {
	l := s.running
	if e.isDone {
		l = s.done
	}
	s.entries[e.id] = l.PushBack(e)
}

// makeRoom makes room for one more id: it forgets the processed id changed
// longest ago, or else a claim whose lease is over. It reports false when
// the store is full of claims still in their lease.
func (s *MemoryDedupeStore) makeRoom(now time.Time) bool {
	for len(s.entries) >= s.maxEntries {
		if el := s.done.Front(); el != nil {
			s.remove(el)
		} else if el := s.running.Front(); el != nil && !now.Before(el.Value.(*dedupeEntry).leaseEnd) {
			s.remove(el)
		} else {
			return false
		}
	}
	return true
}

// prune drops the entries that expired.
func (s *MemoryDedupeStore) prune(now time.Time) {
	for _, l := range []*list.List{s.done, s.running} {
		for el := l.Front(); el != nil && !now.Before(el.Value.(*dedupeEntry).expires); el = l.Front() {
			s.remove(el)
		}
	}
}

func (s *MemoryDedupeStore) remove(el *list.Element) {
	e := el.Value.(*dedupeEntry)
	delete(s.entries, e.id)
	if e.isDone {
		s.done.Remove(el)
	} else {
		s.running.Remove(el)
	}
}
