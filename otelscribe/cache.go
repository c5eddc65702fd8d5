package otelscribe

import (
	"sync"
	"sync/atomic"
)

// maxCached bounds each cache: Client.Do's templates are the paths given,
// ids included, so they are not a bounded set. Past the bound a value is
// made afresh on each use and not kept.
const maxCached = 512

// cache is a map read without a lock (every read of the hot path) and
// copied on each write (a new operation, host or status: a handful in a
// program's life).
type cache[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

// get returns the value of k, made by mk and kept on first use.
func (c *cache[K, V]) get(k K, mk func(K) V) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
		if len(*old) >= maxCached {
			return mk(k)
		}
	}
	v := mk(k)
	n := make(map[K]V, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			n[k] = v
		}
	}
	n[k] = v
	c.m.Store(&n)
	return v
}

func lenOf[K comparable, V any](m *map[K]V) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
