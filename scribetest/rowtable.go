package scribetest

// rowTable holds a collection's rows by id. The ids the store assigns are
// consecutive from 1 (chosen ones, in fixtures and seeding calls, usually
// small too), so a row whose id is below denseIDLimit is kept in a slot of
// fixed-size chunks indexed by the id itself: a look-up is two indexings
// instead of a hash probe, and an insert never rehashes or copies the rows
// already there, as a Go map does each time it grows (which showed in the
// profile of a POST /plugins: a map of 128-byte plugin rows, split and
// copied as it grew by one per request). Rows with larger ids (up to
// 2^53-1 may be chosen) go to a map. The zero value is empty and ready.
type rowTable[T any] struct {
	dense  []*[rowChunkLen]rowSlot[T] // chunk i holds ids i*rowChunkLen ...; nil until one is set
	sparse map[int64]T                // ids from denseIDLimit on (or negative)
	n      int
}

// rowSlot is one id's place in a dense chunk.
type rowSlot[T any] struct {
	row T
	ok  bool
}

const (
	// rowChunkLen is the number of ids a dense chunk covers.
	rowChunkLen = 1024
	// denseIDLimit bounds the ids kept in chunks: the slice of chunk
	// pointers is at most denseIDLimit/rowChunkLen long (128 KiB), however
	// sparse the ids below it are.
	denseIDLimit = 1 << 24
)

func isDense(id int64) bool { return id >= 0 && id < denseIDLimit }

// get returns the row of id, if there is one.
func (t *rowTable[T]) get(id int64) (T, bool) {
	if isDense(id) {
		if c := id / rowChunkLen; c < int64(len(t.dense)) && t.dense[c] != nil {
			s := &t.dense[c][id%rowChunkLen]
			return s.row, s.ok
		}
		var zero T
		return zero, false
	}
	r, ok := t.sparse[id]
	return r, ok
}

// at returns the row of id, or the zero row if there is none (as indexing
// a map would).
func (t *rowTable[T]) at(id int64) T {
	r, _ := t.get(id)
	return r
}

// set stores row as id's, adding or replacing it.
func (t *rowTable[T]) set(id int64, row T) {
	if !isDense(id) {
		if t.sparse == nil {
			t.sparse = map[int64]T{}
		}
		if _, ok := t.sparse[id]; !ok {
			t.n++
		}
		t.sparse[id] = row
		return
	}
	c := int(id / rowChunkLen)
	if c >= len(t.dense) {
		t.dense = append(t.dense, make([]*[rowChunkLen]rowSlot[T], c+1-len(t.dense))...)
	}
	if t.dense[c] == nil {
		t.dense[c] = new([rowChunkLen]rowSlot[T])
	}
	s := &t.dense[c][id%rowChunkLen]
	if !s.ok {
		t.n++
	}
	*s = rowSlot[T]{row: row, ok: true}
}

// delete removes id's row, if there is one.
func (t *rowTable[T]) delete(id int64) {
	if !isDense(id) {
		if _, ok := t.sparse[id]; ok {
			delete(t.sparse, id)
			t.n--
		}
		return
	}
	if c := id / rowChunkLen; c < int64(len(t.dense)) && t.dense[c] != nil {
		if s := &t.dense[c][id%rowChunkLen]; s.ok {
			*s = rowSlot[T]{} // the row's strings are let go
			t.n--
		}
	}
}

// len is the number of rows.
func (t *rowTable[T]) len() int { return t.n }

// reserve makes room for n more rows before a bulk load: the map of large
// ids is sized once when it is in use (dense chunks need no room made).
func (t *rowTable[T]) reserve(n int) {
	if len(t.sparse) == 0 || n < rowChunkLen {
		return
	}
	m := make(map[int64]T, len(t.sparse)+n)
	for id, r := range t.sparse {
		m[id] = r
	}
	t.sparse = m
}
