package apijson

import (
	"bytes"
	"reflect"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Object reads again a document that the library decoded without error,
// for the check methods of the types it was decoded into. The library
// leaves a missing member at its zero value, and takes null as the zero
// value too, where api/openapi.yaml requires every member of a resource and
// makes few nullable. So each type says beside its declaration which
// members it must have and which may be null, and its check method walks
// its object with Members (and has the type of each nested object or array
// walk its own).
type Object struct {
	data   []byte
	dec    *jsontext.Decoder
	strict bool   // unknown members were refused: every member is known
	name   []byte // the member name read last, unquoted
	// gap, if set, is given each member missing or null (Gaps); nil
	// goes on with the walk.
	gap func(*Error) error
}

// Check walks data, which Unmarshal decoded with opts without error, with
// check: the check method of the value it was decoded into, which returns
// the errors of Members, Array and Skip, each an *Error naming the member.
func Check(data []byte, opts Options, check func(*Object) error) error {
	strict, _ := json.GetOption(opts, json.RejectUnknownMembers)
	// The decoder reads data in place (a bytes.Buffer), so what it returns
	// stays valid; the library has checked names and UTF-8 already.
	return check(&Object{data: data, strict: strict,
		dec: jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))})
}

// Members is what an object must hold.
type Members struct {
	// Required are the members the object must have.
	Required []string
	// Nullable are the members that may be null. Null is refused for any
	// other member that is required, and, where unknown members are
	// refused (Strict), for any other member at all.
	Nullable []string
	// Nested, if not nil, is called for each member of Required (or, where
	// unknown members are refused, each member) whose value is an object
	// or an array, with that value next, which it must read: with the
	// check method of what the value was decoded into, or Skip. The name is
	// valid during the call only. Unknown members are skipped.
	Nested func(name []byte) error
}

// Members reads the next value, an object decoded into v (a pointer to a
// struct), and checks that it holds what m says; v's field types word the
// errors ("must be a string, not null").
func (o *Object) Members(v any, m Members) error {
	d, t := o.dec, reflect.TypeOf(v).Elem()
	if d.PeekKind() != jsontext.KindBeginObject {
		return o.null(t)
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	start, found := d.InputOffset()-1, 0
	for d.PeekKind() == jsontext.KindString {
		quoted, err := d.ReadValue()
		if err != nil {
			return err
		}
		o.name, _ = jsontext.AppendUnquote(o.name[:0], quoted) // cannot fail: the library read it
		// Members mostly come in the order of Required: try the next one first.
		required := found < len(m.Required) && o.named(m.Required[found]) || slices.ContainsFunc(m.Required, o.named)
		if required {
			found++
		}
		switch k := d.PeekKind(); {
		case k == jsontext.KindNull && (required || o.strict) && !slices.ContainsFunc(m.Nullable, o.named):
			err = o.fault(o.null(field(t, string(o.name))))
		case (k == jsontext.KindBeginObject || k == jsontext.KindBeginArray) && (required || o.strict) && m.Nested != nil:
			err = m.Nested(o.name)
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil || found == len(m.Required) {
		return err
	}
	var members map[string]jsontext.Value // the object read again, to name what it lacks
	_ = json.Unmarshal(o.data[start:d.InputOffset()], &members)
	for _, n := range m.Required {
		if _, ok := members[n]; !ok {
			if err := o.fault(&Error{Pointer: pointer(d.StackPointer()), Offset: start, Missing: n, Reason: `missing required member "` + n + `"`}); err != nil {
				return err
			}
		}
	}
	return nil
}

// fault returns err, a member missing or null, as Members's error, or
// hands it to the gap function of Gaps.
func (o *Object) fault(err error) error {
	if e, ok := err.(*Error); ok && o.gap != nil {
		return o.gap(e)
	}
	return err
}

// named reports whether n is the member name read last.
func (o *Object) named(n string) bool { return n == string(o.name) }

// Array reads the next value, an array (its member was checked not to be
// null), calling each with the index of each element, which each must
// read: with the check method of what the element was decoded into.
func (o *Object) Array(each func(i int) error) error {
	_, err := o.dec.ReadToken()
	for i := 0; err == nil && o.dec.PeekKind() != jsontext.KindEndArray; i++ {
		err = each(i)
	}
	if err == nil {
		_, err = o.dec.ReadToken()
	}
	return err
}

// Skip reads the next value without checking it.
func (o *Object) Skip() error { return o.dec.SkipValue() }

// null reads the next value, a null where a value of type t belongs, and
// returns its error.
func (o *Object) null(t reflect.Type) error {
	_, err := o.dec.ReadValue() // read, so that the pointer and offset are its own
	if e := kindError(want(t), "null"); err == nil {
		e.Pointer, e.Offset = pointer(o.dec.StackPointer()), o.dec.InputOffset()-int64(len("null"))
		return e
	}
	return err
}
