// Package apijson is the one place the SDK and the reference server meet
// JSON. It sits on github.com/go-json-experiment/json, the implementation of
// encoding/json/v2 (on Go 1.27 built with GOEXPERIMENT=jsonv2 it is an alias
// of the standard library's), and adds only what the contract asks of every
// document and v2 does not do by itself:
//
//   - timestamps in every RFC 3339 form, for time.Time anywhere;
//   - a check of what the library accepts and the contract does not: a
//     member missing, or null where the member is not nullable (Check,
//     with what each type says of its members beside its declaration);
//   - errors that name where (a JSON pointer and a byte offset), what was
//     expected and what was found, and never the value (Error).
//
// v2's defaults do the rest: duplicate member names and invalid UTF-8 are
// errors, member names match case-sensitively, and unknown members are
// skipped unless the options given to Unmarshal refuse them (Strict).
package apijson

import (
	"bytes"
	"cmp"
	"encoding"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/scribehq/scribe-go/internal/redact"
)

// Options configure Unmarshal: Lenient or Strict.
type Options = json.Options

// Lenient returns the options for reading what a server sent: unknown
// members are skipped (a newer service may add some), and timestamps are
// read in every RFC 3339 form.
func Lenient() Options { return json.WithUnmarshalers(json.UnmarshalFromFunc(unmarshalTime)) }

// Strict returns Lenient's options with unknown members refused: for
// request bodies and fixture documents, where a misspelt member must not
// be dropped silently.
func Strict() Options { return json.JoinOptions(Lenient(), json.RejectUnknownMembers(true)) }

// Unmarshal decodes data into v with opts. Its error is always an *Error.
func Unmarshal(data []byte, v any, opts Options) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Error{Offset: int64(len(data)), Reason: "the document is empty"}
	}
	if err := json.Unmarshal(data, v, opts); err != nil {
		return describe(err, data, v)
	}
	return nil
}

// UnmarshalDecode decodes the next value of dec into v with dec's options
// and checks it with check (if not nil), as Unmarshal and Check do a whole
// document: for the items of a document read as a stream. The pointer and
// offset of its error, an *Error or one of the reader, are the stream's.
func UnmarshalDecode(dec *jsontext.Decoder, v any, check func(*Object) error) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return Explain(err)
	}
	if err = Unmarshal(raw, v, dec.Options()); err == nil && check != nil {
		err = Check(raw, dec.Options(), check)
	}
	if e, ok := err.(*Error); ok { // from raw's pointer and offset to the stream's
		e.Pointer, e.Offset = pointer(dec.StackPointer())+e.Pointer, e.Offset+dec.InputOffset()-int64(len(raw))
	}
	return err
}

// Explain turns an error of the library (from a jsontext.Decoder's
// ReadToken, say) into an *Error, as Unmarshal does; other errors (those
// of the reader) are returned as they are.
func Explain(err error) error {
	if errors.As(err, new(*jsontext.SyntacticError)) || errors.Is(err, io.ErrUnexpectedEOF) {
		return describe(err, nil, nil)
	}
	return err
}

// Marshal encodes v. Maps are written with their keys sorted, so the same
// value always gives the same bytes, and time.Time as RFC 3339 with the
// fraction it has (v2's default).
func Marshal(v any) ([]byte, error) { return json.Marshal(v, json.Deterministic(true)) }

// MarshalRevealed encodes v as Marshal does, but writes each secret (a
// value with a Reveal method: auth.SecretKey, auth.WebhookSecret) as it is,
// where its own MarshalJSON writes it redacted: for the reference server's
// answers that hand a secret out, and only those, since the library then
// looks every value's type up among its marshalers.
func MarshalRevealed(v any) ([]byte, error) {
	return json.Marshal(v, json.Deterministic(true), revealed)
}

var revealed = json.WithMarshalers(json.MarshalToFunc(func(enc *jsontext.Encoder, s interface{ Reveal() string }) error {
	return enc.WriteToken(jsontext.String(s.Reveal()))
}))

// MarshalIndent encodes v as Marshal does, one member per line, indented
// by two spaces: for people to read.
func MarshalIndent(v any) ([]byte, error) { return json.Marshal(v, indented...) }

// indented are MarshalIndent's options.
var indented = []Options{json.Deterministic(true), jsontext.Multiline(true), jsontext.WithIndent("  ")}

// unmarshalTime reads a time.Time in every form RFC 3339 allows (v2's own
// reading refuses lower-case "t"/"z" and the leap second, which the
// contract asks clients to accept; docs/contract.md, "Timestamps"). Null
// is the zero time, as the library reads null for every other type.
func unmarshalTime(dec *jsontext.Decoder, t *time.Time) error {
	if dec.PeekKind() == jsontext.KindNull {
		_, err := dec.ReadToken()
		*t = time.Time{}
		return err
	}
	if k := dec.PeekKind(); k != jsontext.KindString {
		return kindError(timestampWant, cmp.Or(kindNames[k], NotJSON))
	}
	tok, err := dec.ReadToken()
	if err == nil {
		*t, err = parseTime(tok.String())
	}
	return err
}

// parseTime parses an RFC 3339 date-time (RFC 3339 §5.6) in every form the
// grammar allows: "T" and "Z" in either case, a fraction of any length
// (digits past the ninth are dropped), a numeric offset including "-00:00",
// and the leap second ":60", which becomes the first instant of the next
// minute (a time.Time has no leap seconds). The time is in UTC, as the
// contract's are. Its error never quotes s.
func parseTime(s string) (time.Time, error) {
	// A date-time with a nanosecond fraction is 35 bytes: 64 leaves room for
	// long fractions, and stops a megabyte of digits early. time.Parse takes
	// a comma before the fraction, which RFC 3339 does not.
	if len(s) > 64 || strings.ContainsRune(s, ',') {
		return time.Time{}, errTimestamp
	}
	var leap time.Duration
	if len(s) > 19 && s[17:19] == "60" {
		s, leap = s[:17]+"59"+s[19:], time.Second
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)) // a valid s has no other letters than T and Z
	if _, off := t.Zone(); err != nil || off <= -24*3600 || off >= 24*3600 {
		return time.Time{}, errTimestamp // time.Parse takes an offset of 24 hours or more
	}
	return t.Add(leap).UTC(), nil
}

// Error is a JSON document that could not be decoded, described without
// any of its values: a broken server may put a credential where a
// timestamp belongs, so the message names the place, what was expected and
// what was found, never the text. It is bounded (under 1 KiB) whatever the
// input.
type Error struct {
	// Pointer is the JSON pointer (RFC 6901) of the value at fault, such
	// as "/data/3/created_on"; "" for the document itself. Member names
	// in it come from the document; they are bounded and scrubbed.
	Pointer string
	// Offset is the byte offset in the document at or after which the
	// fault lies.
	Offset int64
	// Want says what was expected there, such as "an RFC 3339 timestamp
	// string" or "an integer"; "" when the fault is in the JSON syntax.
	Want string
	// Got is the kind of JSON value found ("string", "number", "null",
	// "object", "array", "boolean"), NotJSON where what was found is not
	// JSON at all, or "" when not known.
	Got string
	// Reason says what is wrong, in words of this package, never the value.
	Reason string
	// Missing is the member an object lacked, or "".
	Missing string
}

// NotJSON is Error.Got where no JSON value begins: a document (or a member's
// value) that is HTML, XML or plain text, say.
const NotJSON = "not JSON"

func (e *Error) Error() string {
	s := "invalid JSON at "
	if e.Want != "" || e.Missing != "" {
		s = "unexpected JSON at "
	}
	s += cmp.Or(e.Pointer, "the document") + " (byte " + strconv.FormatInt(e.Offset, 10) + "): " + e.Reason
	return strings.TrimSuffix(s, ": ")
}

// kindError is a value whose kind, got (in words), is not what want
// says.
func kindError(want, got string) *Error {
	return &Error{Want: want, Got: got, Reason: "must be " + want + cmp.Or(gots[got], ", got "+cmp.Or(got, "another value"))}
}

// gots say how a value of some kinds is found wanting.
var gots = map[string]string{"null": ", not null", NotJSON: ", got something that is not JSON"}

// timestampWant is what a timestamp must be.
const timestampWant = "an RFC 3339 timestamp string"

var errTimestamp = errors.New("not an RFC 3339 date-time (such as 2026-11-21T09:30:00Z)")

// syntaxReasons word the library's syntactic errors, told apart by their
// text.
var syntaxReasons = [][2]string{{"unexpected EOF", "the document ends before its value does"},
	{"duplicate", "duplicate member name"}, {"UTF-8", "invalid UTF-8"}, {"after top-level value", "data after the JSON value"}}

// describe turns the library's error in decoding data into v into an
// *Error that quotes nothing of data: the library's own messages may quote
// a value, so only its structured fields are read.
func describe(err error, data []byte, v any) *Error {
	var se *json.SemanticError
	var sy *jsontext.SyntacticError
	switch {
	case errors.As(err, &sy):
		e, msg := &Error{Pointer: pointer(sy.JSONPointer), Offset: sy.ByteOffset, Reason: "malformed JSON"}, sy.Err.Error()
		for _, r := range syntaxReasons {
			if strings.Contains(msg, r[0]) {
				e.Reason = r[1]
			}
		}
		if strings.HasSuffix(msg, "at start of value") && e.Pointer == "" && e.Offset < int64(len(data)) && !strings.ContainsRune(",:]}", rune(data[e.Offset])) {
			e = kindError(want(reflect.TypeOf(v)), NotJSON) // no JSON at all: HTML, a bare OK
			e.Offset = sy.ByteOffset
		}
		return e
	case errors.As(err, &se):
		e := kindError(want(se.GoType), kindNames[se.JSONKind])
		switch {
		case errors.As(se.Err, &e): // unmarshalTime's own
		case errors.Is(se.Err, errTimestamp):
			e.Want, e.Reason = timestampWant, se.Err.Error()
		case errors.Is(se.Err, json.ErrUnknownName):
			e.Want, e.Got, e.Reason = "", "", "unknown member"
		case errors.Is(se.Err, strconv.ErrRange):
			e.Reason = "must be " + e.Want + ", got a number out of its range"
		}
		e.Pointer, e.Offset = pointer(se.JSONPointer), se.ByteOffset
		return e
	}
	return &Error{Offset: int64(len(data)), Reason: "the document ends before its value does"}
}

// pointer makes a JSON pointer fit to print: its member names come from
// the document, which may have put anything there. It is at most 256
// bytes: the rest of an Error's message is this package's own words, so
// the whole stays under 1 KiB.
func pointer(p jsontext.Pointer) string { return redact.Path(p.Tokens(), 256) }

// kindNames name the kinds of JSON value in words.
var kindNames = map[jsontext.Kind]string{jsontext.KindNull: "null", jsontext.KindTrue: "boolean", jsontext.KindFalse: "boolean", jsontext.KindString: "string", jsontext.KindNumber: "number", jsontext.KindBeginObject: "object", jsontext.KindBeginArray: "array"}

// wants say what decodes into a value of each kind of Go type.
var wants = map[reflect.Kind]string{
	reflect.String: "a string", reflect.Bool: "true or false", reflect.Float32: "a number", reflect.Float64: "a number",
	reflect.Slice: "an array", reflect.Array: "an array", reflect.Struct: "an object", reflect.Map: "an object",
}

// want says, in JSON's words, what decodes into a value of type t.
func want(t reflect.Type) string {
	switch {
	case t == nil || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "a JSON value" // a json.RawMessage or jsontext.Value
	case t == reflect.TypeFor[time.Time]():
		return timestampWant
	case t.Kind() == reflect.Pointer:
		return want(t.Elem())
	case reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		return "a string" // the secret types and keys
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "an integer"
	}
	return cmp.Or(wants[t.Kind()], "a JSON value")
}

// field returns the type of the field of struct type t that member name
// decodes into, looking into the structs t inlines or embeds; nil if there
// is none. It only words errors.
func field(t reflect.Type, name string) reflect.Type {
	for f := range t.Fields() {
		n, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if (opts == "inline" || f.Anonymous && n == "") && f.Type.Kind() == reflect.Struct {
			if ft := field(f.Type, name); ft != nil {
				return ft
			}
		} else if cmp.Or(n, f.Name) == name {
			return f.Type
		}
	}
	return nil
}
