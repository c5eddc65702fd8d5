package state

// Transcripts are kept encoded in an Arena of large chunks, with
// pointer-free indexes: the collector does not scan them, so a cycle costs
// the same at 10^6 transcripts as at 10^3 (docs/design/server.md).

// Chunks double from arenaFirst to arenaChunk bytes; an arena compacts once
// arenaCompactMin dead bytes outweigh the live ones.
const (
	arenaFirst      = 4 << 10
	arenaChunk      = 1 << 20
	arenaCompactMin = 32 << 20
)

// Ref locates one encoding in an Arena. It holds no pointer.
type Ref struct {
	chunk, off, n uint32
}

// Arena is an append-only store of bytes that never change, even across a compaction.
type Arena struct {
	chunks     [][]byte
	live, dead int
}

// Put appends b and returns where it is.
func (a *Arena) Put(b []byte) Ref {
	last := len(a.chunks) - 1
	if last < 0 || len(a.chunks[last])+len(b) > cap(a.chunks[last]) {
		size := arenaFirst
		if last >= 0 {
			size = min(2*cap(a.chunks[last]), arenaChunk)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(b))))
		last++
	}
	c := a.chunks[last]
	r := Ref{chunk: uint32(last), off: uint32(len(c)), n: uint32(len(b))}
	a.chunks[last] = append(c, b...)
	a.live += len(b)
	return r
}

// Get returns the bytes at r, capped so that appending to them copies.
func (a *Arena) Get(r Ref) []byte { return get(a.chunks, r) }

func get(chunks [][]byte, r Ref) []byte {
	end := r.off + r.n
	return chunks[r.chunk][r.off:end:end]
}

// Free records that the bytes at r are no longer referenced.
func (a *Arena) Free(r Ref) {
	a.live -= int(r.n)
	a.dead += int(r.n)
}

// wasteful reports whether compacting would be worth its copy.
func (a *Arena) wasteful() bool { return a.dead >= arenaCompactMin && a.dead > a.live }

// Snapshot is the arena's chunks at one moment, readable without a lock.
type Snapshot struct{ chunks [][]byte }

// Snapshot returns the arena as it is now.
func (a *Arena) Snapshot() Snapshot {
	return Snapshot{chunks: append([][]byte(nil), a.chunks...)}
}

// Get returns the bytes at r, which was handed out before the snapshot.
func (s Snapshot) Get(r Ref) []byte { return get(s.chunks, r) }
