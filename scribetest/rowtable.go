package scribetest

// rowTable holds a collection's rows by id. The ids the store assigns are
// consecutive from 1 (chosen ones, in fixtures and seeding calls, usually
// small too), so rows are kept in the slots of fixed-size chunks indexed by
// the id itself, as long as the ids are dense: a look-up is two indexings
// instead of a hash probe, and an insert never rehashes or copies the rows
// already there, as a Go map does each time it grows (which showed in the
// profile of a POST /plugins: a map of 128-byte plugin rows, split and
// copied as it grew by one per request). The chunks cover the ids from 0
// up, one more chunk at a time and only while the table holds at least a
// quarter as many rows as the chunks have slots; a row whose id is beyond
// them (a fixture's chosen ids spread wide, up to 2^53-1), or negative,
// goes to a map. So the chunks never take more than four slots per row,
// however the ids are spread. The zero value is empty and ready.
type rowTable[T any] struct {
	dense  []*[rowChunkLen]rowSlot[T] // chunk i holds ids i*rowChunkLen ...
	sparse map[int64]T                // the rows whose id had no chunk when set
	n      int                        // rows, in both
}

// rowSlot is one id's place in a dense chunk.
type rowSlot[T any] struct {
	row T
	ok  bool
}

// rowChunkLen is the number of ids a dense chunk covers.
const rowChunkLen = 1024

// slot returns id's slot if a chunk covers id.
func (t *rowTable[T]) slot(id int64) *rowSlot[T] {
	if id < 0 || id/rowChunkLen >= int64(len(t.dense)) {
		return nil
	}
	return &t.dense[id/rowChunkLen][id%rowChunkLen]
}

// get returns the row of id, if there is one.
func (t *rowTable[T]) get(id int64) (T, bool) {
	if s := t.slot(id); s != nil && s.ok {
		return s.row, true
	}
	if len(t.sparse) > 0 {
		r, ok := t.sparse[id]
		return r, ok
	}
	var zero T
	return zero, false
}

// at returns the row of id, or the zero row if there is none (as indexing
// a map would).
func (t *rowTable[T]) at(id int64) T {
	r, _ := t.get(id)
	return r
}

// set stores row as id's, adding or replacing it. A row stays where it was
// first put: in the map if it went there, else in its slot.
func (t *rowTable[T]) set(id int64, row T) {
	if len(t.sparse) > 0 {
		if _, ok := t.sparse[id]; ok {
			t.sparse[id] = row
			return
		}
	}
	s := t.slot(id)
	if s == nil && id >= 0 && id/rowChunkLen == int64(len(t.dense)) && t.n >= len(t.dense)*rowChunkLen/4 {
		t.dense = append(t.dense, new([rowChunkLen]rowSlot[T]))
		s = t.slot(id)
	}
	if s == nil {
		if t.sparse == nil {
			t.sparse = map[int64]T{}
		}
		t.sparse[id] = row
		t.n++
		return
	}
	if !s.ok {
		t.n++
	}
	*s = rowSlot[T]{row: row, ok: true}
}

// delete removes id's row, if there is one.
func (t *rowTable[T]) delete(id int64) {
	if s := t.slot(id); s != nil && s.ok {
		*s = rowSlot[T]{} // the row's strings are let go
		t.n--
		return
	}
	if _, ok := t.sparse[id]; ok {
		delete(t.sparse, id)
		t.n--
	}
}

// len is the number of rows.
func (t *rowTable[T]) len() int { return t.n }

// reserve makes room for n more rows before a bulk load: the map of the
// rows beyond the chunks is sized once when it is in use (chunks need no
// room made).
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
