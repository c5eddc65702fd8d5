package apijson

import (
	"encoding"
	v1json "encoding/json"
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

// maxPointerLen bounds the JSON pointer an Error carries; the rest of the
// message is made of this package's own words, so the whole stays under
// 1 KiB.
const maxPointerLen = 256

// describe turns the library's error into an *Error that quotes nothing of
// data: the library's own messages may quote a value (its JSONValue, a
// strconv error, a duplicate name), so only its structured fields are read.
func describe(err error, data []byte) *Error {
	var (
		e   = &Error{}
		se  *json.SemanticError
		sy  *jsontext.SyntacticError
		kin *kindError
		mis *MissingError
	)
	switch {
	case errors.As(err, &se):
		e.Pointer, e.Offset = pointer(se.JSONPointer), se.ByteOffset
		e.Got = kindName(se.JSONKind)
		if se.GoType != nil {
			e.Want = want(se.GoType)
		}
		switch {
		case errors.As(se.Err, &mis):
			e.Missing, e.Got = mis.Member, ""
			e.Reason = mis.Error()
		case errors.As(se.Err, &kin):
			e.Want, e.Got = kin.want, kindName(kin.got)
			if kin.got == 0 {
				e.Got = NotJSON
			}
			e.Reason = kin.Error()
		case errors.Is(se.Err, errTimestampForm), errors.Is(se.Err, errTimestampRange):
			e.Want = timestampWant
			e.Reason = se.Err.Error()
		case errors.Is(se.Err, json.ErrUnknownName):
			e.Want, e.Got = "", ""
			e.Reason = "unknown member"
		case errors.Is(se.Err, strconv.ErrRange):
			e.Reason = "must be " + e.Want + ", got a number out of its range"
		case errors.As(se.Err, &sy):
			return syntactic(e, sy)
		default:
			e.Reason = "must be " + e.Want + ", got " + orUnknown(e.Got)
		}
	case errors.As(err, &sy):
		return syntactic(e, sy)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		e.Offset = int64(len(data))
		e.Reason = "the document ends before its value does"
	default:
		e.Reason = "malformed JSON"
	}
	return e
}

func syntactic(e *Error, sy *jsontext.SyntacticError) *Error {
	e.Pointer, e.Offset = pointer(sy.JSONPointer), sy.ByteOffset
	e.Want, e.Got = "", ""
	switch msg := sy.Err.Error(); {
	case errors.Is(sy.Err, jsontext.ErrDuplicateName):
		e.Reason = "duplicate member name"
	case errors.Is(sy.Err, io.ErrUnexpectedEOF):
		e.Reason = "the document ends before its value does"
	case strings.Contains(msg, "UTF-8"):
		e.Reason = "invalid UTF-8"
	case strings.Contains(msg, "after top-level value"):
		e.Reason = "data after the JSON value"
	default:
		e.Reason = "malformed JSON"
	}
	return e
}

// pointer bounds and scrubs a JSON pointer. Its member names come from the
// document, which may have put anything there: a segment that is not a
// short plain name (letters, digits, '_', '-', '.', at most
// maxSegmentLen) is replaced by "<name>", the rest goes through
// redact.Text, and the whole is cut at maxPointerLen.
func pointer(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	var b strings.Builder
	for seg := range p.Tokens() {
		b.WriteByte('/')
		if plainSegment(seg) {
			b.WriteString(seg)
		} else {
			b.WriteString("<name>")
		}
		if b.Len() > maxPointerLen {
			return redact.Text(b.String()[:maxPointerLen]) + "…"
		}
	}
	return redact.Text(b.String())
}

// maxSegmentLen is the longest member name an error repeats.
const maxSegmentLen = 40

func plainSegment(s string) bool {
	if s == "" || len(s) > maxSegmentLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// kindName names a JSON kind in words.
func kindName(k jsontext.Kind) string {
	switch k {
	case 0:
		return ""
	case kindNull:
		return "null"
	case jsontext.True.Kind(), jsontext.False.Kind():
		return "boolean"
	case kindString:
		return "string"
	case jsontext.Int(0).Kind():
		return "number"
	case kindObject, kindEndObject:
		return "object"
	default:
		return "array"
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "another value"
	}
	return s
}

// timestampWant is what a timestamp must be.
const timestampWant = "an RFC 3339 timestamp string"

var (
	timeType        = reflect.TypeFor[time.Time]()
	v1Unmarshaler   = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawValue        = reflect.TypeFor[jsontext.Value]()
	rawMessage      = reflect.TypeFor[v1json.RawMessage]()
)

// want says, in JSON's words, what decodes into a value of type t.
func want(t reflect.Type) string {
	switch {
	case t == timeType:
		return timestampWant
	case t.Kind() == reflect.Pointer:
		return want(t.Elem()) + " or null"
	case t == rawValue || t == rawMessage:
		return "a JSON value"
	case reflect.PointerTo(t).Implements(v1Unmarshaler), reflect.PointerTo(t).Implements(textUnmarshaler):
		return "a string" // the secret types and keys
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
