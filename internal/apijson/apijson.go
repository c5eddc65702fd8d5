// Package apijson is the one place the SDK and the reference server meet
// JSON. It sits on github.com/go-json-experiment/json, the implementation of
// encoding/json/v2 (on Go 1.27 built with GOEXPERIMENT=jsonv2 it is an alias
// of the standard library's), and adds only what the contract asks of every
// document and v2 does not do by itself:
//
//   - timestamps in every RFC 3339 form (ParseTime), for time.Time anywhere;
//   - objects whose members are all required (Require), as every resource
//     and list envelope of api/openapi.yaml is: a missing member, null, or
//     a value of another kind is an error, never a zero value;
//   - errors that name where (a JSON pointer and a byte offset), what was
//     expected and what was found, and never the value (Error).
//
// v2's defaults do the rest: duplicate member names and invalid UTF-8 are
// errors, member names match case-sensitively, and unknown members are
// skipped unless the options given to Unmarshal refuse them (Strict).
package apijson

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Options configure Unmarshal; build them once, with Lenient or Strict.
type Options = json.Options

// Lenient returns the options for reading what a server sent: unknown
// members are skipped (a newer service may add some), timestamps are read
// by ParseTime, and each object type given (from Require) must carry every
// one of its members.
func Lenient(objects ...*json.Unmarshalers) Options {
	return json.JoinOptions(
		json.WithUnmarshalers(json.JoinUnmarshalers(append([]*json.Unmarshalers{timeUnmarshaler}, objects...)...)),
	)
}

// Strict returns Lenient's options with unknown members refused: for
// request bodies and fixture documents, where a misspelt member must not be
// dropped silently.
func Strict(objects ...*json.Unmarshalers) Options {
	return json.JoinOptions(Lenient(objects...), json.RejectUnknownMembers(true))
}

// Unmarshal decodes data into v with opts. Its error is always an *Error.
func Unmarshal(data []byte, v any, opts Options) error {
	if err := json.Unmarshal(data, v, opts); err != nil {
		if len(bytes.TrimSpace(data)) == 0 {
			return &Error{Offset: int64(len(data)), Reason: "the document is empty"}
		}
		return describe(err, data)
	}
	return nil
}

// UnmarshalDecode decodes the next value of dec into v, with dec's options.
// Its error is always an *Error.
func UnmarshalDecode(dec *jsontext.Decoder, v any) error {
	if err := json.UnmarshalDecode(dec, v); err != nil {
		return describe(err, nil)
	}
	return nil
}

// Explain turns an error of the library (from a jsontext.Decoder's
// ReadToken, say) into an *Error, as Unmarshal does; other errors are
// returned as they are.
func Explain(err error) error {
	var se *json.SemanticError
	var sy *jsontext.SyntacticError
	if err == nil || (!errors.As(err, &se) && !errors.As(err, &sy) && !errors.Is(err, io.ErrUnexpectedEOF)) {
		return err
	}
	return describe(err, nil)
}

// Marshal encodes v. Maps are written with their keys sorted, so the same
// value always gives the same bytes, and time.Time as RFC 3339 with the
// fraction it has (v2's default).
func Marshal(v any) ([]byte, error) { return json.Marshal(v, json.Deterministic(true)) }

// MarshalIndent encodes v as Marshal does, one member per line, indented
// by two spaces: for people to read.
func MarshalIndent(v any) ([]byte, error) {
	return json.Marshal(v, json.Deterministic(true), jsontext.Multiline(true), jsontext.WithIndent("  "))
}

// MarshalWrite encodes v to w, as Marshal does: into a buffer the caller
// reuses, without a slice allocated per value.
func MarshalWrite(w io.Writer, v any) error { return json.MarshalWrite(w, v, json.Deterministic(true)) }

// timeUnmarshaler reads every time.Time through ParseTime: v2's own reading
// refuses lower-case "t"/"z" and the leap second, which RFC 3339 allows
// and the contract asks clients to accept.
var timeUnmarshaler = json.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *time.Time) error {
	if k := dec.PeekKind(); k != kindString {
		return &kindError{got: k, want: timestampWant}
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	// A timestamp needs no escapes; one written with some is unquoted
	// first.
	s := v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		if s, err = jsontext.AppendUnquote(nil, v); err != nil {
			return err
		}
	}
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
})

// Kinds of JSON value, named from the library's own tokens.
var (
	kindString    = jsontext.String("").Kind()
	kindNull      = jsontext.Null.Kind()
	kindObject    = jsontext.BeginObject.Kind()
	kindEndObject = jsontext.EndObject.Kind()
)

// kindError is a value of the wrong JSON kind.
type kindError struct {
	got  jsontext.Kind
	want string
}

func (e *kindError) Error() string {
	switch e.got {
	case kindNull:
		return "must be " + e.want + ", not null"
	case 0: // no JSON value begins here
		return "must be " + e.want + ", got something that is not JSON"
	}
	return "must be " + e.want + ", got " + kindName(e.got)
}

// Require returns an unmarshaler for T, a struct, under which every member
// T declares (its exported fields' json names) must be present, as every
// resource of api/openapi.yaml requires: a missing member, or a value that
// is not an object (null included), is an error naming it. A member may be
// null only if its field is a pointer: null for any other field (a string,
// a number, a slice, a map) is an error, not its zero value. Each member's
// value is decoded by the library with the options in force, so nested
// objects and timestamps are checked as well (a nested struct type needs
// its own Require or Fields). Members T does not declare are skipped or
// refused as the options say.
func Require[T any]() *json.Unmarshalers { return object[T](true) }

// Fields is Require for a document whose members are optional, such as a
// request body or a fixture: a member may be omitted, but null is still
// refused for any field that is not a pointer. Options of a field's
// `apijson` tag adjust it: "required" makes the member required all the
// same; "nonull" refuses null for a pointer field (a pointer that tells an
// omitted member from a given one, not a nullable one); "object" requires a
// JSON object of a field that holds free JSON (a jsontext.Value).
//
// A struct field tagged `json:",inline"` contributes its own fields as
// members of the object, as in the library; a member T declares itself
// hides the inlined one of the same name, so that T can be another type
// with one member read differently (such as an id that may be omitted).
func Fields[T any]() *json.Unmarshalers { return object[T](false) }

func object[T any](required bool) *json.Unmarshalers {
	fields := fieldsOf(reflect.TypeFor[T]())
	all := uint64(1)<<len(fields.names) - 1
	return json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *T) error {
		if k := dec.PeekKind(); k != kindObject {
			return &kindError{got: k, want: "an object"}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		rv := reflect.ValueOf(v).Elem()
		var seen uint64
		for dec.PeekKind() != kindEndObject {
			raw, err := dec.ReadValue() // the member's name, quoted
			if err != nil {
				return err
			}
			name := raw[1 : len(raw)-1]
			if bytes.IndexByte(name, '\\') >= 0 { // an escaped name, read as its text
				if name, err = jsontext.AppendUnquote(nil, raw); err != nil {
					return err
				}
			}
			i, known := fields.index[string(name)]
			if !known {
				if err := skipUnknown(dec); err != nil {
					return err
				}
				continue
			}
			seen |= 1 << i
			if err := fields.decodeMember(dec, rv.FieldByIndex(fields.field[i]), i); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		need := fields.required
		if required {
			need = all
		}
		if seen&need != need {
			for i, n := range fields.names {
				if need&^seen&(1<<i) != 0 {
					return &MissingError{Member: n}
				}
			}
		}
		return nil
	})
}

// decodeMember decodes the value of member i into its field f, refusing
// null or a non-object where the field's options say so.
func (fields *structFields) decodeMember(dec *jsontext.Decoder, f reflect.Value, i int) error {
	if k := dec.PeekKind(); fields.object&(1<<i) != 0 && k != kindObject {
		return &kindError{got: k, want: "an object"}
	}
	if !fields.nullable[i] && dec.PeekKind() == kindNull {
		t := f.Type()
		if t.Kind() == reflect.Pointer { // apijson:"nonull"
			t = t.Elem()
		}
		return &kindError{got: kindNull, want: want(t)}
	}
	return json.UnmarshalDecode(dec, f.Addr().Interface())
}

// skipUnknown skips an unknown member's value, or refuses it when the
// decoder's options say unknown members are refused (Strict).
func skipUnknown(dec *jsontext.Decoder) error {
	if v, ok := json.GetOption(dec.Options(), json.RejectUnknownMembers); ok && v {
		return json.ErrUnknownName
	}
	return dec.SkipValue()
}

// MissingError is a required member absent from an object.
type MissingError struct{ Member string }

func (e *MissingError) Error() string { return "missing required member " + `"` + e.Member + `"` }

// structFields is what Require knows of a struct: its members' names in
// declaration order, and for each the index path of its field.
type structFields struct {
	names    []string
	field    [][]int
	nullable []bool // null is left to the field's own decoding
	required uint64 // the members tagged apijson:"required"
	object   uint64 // the members tagged apijson:"object"
	index    map[string]int
}

func fieldsOf(t reflect.Type) structFields {
	var f structFields
	f.index = map[string]int{}
	f.add(t, nil)
	if len(f.names) > 64 {
		panic("apijson.Require: more than 64 members in " + t.String()) // a programming error, found by the first test
	}
	return f
}

// add adds the members of struct t, whose fields are at index path in the
// value decoded: its own fields first, then those of the structs it inlines,
// less the names already taken.
func (f *structFields) add(t reflect.Type, path []int) {
	var inlined []int
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name := sf.Name
		if tag, ok := sf.Tag.Lookup("json"); ok {
			n, opts, _ := strings.Cut(tag, ",")
			switch {
			case tag == "-":
				continue
			case opts == "inline":
				inlined = append(inlined, i)
				continue
			case n != "":
				name = n
			}
		}
		if _, hidden := f.index[name]; hidden {
			continue
		}
		f.index[name] = len(f.names)
		f.names = append(f.names, name)
		f.field = append(f.field, append(slices.Clone(path), i))
		opts := sf.Tag.Get("apijson")
		f.nullable = append(f.nullable, sf.Type.Kind() == reflect.Pointer && !strings.Contains(opts, "nonull"))
		if strings.Contains(opts, "required") {
			f.required |= 1 << (len(f.names) - 1)
		}
		if strings.Contains(opts, "object") {
			f.object |= 1 << (len(f.names) - 1)
		}
	}
	for _, i := range inlined {
		f.add(t.Field(i).Type, append(slices.Clone(path), i))
	}
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
	s := "invalid JSON"
	if e.Want != "" || e.Missing != "" {
		s = "unexpected JSON"
	}
	where := e.Pointer
	if where == "" {
		where = "the document"
	}
	s += " at " + where + " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}
