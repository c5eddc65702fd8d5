package scribetest

import (
	"fmt"
	"slices"
)

// index is a set of ids kept in ascending order. Pages are cut from it with a
// binary search, so a page costs O(log n + limit) however large the set is.
// Ids are handed out in increasing order, so an insert is almost always an
// append; a delete shifts the tail (a memmove, no allocation).
type index []int64

// insert adds id, keeping the order. Inserting an id already present does
// nothing.
func (ix *index) insert(id int64) {
	if n := len(*ix); n == 0 || (*ix)[n-1] < id { // the usual case: a new largest id
		*ix = append(*ix, id)
		return
	}
	i, found := slices.BinarySearch(*ix, id)
	if !found {
		*ix = slices.Insert(*ix, i, id)
	}
}

// remove deletes id if present.
func (ix *index) remove(id int64) {
	if i, found := slices.BinarySearch(*ix, id); found {
		*ix = slices.Delete(*ix, i, i+1)
	}
}

// page returns up to limit ids greater than afterID (which need not be in the
// set), and whether more ids follow them. The returned slice aliases the
// index: copy it before releasing the lock that guards the index.
func (ix index) page(afterID int64, limit int) (ids []int64, hasMore bool) {
	start, end := ix.bounds(afterID, limit)
	return ix[start:end], end < len(ix)
}

// bounds returns where the page of up to limit ids after afterID starts
// and ends in the index.
func (ix index) bounds(afterID int64, limit int) (start, end int) {
	i, found := slices.BinarySearch(ix, afterID)
	if found {
		i++
	}
	return i, i + min(limit, len(ix)-i)
}

// scopes holds one index per owner (a user, a developer or a plugin).
type scopes map[int64]index

func (s scopes) insert(owner, id int64) {
	ix := s[owner]
	ix.insert(id)
	s[owner] = ix
}

func (s scopes) remove(owner, id int64) {
	ix := s[owner]
	ix.remove(id)
	if len(ix) == 0 {
		delete(s, owner)
		return
	}
	s[owner] = ix
}

// collection is one kind of resource: its rows by id, every id in order, and
// the ids of each owner in order. Rows are held by value, not by pointer: a
// collection of a pointer-free row type (transcripts, see transcriptRow) is a
// map and slices the garbage collector never has to scan, however many rows
// it holds.
type collection[T any] struct {
	last  int64 // the highest id assigned or taken so far
	rows  rowTable[T]
	all   index
	owned scopes
}

func newCollection[T any]() collection[T] {
	return collection[T]{owned: scopes{}}
}

// nextID returns a fresh id, greater than every id seen so far.
func (c *collection[T]) nextID() int64 {
	c.last++
	return c.last
}

// checkNewID checks an id a caller chose for a new row of this kind (0 means
// one will be assigned): it must be positive and free.
func (c *collection[T]) checkNewID(kind string, id int64) error {
	switch {
	case id < 0:
		return fmt.Errorf("scribetest: %s id %d: ids are positive", kind, id)
	case id != 0 && c.taken(id):
		return fmt.Errorf("scribetest: %s id %d is already taken: %w", kind, id, ErrConflict)
	}
	return nil
}

// taken reports whether id names a row.
func (c *collection[T]) taken(id int64) bool {
	_, ok := c.rows.get(id)
	return ok
}

func (c *collection[T]) add(id, owner int64, row T) {
	c.rows.set(id, row)
	c.all.insert(id)
	c.owned.insert(owner, id)
	c.last = max(c.last, id)
}

// set replaces the row id, which exists, keeping its owner.
func (c *collection[T]) set(id int64, row T) { c.rows.set(id, row) }

func (c *collection[T]) remove(id, owner int64) {
	c.rows.delete(id)
	c.all.remove(id)
	c.owned.remove(owner, id)
}

// pageIDs returns the ids of a page of owner's rows after afterID, whether
// more follow, and how many rows owner has. The ids alias the index: use
// them before releasing the lock that guards the collection.
func (c *collection[T]) pageIDs(owner, afterID int64, limit int) (ids []int64, hasMore bool, total int) {
	ix := c.owned[owner]
	ids, hasMore = ix.page(afterID, limit)
	return ids, hasMore, len(ix)
}

// page returns a page of owner's rows after afterID, whether more follow, and
// how many rows owner has.
func (c *collection[T]) page(owner, afterID int64, limit int) (rows []T, hasMore bool, total int) {
	ids, hasMore, total := c.pageIDs(owner, afterID, limit)
	rows = make([]T, len(ids))
	for i, id := range ids {
		rows[i] = c.rows.at(id)
	}
	return rows, hasMore, total
}

// ownedBy returns every row of owner in id order.
func (c *collection[T]) ownedBy(owner int64) []T {
	rows, _, _ := c.page(owner, 0, len(c.owned[owner]))
	return rows
}

// every returns every row in id order.
func (c *collection[T]) every() []T {
	rows := make([]T, len(c.all))
	for i, id := range c.all {
		rows[i] = c.rows.at(id)
	}
	return rows
}
