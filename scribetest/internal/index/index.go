// Package index holds the reference server's data structures: sorted id
// sets that a page is cut from by binary search (O(log n + limit)), rows by
// id and by owner, and the bounded records of a long-running server.
package index

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// IDs is a set of ids in ascending order; an insert is mostly an append.
type IDs []int64

// Insert adds id, keeping the order; an id already present is ignored.
func (ix *IDs) Insert(id int64) {
	if n := len(*ix); n == 0 || (*ix)[n-1] < id {
		*ix = append(*ix, id)
		return
	}
	if i, found := slices.BinarySearch(*ix, id); !found {
		*ix = slices.Insert(*ix, i, id)
	}
}

// Remove deletes id if present, and reports where it was (-1 if not).
func (ix *IDs) Remove(id int64) int {
	i, found := slices.BinarySearch(*ix, id)
	if !found {
		return -1
	}
	*ix = slices.Delete(*ix, i, i+1)
	return i
}

// Bounds returns where the page of up to limit ids after afterID starts and ends.
func (ix IDs) Bounds(afterID int64, limit int) (start, end int) {
	i, found := slices.BinarySearch(ix, afterID)
	if found {
		i++
	}
	return i, i + min(limit, len(ix)-i)
}

// Collection is one kind of resource: rows by id, ids in order, all and by owner.
type Collection[T any] struct {
	Last  int64 // the highest id assigned or taken so far
	rows  map[int64]T
	all   IDs
	owned map[int64]IDs
}

// NewCollection returns an empty collection.
func NewCollection[T any]() *Collection[T] {
	return &Collection[T]{rows: map[int64]T{}, owned: map[int64]IDs{}}
}

// NextID returns a fresh id, greater than every id seen so far.
func (c *Collection[T]) NextID() int64 {
	c.Last++
	return c.Last
}

// Get returns row id.
func (c *Collection[T]) Get(id int64) (T, bool) {
	r, ok := c.rows[id]
	return r, ok
}

// Taken reports whether id names a row.
func (c *Collection[T]) Taken(id int64) bool {
	_, ok := c.rows[id]
	return ok
}

// Add stores a new row id of owner.
func (c *Collection[T]) Add(id, owner int64, row T) {
	c.rows[id] = row
	c.all.Insert(id)
	ix := c.owned[owner]
	ix.Insert(id)
	c.owned[owner] = ix
	c.Last = max(c.Last, id)
}

// Set replaces row id, which exists, keeping its owner.
func (c *Collection[T]) Set(id int64, row T) { c.rows[id] = row }

// Remove deletes row id of owner.
func (c *Collection[T]) Remove(id, owner int64) {
	delete(c.rows, id)
	c.all.Remove(id)
	ix := c.owned[owner]
	ix.Remove(id)
	if len(ix) == 0 {
		delete(c.owned, owner)
	} else {
		c.owned[owner] = ix
	}
}

// Page returns up to limit of owner's rows after afterID, whether more follow, and the total.
func (c *Collection[T]) Page(owner, afterID int64, limit int) (rows []T, hasMore bool, total int) {
	ix := c.owned[owner]
	start, end := ix.Bounds(afterID, limit)
	rows = make([]T, 0, end-start)
	for _, id := range ix[start:end] {
		rows = append(rows, c.rows[id])
	}
	return rows, end < len(ix), len(ix)
}

// OwnedBy returns every row of owner in id order.
func (c *Collection[T]) OwnedBy(owner int64) []T {
	rows, _, _ := c.Page(owner, 0, len(c.owned[owner]))
	return rows
}

// All returns every row in id order.
func (c *Collection[T]) All() []T {
	rows := make([]T, len(c.all))
	for i, id := range c.all {
		rows[i] = c.rows[id]
	}
	return rows
}

// MaxRecords bounds each record: requests, fired faults, delivery attempts.
const MaxRecords = 10000

// Ring keeps the last MaxRecords values pushed; its owner locks it.
type Ring[T any] struct {
	buf  []T
	next int // where the next push goes once buf is full
}

// Push adds v, dropping the oldest value when the ring is full.
func (r *Ring[T]) Push(v T) {
	if len(r.buf) < MaxRecords {
		r.buf = append(r.buf, v)
		return
	}
	r.buf[r.next] = v
	r.next = (r.next + 1) % MaxRecords
}

// All returns a copy of the values, oldest first.
func (r *Ring[T]) All() []T {
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

// Bounds of what the records keep of a request: a few megabytes in all.
const (
	MaxMethod  = 32
	MaxURLPart = 512
)

// TruncatedMarker ends a value a record kept cut short.
const TruncatedMarker = "…[truncated]"

// Truncate returns a copy (not pinning the request) of s cut to n bytes, marked if cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + TruncatedMarker
}
