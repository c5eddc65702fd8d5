package scribetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	scribe "github.com/scribehq/scribe-go"
)

// Transcripts are kept in their wire form. A transcript is encoded once, when
// it is created or changed, into a jsonArena; GET /transcripts/{id} and the
// pages of GET /transcripts copy those bytes out instead of running
// encoding/json on every request, and the Go reads (Transcripts, the events)
// decode them. Keeping them as bytes in large chunks rather than as Go
// structs also leaves the garbage collector nothing to scan: a store of a
// million transcripts is a few hundred one-MiB byte chunks and pointer-free
// maps and slices, so a collection cycle costs about the same at 10^6
// transcripts as at 10^3 (docs/performance.md, scribetest).

// arenaChunk is the size of the arena's chunks. An encoding larger than a
// chunk gets a chunk of its own.
const arenaChunk = 1 << 20

// arenaCompactMin is how many bytes of replaced or deleted encodings the
// arena tolerates before it compacts (and then only once they outweigh the
// live ones).
const arenaCompactMin = 32 << 20

// jsonRef locates one encoding in a jsonArena. It holds no pointer.
type jsonRef struct {
	chunk, off, n uint32
}

// jsonArena is an append-only store of byte strings in large chunks. Bytes,
// once put, never change: a slice returned by get stays valid and unchanged
// after the lock guarding the arena is released, even across a compaction
// (which copies into new chunks and leaves the old ones to the collector).
type jsonArena struct {
	chunks     [][]byte
	live, dead int // bytes referenced, and bytes replaced or deleted
}

// put appends b and returns where it is.
func (a *jsonArena) put(b []byte) jsonRef {
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < len(b) {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, len(b))))
		last++
	}
	c := a.chunks[last]
	off := len(c)
	a.chunks[last] = append(c, b...)
	a.live += len(b)
	return jsonRef{chunk: uint32(last), off: uint32(off), n: uint32(len(b))}
}

// get returns the bytes at r, capped so that appending to them copies.
func (a *jsonArena) get(r jsonRef) []byte {
	end := r.off + r.n
	return a.chunks[r.chunk][r.off:end:end]
}

// free records that the bytes at r are no longer referenced.
func (a *jsonArena) free(r jsonRef) {
	a.live -= int(r.n)
	a.dead += int(r.n)
}

// wasteful reports whether compacting would be worth its copy.
func (a *jsonArena) wasteful() bool { return a.dead >= arenaCompactMin && a.dead > a.live }

// transcriptRow is a stored transcript: its owner and its wire form. It holds
// no pointer, so the map of a million of them is not scanned by the garbage
// collector.
type transcriptRow struct {
	owner int64
	wire  jsonRef
}

// encodeTranscript returns t as the service answers it: exactly what
// encoding/json makes of scribe.Transcript. A transcript encoding/json cannot
// encode (a created_on year outside 0..9999, metadata that is not valid JSON)
// is refused here, when it is stored, with the reason, rather than failing
// every later GET.
func encodeTranscript(t *scribe.Transcript) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("scribetest: transcript %d cannot be encoded as JSON: %w", t.ID, err)
	}
	return b, nil
}

// decodeTranscript is the inverse of encodeTranscript. Metadata is empty,
// never nil, as in a decoded response.
func decodeTranscript(b []byte) scribe.Transcript {
	var t scribe.Transcript
	if err := json.Unmarshal(b, &t); err != nil {
		// The bytes were made by encodeTranscript; they always decode.
		panic(fmt.Sprintf("scribetest: a stored transcript does not decode (a bug in scribetest): %v", err))
	}
	if t.Metadata == nil {
		t.Metadata = map[string]json.RawMessage{}
	}
	return t
}

// The list envelope of wire.List, written by hand around encoded items. Its
// members come in wire.List's order; TestTranscriptWireBytes checks the
// whole against encoding/json.
const (
	listHead  = `{"has_more":`
	listTotal = `,"total_count":`
	listData  = `,"data":[`
	listTail  = "]}\n"
)

// bufPool holds the buffers responses are assembled in. A buffer that grew
// past maxPooledBuf is left to the collector rather than pinned.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledBuf = 4 << 20

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > maxPooledBuf {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

// writeEncoded writes body, which is JSON and ends with a newline, as an
// application/json answer with status, and returns its buffer to bufPool.
// Content-Length is set, so that a large body goes out in one piece rather
// than chunked.
func writeEncoded(w http.ResponseWriter, status int, body *[]byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = headerInt(int64(len(*body)))
	w.WriteHeader(status)
	_, _ = w.Write(*body)
	putBuf(body)
}

// contentTypeJSON is the Content-Type value of every JSON answer; net/http
// only reads it.
var contentTypeJSON = []string{"application/json"}

// encodeValue encodes v as writeJSON does (encoding/json, HTML-safe, with a
// trailing newline) into a buffer from bufPool.
func encodeValue(v any) (*[]byte, error) {
	buf := getBuf()
	bb := bytes.NewBuffer(*buf)
	if err := json.NewEncoder(bb).Encode(v); err != nil {
		putBuf(buf)
		return nil, err
	}
	*buf = bb.Bytes()
	return buf, nil
}
