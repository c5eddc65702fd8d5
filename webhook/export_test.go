package webhook

import "time"

// NewMemoryDedupeStoreForTest is NewMemoryDedupeStore on the clock now.
func NewMemoryDedupeStoreForTest(ttl time.Duration, maxEntries int, lease time.Duration, now func() time.Time) *MemoryDedupeStore {
	var opts []MemoryStoreOption
	if lease > 0 {
		opts = append(opts, WithClaimLease(lease))
	}
	s := NewMemoryDedupeStore(ttl, maxEntries, opts...)
	s.now = now
	return s
}

// SetStoreClock makes s read the clock now.
func SetStoreClock(s *MemoryDedupeStore, now func() time.Time) { s.now = now }
