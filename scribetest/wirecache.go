package scribetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

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
	// chunkSize is the size of a new chunk; 0 means arenaChunk.
	chunkSize int
}

// put appends b and returns where it is.
func (a *jsonArena) put(b []byte) jsonRef {
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < len(b) {
		size := a.chunkSize
		if size == 0 {
			size = arenaChunk
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(b))))
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

// encodeTranscript returns t as the service answers it: byte for byte what
// encoding/json makes of scribe.Transcript (TestEncodeTranscriptMatchesJSON
// and FuzzEncodeTranscript compare the two; TestTranscriptFieldsKnown fails
// when scribe.Transcript gains a field this does not write). It is written
// out by hand because it runs for every transcript stored, a million of
// them in a large fixture load, where encoding/json's reflection cost
// several times as much. A transcript encoding/json cannot encode (a
// timestamp year outside 0..9999, metadata that is not valid JSON) is
// refused here, when it is stored, naming the member, rather than failing
// every later GET.
func encodeTranscript(t *scribe.Transcript) ([]byte, error) {
	return appendTranscriptMeta(nil, t, nil)
}

// appendTranscriptMeta appends the encoding of t to b (see
// encodeTranscript); the store encodes into one scratch buffer
// (encodeTranscriptLocked), so that storing a transcript allocates nothing
// but its room in the arena. meta, when not nil, is t's metadata already
// encoded, what appendMetadata made of it, and is written in place of
// t.Metadata: a fixture load encodes each transcript's metadata as it
// decodes it, so that it holds bytes rather than a map per transcript
// until the store takes them (fixtures.go).
func appendTranscriptMeta(b []byte, t *scribe.Transcript, meta []byte) ([]byte, error) {
	b = slices.Grow(b, 320+len(t.Headline)+len(t.Text)+len(t.Type)+len(t.User.FirstName)+len(t.User.LastName))
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, t.ID, 10)
	b = append(b, `,"headline":`...)
	b = appendJSONString(b, t.Headline)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, t.Text)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, t.Type)
	b = append(b, `,"created_on":`...)
	b, err := appendJSONTime(b, t.CreatedOn)
	if err != nil {
		return nil, fmt.Errorf("scribetest: transcript %d cannot be encoded as JSON: created_on: %w", t.ID, err)
	}
	b = append(b, `,"metadata":`...)
	if meta != nil {
		b = append(b, meta...)
	} else if b, err = appendMetadata(b, t.Metadata); err != nil {
		return nil, fmt.Errorf("scribetest: transcript %d cannot be encoded as JSON: metadata: %w", t.ID, err)
	}
	b = append(b, `,"user":{"id":`...)
	b = strconv.AppendInt(b, t.User.ID, 10)
	b = append(b, `,"first_name":`...)
	b = appendJSONString(b, t.User.FirstName)
	b = append(b, `,"last_name":`...)
	b = appendJSONString(b, t.User.LastName)
	b = append(b, `},"job":{"id":`...)
	b = strconv.AppendInt(b, t.Job.ID, 10)
	b = append(b, `,"lines":`...)
	b = strconv.AppendInt(b, int64(t.Job.Lines), 10)
	b = append(b, `},"audio":{"id":`...)
	b = strconv.AppendInt(b, t.Audio.ID, 10)
	b = append(b, `,"length_in_seconds":`...)
	b = strconv.AppendInt(b, int64(t.Audio.LengthInSeconds), 10)
	b = append(b, `,"created_on":`...)
	if b, err = appendJSONTime(b, t.Audio.CreatedOn); err != nil {
		return nil, fmt.Errorf("scribetest: transcript %d cannot be encoded as JSON: audio.created_on: %w", t.ID, err)
	}
	return append(b, "}}"...), nil
}

// appendMetadata appends a transcript's metadata as encoding/json writes
// it: sorted keys, values compacted and checked, {} when there is none.
func appendMetadata(b []byte, m map[string]json.RawMessage) ([]byte, error) {
	if len(m) == 0 {
		return append(b, "{}"...), nil
	}
	enc, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendJSONTime appends t as time.Time.MarshalJSON does: RFC 3339 with
// nanoseconds, refusing what RFC 3339 cannot express.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	return append(b, '"'), err
}

// jsonSafe reports the ASCII bytes a JSON string holds as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it by default: " and \ escaped, control characters too (\b, \f, \n,
// \r, \t by name), <, > and & as \u003c, \u003e, \u0026, invalid UTF-8
// as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
	writeJSONBytes(w, status, *body)
	putBuf(body)
}

// writeJSONBytes writes body, JSON ending with a newline, as an
// application/json answer with status and its Content-Length.
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = headerInt(int64(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// contentTypeJSON is the Content-Type value of every JSON answer; net/http
// only reads it.
var contentTypeJSON = []string{"application/json"}

// encodeValue encodes v as json.Encoder does (HTML-safe, with a trailing
// newline) into a buffer from bufPool.
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
