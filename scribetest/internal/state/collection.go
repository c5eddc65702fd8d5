package state

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// Collection is one kind of resource: each owner's rows in ascending id
// order, so that a page is a binary search and a slice of at most its limit,
// and each row's owner, so that a row is found by its id alone. Its owner
// (the Store) locks it.
type Collection[T any] struct {
	Last  int64 // the highest id assigned or taken so far
	id    func(T) int64
	clone func(T) T       // copies what a row points to, going in and out
	owner map[int64]int64 // row id -> owner id
	rows  map[int64][]T   // owner id -> rows by ascending id
}

// NewCollection returns an empty collection of rows whose id is id(row);
// clone, if not nil, copies what a row points to, so that the collection
// and its callers share nothing.
func NewCollection[T any](id func(T) int64, clone func(T) T) *Collection[T] {
	if clone == nil {
		clone = func(row T) T { return row }
	}
	return &Collection[T]{id: id, clone: clone, owner: map[int64]int64{}, rows: map[int64][]T{}}
}

// clear removes every row and forgets the ids assigned.
func (c *Collection[T]) clear() {
	c.Last = 0
	clear(c.owner)
	clear(c.rows)
}

// NextID returns a fresh id, greater than every id seen so far.
func (c *Collection[T]) NextID() int64 {
	c.Last++
	return c.Last
}

// find returns owner's rows and where id is, or would go, among them.
func (c *Collection[T]) find(owner, id int64) (rows []T, i int, found bool) {
	rows = c.rows[owner]
	i, found = slices.BinarySearchFunc(rows, id, func(row T, id int64) int { return cmp.Compare(c.id(row), id) })
	return rows, i, found
}

// Get returns row id.
func (c *Collection[T]) Get(id int64) (row T, ok bool) {
	if owner, ok := c.owner[id]; ok {
		rows, i, _ := c.find(owner, id)
		return c.clone(rows[i]), true
	}
	return row, false
}

// Taken reports whether id names a row.
func (c *Collection[T]) Taken(id int64) bool {
	_, ok := c.owner[id]
	return ok
}

// Reserve makes the ids NextID assigns follow id.
func (c *Collection[T]) Reserve(id int64) { c.Last = max(c.Last, id) }

// Add stores row, whose id is not taken, as owner's.
func (c *Collection[T]) Add(owner int64, row T) {
	id := c.id(row)
	rows, i, _ := c.find(owner, id)
	c.rows[owner] = slices.Insert(rows, i, c.clone(row)) // mostly an append: ids mostly grow
	c.owner[id] = owner
	c.Last = max(c.Last, id)
}

// Set replaces the row whose id row has, which exists.
func (c *Collection[T]) Set(row T) {
	id := c.id(row)
	rows, i, _ := c.find(c.owner[id], id)
	rows[i] = c.clone(row)
}

// Remove deletes row id, which exists.
func (c *Collection[T]) Remove(id int64) {
	owner := c.owner[id]
	rows, i, _ := c.find(owner, id)
	if c.rows[owner] = slices.Delete(rows, i, i+1); len(c.rows[owner]) == 0 {
		delete(c.rows, owner)
	}
	delete(c.owner, id)
}

// Page returns a copy of up to limit of owner's rows after afterID, whether
// more follow, and how many owner has.
func (c *Collection[T]) Page(owner, afterID int64, limit int) (page []T, hasMore bool, total int) {
	rows, i, found := c.find(owner, afterID)
	if found {
		i++
	}
	end := i + min(limit, len(rows)-i)
	return c.copies(rows[i:end]), end < len(rows), len(rows)
}

// Rows yields copies of every row, by ascending id.
func (c *Collection[T]) Rows() iter.Seq[any] {
	return func(yield func(any) bool) {
		for _, id := range slices.Sorted(maps.Keys(c.owner)) {
			if row, _ := c.Get(id); !yield(row) {
				return
			}
		}
	}
}

// OwnedBy returns copies of owner's rows in id order.
func (c *Collection[T]) OwnedBy(owner int64) []T { return c.copies(c.rows[owner]) }

// All returns copies of every row in id order.
func (c *Collection[T]) All() []T {
	all := c.copies(slices.Concat(slices.Collect(maps.Values(c.rows))...))
	slices.SortFunc(all, func(a, b T) int { return cmp.Compare(c.id(a), c.id(b)) })
	return all
}

// copies returns a copy of rows, each cloned.
func (c *Collection[T]) copies(rows []T) []T {
	out := make([]T, len(rows))
	for i, row := range rows {
		out[i] = c.clone(row)
	}
	return out
}

// MaxIdempotencyKey is the longest Idempotency-Key the contract admits.
const MaxIdempotencyKey = 255
