package scribetest

// ring keeps the last max values pushed to it, for the server's records
// (requests, fired faults, delivery attempts) that must stay bounded on a
// long-running server. A push costs O(1) once full, where dropping the first
// element of a slice would move all the others. It is not safe for concurrent
// use; its owner holds a lock.
//
// The zero ring is ready and keeps maxRecords values.
type ring[T any] struct {
	buf  []T
	next int // where the next push goes once buf is full
	max  int // 0 means maxRecords
}

// maxRecords bounds each of the server's records.
const maxRecords = 10000

// push adds v, dropping the oldest value when the ring is full.
func (r *ring[T]) push(v T) {
	limit := r.max
	if limit == 0 {
		limit = maxRecords
	}
	if len(r.buf) < limit {
		r.buf = append(r.buf, v)
		return
	}
	r.buf[r.next] = v
	r.next = (r.next + 1) % limit
}

// all returns a copy of the values, oldest first.
func (r *ring[T]) all() []T {
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
