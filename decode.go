package scribe

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/scribehq/scribe-go/internal/wire"
)

// This file is the client's fast path for decoding the two responses read
// most, a transcript (GET /transcripts/{id}) and a page of them
// (GET /transcripts): json.Unmarshal's reflection was the largest single
// cost of those calls. The fast path reads only the form it can read
// exactly: when it answers true, the result is what json.Unmarshal would
// give into a zero value, field for field; for anything else (a null, a
// float where an integer goes, a duplicate or case-variant member name, a
// non-ASCII or escaped member name, malformed JSON, deep nesting) it answers
// false and the caller runs json.Unmarshal, which then gives its own result
// or error. FuzzDecodeTranscript and FuzzDecodeTranscriptList compare the
// two on any input; TestDecodeFastPathTaken checks that what the reference
// server sends stays on the fast path; docs/client.md ("Decoding
// responses") says the same for users.

// unmarshalResponse decodes a 2xx body into out, which always points to a
// zero value (the callers declare it just before the call): a transcript
// or a page of transcripts through the fast path when it can, anything else,
// and whatever the fast path refuses, through json.Unmarshal, whose error
// is returned as it is.
func unmarshalResponse(data []byte, out any) error {
	switch v := out.(type) {
	case *Transcript:
		if decodeTranscript(data, v) {
			return nil
		}
	case *wire.List[Transcript]:
		if decodeTranscriptList(data, v) {
			return nil
		}
	}
	return json.Unmarshal(data, out)
}

// decodeTranscript decodes data into *t, which must be the zero value. True
// means *t holds exactly what json.Unmarshal(data, t) gives; false means the
// fast path does not read this input, and *t is left zero for json.Unmarshal.
func decodeTranscript(data []byte, t *Transcript) bool {
	d := decoder{data: data}
	if d.transcript(t) && d.end() {
		return true
	}
	*t = Transcript{}
	return false
}

// decodeTranscriptList is decodeTranscript for a page of transcripts, the
// list envelope of GET /transcripts.
func decodeTranscriptList(data []byte, l *wire.List[Transcript]) bool {
	d := decoder{data: data}
	if d.list(l) && d.end() {
		return true
	}
	*l = wire.List[Transcript]{}
	return false
}

// maxSkipDepth bounds the nesting of the values the decoder skips or keeps
// as raw bytes (unknown members, metadata values); deeper input goes to
// json.Unmarshal, which has its own bound.
const maxSkipDepth = 64

// The member names of each struct the fast path fills, as encoding/json
// knows them (their json tags). A name that equals one of them but for
// case is a match for encoding/json too; the fast path leaves it to
// json.Unmarshal. TestDecodeKnowsEveryField checks these lists against the
// structs, so that a field added to them cannot be skipped silently.
var (
	transcriptNames = []string{"id", "headline", "text", "type", "created_on", "metadata", "user", "job", "audio"}
	userNames       = []string{"id", "first_name", "last_name"}
	jobNames        = []string{"id", "lines"}
	audioNames      = []string{"id", "length_in_seconds", "created_on"}
	listNames       = []string{"has_more", "total_count", "data"}
)

// decoder reads one JSON document from data, front to back.
type decoder struct {
	data []byte
	i    int    // the next byte to read
	buf  []byte // scratch for unescaping strings, reused
}

// ws skips whitespace as JSON defines it.
func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// end reports whether nothing but whitespace is left.
func (d *decoder) end() bool {
	d.ws()
	return d.i == len(d.data)
}

// consume reads byte c after optional whitespace.
func (d *decoder) consume(c byte) bool {
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// field reads the next member name of an object whose '{' is read (first)
// or whose last member's value is read, and the ':' after it. end is true
// when the object closed instead. ok is false for malformed input and for
// a name that is not plain printable ASCII without escapes: encoding/json
// folds such names in ways the fast path does not reproduce.
func (d *decoder) field(first bool) (name []byte, end, ok bool) {
	d.ws()
	if d.i >= len(d.data) {
		return nil, false, false
	}
	c := d.data[d.i]
	if c == '}' {
		d.i++
		return nil, true, true // right after '{' or a value; after ',' a '"' is wanted below
	}
	if !first {
		if c != ',' {
			return nil, false, false
		}
		d.i++
		d.ws()
		if d.i >= len(d.data) {
			return nil, false, false
		}
		c = d.data[d.i]
	}
	if c != '"' {
		return nil, false, false
	}
	start := d.i + 1
	j := start
	for ; j < len(d.data); j++ {
		b := d.data[j]
		if b == '"' {
			break
		}
		if b < 0x20 || b >= utf8.RuneSelf || b == '\\' {
			return nil, false, false
		}
	}
	if j >= len(d.data) {
		return nil, false, false
	}
	d.i = j + 1
	if !d.consume(':') {
		return nil, false, false
	}
	return d.data[start:j], false, true
}

// sep reads what follows a member or an element: a ',' (more is true) or
// closer, the end of the object or array.
func (d *decoder) sep(closer byte) (more, ok bool) {
	d.ws()
	if d.i >= len(d.data) {
		return false, false
	}
	switch d.data[d.i] {
	case ',':
		d.i++
		return true, true
	case closer:
		d.i++
		return false, true
	}
	return false, false
}

// unknown decides on a member name that no field has exactly: true when no
// field has it in any case either, so that encoding/json ignores the member
// (the caller skips its value); false when encoding/json would decode it
// into a field by case-insensitive match.
func unknown(name []byte, names []string) bool {
	for _, n := range names {
		if asciiEqualFold(name, n) {
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether a and b are equal with ASCII letters
// folded, which for ASCII is how encoding/json matches names.
func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// object reads an object, calling member with each member's name to read
// its value. member returns the known member's bit (its place in names) and
// whether its value was read, or bit -1 for a name it does not know: a name
// that no member has in any case is skipped (encoding/json ignores it),
// while one that is known but for case, or a member that comes twice, sends
// the input to json.Unmarshal (it would decode it into the field by its
// folding, or merge the two).
func (d *decoder) object(names []string, member func(name []byte) (bit int, ok bool)) bool {
	if !d.consume('{') {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		name, end, ok := d.field(first)
		if !ok {
			return false
		}
		if end {
			return true
		}
		bit, ok := member(name)
		if bit < 0 {
			if !unknown(name, names) || !d.skip(0) {
				return false
			}
			continue
		}
		if !ok || seen&(1<<bit) != 0 {
			return false
		}
		seen |= 1 << bit
	}
}

// list reads the envelope of a page of transcripts.
func (d *decoder) list(l *wire.List[Transcript]) bool {
	return d.object(listNames, func(name []byte) (bit int, ok bool) {
		switch string(name) {
		case "has_more":
			l.HasMore, ok = d.bool()
			return 0, ok
		case "total_count":
			l.TotalCount, ok = d.int()
			return 1, ok
		case "data":
			ok = d.transcripts(&l.Data)
			return 2, ok
		}
		return -1, false
	})
}

// transcripts reads an array of transcripts. An empty array is an empty,
// non-nil slice, as encoding/json makes it.
func (d *decoder) transcripts(out *[]Transcript) bool {
	if !d.consume('[') {
		return false
	}
	// A transcript takes at least about 200 bytes of JSON, and as many of
	// memory: room for len/256 of them, at most a page of 100, avoids the
	// copies of growing the slice without overshooting by much.
	s := make([]Transcript, 0, min(len(d.data)/256, 100))
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		*out = s
		return true
	}
	for {
		s = append(s, Transcript{})
		if !d.transcript(&s[len(s)-1]) {
			return false
		}
		more, ok := d.sep(']')
		if !ok {
			return false
		}
		if !more {
			*out = s
			return true
		}
	}
}

// transcript reads one transcript into *t, which is zero.
func (d *decoder) transcript(t *Transcript) bool {
	return d.object(transcriptNames, func(name []byte) (bit int, ok bool) {
		switch string(name) {
		case "id":
			t.ID, ok = d.int64()
			return 0, ok
		case "headline":
			t.Headline, ok = d.str()
			return 1, ok
		case "text":
			t.Text, ok = d.str()
			return 2, ok
		case "type":
			t.Type, ok = d.str()
			return 3, ok
		case "created_on":
			ok = d.time(&t.CreatedOn)
			return 4, ok
		case "metadata":
			t.Metadata, ok = d.metadata()
			return 5, ok
		case "user":
			ok = d.user(&t.User)
			return 6, ok
		case "job":
			ok = d.job(&t.Job)
			return 7, ok
		case "audio":
			ok = d.audio(&t.Audio)
			return 8, ok
		}
		return -1, false
	})
}

// user reads a transcript's user.
func (d *decoder) user(u *TranscriptUser) bool {
	return d.object(userNames, func(name []byte) (bit int, ok bool) {
		switch string(name) {
		case "id":
			u.ID, ok = d.int64()
			return 0, ok
		case "first_name":
			u.FirstName, ok = d.str()
			return 1, ok
		case "last_name":
			u.LastName, ok = d.str()
			return 2, ok
		}
		return -1, false
	})
}

// job reads a transcript's job.
func (d *decoder) job(j *TranscriptJob) bool {
	return d.object(jobNames, func(name []byte) (bit int, ok bool) {
		switch string(name) {
		case "id":
			j.ID, ok = d.int64()
			return 0, ok
		case "lines":
			j.Lines, ok = d.int()
			return 1, ok
		}
		return -1, false
	})
}

// audio reads a transcript's audio.
func (d *decoder) audio(a *TranscriptAudio) bool {
	return d.object(audioNames, func(name []byte) (bit int, ok bool) {
		switch string(name) {
		case "id":
			a.ID, ok = d.int64()
			return 0, ok
		case "length_in_seconds":
			a.LengthInSeconds, ok = d.int()
			return 1, ok
		case "created_on":
			ok = d.time(&a.CreatedOn)
			return 2, ok
		}
		return -1, false
	})
}

// bool reads true or false.
func (d *decoder) bool() (bool, bool) {
	d.ws()
	if d.literal("true") {
		return true, true
	}
	return false, d.literal("false")
}

// literal reads the bytes of lit if they come next.
func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// int64 reads an integer in its canonical form (0 or -?[1-9][0-9]*) that
// fits an int64. A fraction or an exponent stops the read at '.' or 'e',
// where the caller, expecting ',' or '}', fails; -0, which encoding/json
// reads as 0, is refused only to keep the rule simple.
func (d *decoder) int64() (int64, bool) {
	d.ws()
	data, i := d.data, d.i
	neg := i < len(data) && data[i] == '-'
	if neg {
		i++
	}
	if i >= len(data) {
		return 0, false
	}
	if data[i] == '0' {
		if neg {
			return 0, false
		}
		d.i = i + 1
		return 0, true
	}
	start := i
	var u uint64
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		if i-start == 19 { // 20 digits or more: beyond any int64
			return 0, false
		}
		u = u*10 + uint64(data[i]-'0')
		i++
	}
	if i == start {
		return 0, false
	}
	d.i = i
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true // -(1<<63) wraps to itself: math.MinInt64
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// int is int64 for an int field: the value must fit an int.
func (d *decoder) int() (int, bool) {
	n, ok := d.int64()
	if !ok || strconv.IntSize == 32 && int64(int32(n)) != n {
		return 0, false
	}
	return int(n), true
}

// time reads a timestamp as encoding/json does: the quoted bytes, as they
// are, go to (*time.Time).UnmarshalJSON.
func (d *decoder) time(t *time.Time) bool {
	d.ws()
	start := d.i
	if start >= len(d.data) || d.data[start] != '"' {
		return false
	}
	end, ok := d.skipString(start)
	if !ok {
		return false
	}
	d.i = end
	return t.UnmarshalJSON(d.data[start:end]) == nil
}

// metadata reads a transcript's metadata: an object whose values are kept
// as their exact bytes, as json.RawMessage keeps them; the last of
// duplicate keys wins, as in encoding/json. An empty object is an empty,
// non-nil map.
func (d *decoder) metadata() (map[string]json.RawMessage, bool) {
	if !d.consume('{') {
		return nil, false
	}
	m := make(map[string]json.RawMessage)
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		key, ok := d.str()
		if !ok || !d.consume(':') {
			return nil, false
		}
		d.ws()
		start := d.i
		if !d.skip(1) {
			return nil, false
		}
		m[key] = append(json.RawMessage(nil), d.data[start:d.i]...)
		more, ok := d.sep('}')
		if !ok {
			return nil, false
		}
		if !more {
			return m, true
		}
	}
}

// skip reads one JSON value of any kind, checking it as encoding/json's
// scanner does, without keeping it. depth is the nesting so far; beyond
// maxSkipDepth the value is refused.
func (d *decoder) skip(depth int) bool {
	d.ws()
	if d.i >= len(d.data) {
		return false
	}
	switch c := d.data[d.i]; c {
	case '"':
		end, ok := d.skipString(d.i)
		d.i = end
		return ok
	case '{', '[':
		if depth >= maxSkipDepth {
			return false
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		d.i++
		d.ws()
		if d.i < len(d.data) && d.data[d.i] == closer {
			d.i++
			return true
		}
		for {
			if c == '{' {
				d.ws()
				if d.i >= len(d.data) || d.data[d.i] != '"' {
					return false
				}
				end, ok := d.skipString(d.i)
				if !ok {
					return false
				}
				d.i = end
				if !d.consume(':') {
					return false
				}
			}
			if !d.skip(depth + 1) {
				return false
			}
			if more, ok := d.sep(closer); !ok || !more {
				return ok
			}
		}
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	default:
		return d.number()
	}
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() bool {
	data, i := d.data, d.i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return false
		}
		i = j
	}
	d.i = i
	return true
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// strPlain marks the bytes a JSON string holds as they are and that need
// no check: printable ASCII but for '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString checks the JSON string that starts with the quote at
// data[i], as encoding/json's scanner does (escapes well formed, no control
// character; any other byte, invalid UTF-8 included, is allowed), and
// returns the index just after its closing quote.
func (d *decoder) skipString(i int) (int, bool) {
	data := d.data
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case strPlain[c] || c >= utf8.RuneSelf:
			i++
		case c == '"':
			return i + 1, true
		case c == '\\':
			n := escapeLen(data, i)
			if n == 0 {
				return i, false
			}
			i += n
		default: // a control character
			return i, false
		}
	}
	return i, false
}

// escapeLen returns the length of the escape sequence at data[i] (a
// backslash), or 0 if it is not one JSON allows.
func escapeLen(data []byte, i int) int {
	if i+1 >= len(data) {
		return 0
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(data, i+2) < 0 {
			return 0
		}
		return 6
	}
	return 0
}

// hex4 returns the value of the four hex digits at data[i:], or -1.
func hex4(data []byte, i int) rune {
	if i+4 > len(data) {
		return -1
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// plain8 reports whether the 8 bytes of x are all strPlain: none below
// 0x20, none from 0x80, no '"' and no '\\' (the classic word-at-a-time
// tests: a byte below n, a zero byte after an XOR).
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	return ((x-ones*0x20)|(quote-ones)|(backslash-ones)|x)&highs == 0
}

// str reads a JSON string and returns its value as encoding/json gives
// it. A string without escapes that is valid UTF-8 is one allocation;
// others are unescaped in the decoder's scratch buffer first.
func (d *decoder) str() (string, bool) {
	d.ws()
	data := d.data
	i := d.i
	if i >= len(data) || data[i] != '"' {
		return "", false
	}
	i++
	start := i
	high := false
	for i < len(data) {
		for i+8 <= len(data) && plain8(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			break
		}
		c := data[i]
		if strPlain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			if high && !utf8.Valid(data[start:i]) {
				return d.unescape(start)
			}
			d.i = i + 1
			return string(data[start:i]), true
		case c == '\\':
			return d.unescape(start)
		case c >= utf8.RuneSelf:
			high = true
			i++
		default: // a control character
			return "", false
		}
	}
	return "", false
}

// unescape is unquote with the scratch buffer sized first: the string's
// raw length bounds its value's but for invalid UTF-8 (a byte becomes
// three), so that unquoting a long text does not grow the buffer step by
// step.
func (d *decoder) unescape(start int) (string, bool) {
	end, ok := d.skipString(start - 1)
	if !ok {
		return "", false
	}
	if n := end - 1 - start; cap(d.buf) < n {
		d.buf = make([]byte, 0, n)
	}
	return d.unquote(start)
}

// unquote reads the rest of a string whose content starts at data[start]
// and returns its value, as encoding/json's unquoting does: escapes
// decoded, a \u escape of a surrogate that is not the first half of a
// valid pair as U+FFFD, and each byte of invalid UTF-8 as U+FFFD.
func (d *decoder) unquote(start int) (string, bool) {
	data := d.data
	b := d.buf[:0]
	i := start
	for i < len(data) {
		c := data[i]
		switch {
		case strPlain[c]:
			j := i + 1
			for j < len(data) && strPlain[data[j]] {
				j++
			}
			b = append(b, data[i:j]...)
			i = j
		case c == '"':
			d.i = i + 1
			d.buf = b
			return string(b), true
		case c == '\\':
			if i+1 >= len(data) {
				return "", false
			}
			switch e := data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(data, i+2)
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r1 := rune(-1)
					if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						r1 = hex4(data, i+2)
					}
					if dec := utf16.DecodeRune(r, r1); dec != unicode.ReplacementChar {
						b = utf8.AppendRune(b, dec)
						i += 6
						continue
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, data[i:i+size]...)
			}
			i += size
		default: // a control character
			return "", false
		}
	}
	return "", false
}
