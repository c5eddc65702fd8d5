package webhook

import "time"

// NewMemoryDedupeStoreForTest is NewMemoryDedupeStore on the clock now.
func NewMemoryDedupeStoreForTest(ttl time.Duration, maxEntries int, lease time.Duration, now func() time.Time) *MemoryDedupeStore {
	s, err := NewMemoryDedupeStore(ttl, maxEntries, WithClaimLease(lease))
	if err != nil {
		panic(err) // a bad argument is the test's own bug
	}
	s.now = now
	return s
}

// SetStoreClock makes s read the clock now.
func SetStoreClock(s *MemoryDedupeStore, now func() time.Time) { s.now = now }
