package webhook

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// Reservation is the answer of DedupeStore.Reserve.
type Reservation int

const (
	// Reserved means the id is new (or was released); the caller now holds it and
	// must call Complete or Release.
	Reserved Reservation = iota + 1
	// Duplicate means a delivery of this id was already processed.
	Duplicate
	// InFlight means another delivery of this id holds the reservation and has not
	// finished yet.
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

// DedupeStore remembers which webhook-ids were processed, so that a delivery
// repeated by the sender's retries runs your function once. The handler calls
// Reserve before your function, then Complete if it succeeded or Release if it
// failed (so that the sender's retry runs it again). Reserve must be atomic:
// of two concurrent calls for one id, at most one gets Reserved. A store shared
// by several receiver processes (Redis SET NX with an expiry, a database row
// with a unique key) makes dedupe work across them. Contexts passed to Complete
// and Release are not canceled with the request.
type DedupeStore interface {
	// Reserve claims id for processing, or says why not.
	Reserve(ctx context.Context, id string) (Reservation, error)
	// Complete marks id processed: later Reserve calls answer Duplicate.
	Complete(ctx context.Context, id string) error
	// Release drops the claim on id: the next Reserve answers Reserved.
	Release(ctx context.Context, id string) error
}

// DefaultDedupeTTL is how long NewMemoryDedupeStore remembers an id by
// default: 30 hours, longer than the service's whole retry schedule (about 27
// hours 35 minutes from the first attempt to the last) plus jitter, so that a
// retry sent because a 2xx answer got lost is still recognised.
const DefaultDedupeTTL = 30 * time.Hour

// DefaultDedupeMaxEntries bounds the ids NewMemoryDedupeStore keeps by default.
const DefaultDedupeMaxEntries = 100_000

// MemoryDedupeStore is the in-process DedupeStore NewHandler uses by default.
// It forgets an id ttl after its last change, and the oldest ids first when it
// holds maxEntries, so its memory is bounded. A reservation that is neither
// completed nor released also expires after ttl. It is safe for concurrent
// use; it dedupes within one process only.
type MemoryDedupeStore struct {
	ttl        time.Duration
	maxEntries int
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *dedupeEntry
	order   *list.List               // oldest change first
}

type dedupeEntry struct {
	id      string
	done    bool
	expires time.Time
}

// NewMemoryDedupeStore returns an empty MemoryDedupeStore that remembers an id
// for ttl and at most maxEntries ids. A ttl or maxEntries of zero or less
// selects DefaultDedupeTTL or DefaultDedupeMaxEntries. Keep ttl at least twice
// the Verifier's tolerance: a replay of a captured delivery passes the
// timestamp check for that long.
func NewMemoryDedupeStore(ttl time.Duration, maxEntries int) *MemoryDedupeStore {
	if ttl <= 0 {
		ttl = DefaultDedupeTTL
	}
	if maxEntries <= 0 {
		maxEntries = DefaultDedupeMaxEntries
	}
	return &MemoryDedupeStore{
		ttl:        ttl,
		maxEntries: maxEntries,
		now:        time.Now,
		entries:    make(map[string]*list.Element),
		order:      list.New(),
	}
}

// Reserve implements DedupeStore.
func (s *MemoryDedupeStore) Reserve(_ context.Context, id string) (Reservation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.prune(now)
	if el, ok := s.entries[id]; ok {
		if el.Value.(*dedupeEntry).done {
			return Duplicate, nil
		}
		return InFlight, nil
	}
	s.entries[id] = s.order.PushBack(&dedupeEntry{id: id, expires: now.Add(s.ttl)})
	for s.order.Len() > s.maxEntries {
		s.remove(s.order.Front())
	}
	return Reserved, nil
}

// Complete implements DedupeStore. Completing an id that is not reserved
// (because it expired, say) records it as processed all the same.
func (s *MemoryDedupeStore) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e := &dedupeEntry{id: id, done: true, expires: now.Add(s.ttl)}
	if el, ok := s.entries[id]; ok {
		el.Value = e
		s.order.MoveToBack(el)
	} else {
		s.entries[id] = s.order.PushBack(e)
	}
	for s.order.Len() > s.maxEntries {
		s.remove(s.order.Front())
	}
	return nil
}

// Release implements DedupeStore. It forgets a reservation that is not
// completed; a completed id stays.
func (s *MemoryDedupeStore) Release(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[id]; ok && !el.Value.(*dedupeEntry).done {
		s.remove(el)
	}
	return nil
}

// Len returns how many ids the store remembers now, expired ones excluded.
func (s *MemoryDedupeStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	return s.order.Len()
}

// prune drops the entries that expired. Every entry gets the same ttl and
// moves to the back when it changes, so the list is ordered by expiry.
func (s *MemoryDedupeStore) prune(now time.Time) {
	for el := s.order.Front(); el != nil && !now.Before(el.Value.(*dedupeEntry).expires); el = s.order.Front() {
		s.remove(el)
	}
}

func (s *MemoryDedupeStore) remove(el *list.Element) {
	delete(s.entries, el.Value.(*dedupeEntry).id)
	s.order.Remove(el)
}
