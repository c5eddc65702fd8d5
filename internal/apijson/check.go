package apijson

import (
	"bytes"
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"

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

// Present reports whether data, an object, has the member name with a
// value other than null. It reads member names, skipping values, up to
// that member only.
func Present(data []byte, name string) bool {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for dec.PeekKind() == jsontext.KindString {
		tok, err := dec.ReadToken()
		switch {
		case err != nil:
			return false
		case tok.String() == name:
			return dec.PeekKind() != jsontext.KindNull
		case dec.SkipValue() != nil:
			return false
		}
	}
	return false
}

// Gaps walks data, which Unmarshal decoded into v (a pointer to a struct)
// with opts without error, for what v's type declares and data lacks: a
// member an object does not have, or has as null where its field is not
// a pointer. Every member a struct's fields declare is expected, in the
// objects of struct fields and of slices of structs too, at any depth;
// maps are free-form and not walked. Each such member is an *Error naming
// it, given to gap: nil goes on with the walk, an error ends it (a nil gap
// ends it at the first). What is not a member's gap (the document null, an
// array's item null) is returned as it is.
func Gaps(data []byte, opts Options, v any, gap func(*Error) error) error {
	return Check(data, opts, func(o *Object) error {
		o.gap = gap
		return o.walk(reflect.ValueOf(v).Elem())
	})
}

// walk reads the next value, the object decoded into v (an addressable
// struct), with the members v's type declares (membersOf).
func (o *Object) walk(v reflect.Value) error {
	m := membersOf(v.Type())
	return o.Members(v.Addr().Interface(), Members{Required: m.Required, Nullable: m.Nullable, Nested: func(name []byte) error {
		i, ok := m.walked[string(name)]
		if !ok {
			return o.Skip() // a map's object
		}
		f := v.FieldByIndex(i)
		if f.Kind() == reflect.Struct {
			return o.walk(f)
		}
		return o.Array(func(i int) error { return o.walk(f.Index(i)) })
	}})
}

// typeMembers are what walk expects of an object decoded into a struct
// type: every member its fields declare (inlined structs' included), null
// only for pointers, and the field (by index) of each member holding an
// object or an array of objects to walk in turn.
type typeMembers struct {
	Members
	walked map[string][]int
}

// typeMembersCache holds membersOf's answers by type.
var typeMembersCache sync.Map

// membersOf returns what walk expects of an object decoded into struct
// type t, naming members as the library does: by the json tag, or the
// field's name.
func membersOf(t reflect.Type) *typeMembers {
	if m, ok := typeMembersCache.Load(t); ok {
		return m.(*typeMembers)
	}
	m := &typeMembers{walked: map[string][]int{}}
	var add func(t reflect.Type, index []int)
	add = func(t reflect.Type, index []int) {
		for f := range t.Fields() {
			n, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			at := append(slices.Clone(index), f.Index...)
			switch elem := f.Type; {
			case !f.IsExported() && !f.Anonymous || n == "-":
			case (opts == "inline" || f.Anonymous && n == "") && f.Type.Kind() == reflect.Struct:
				add(f.Type, at)
			case f.Type.Kind() == reflect.Pointer:
				m.Required, m.Nullable = append(m.Required, cmp.Or(n, f.Name)), append(m.Nullable, cmp.Or(n, f.Name))
			default:
				m.Required = append(m.Required, cmp.Or(n, f.Name))
				if elem.Kind() == reflect.Slice {
					elem = elem.Elem()
				}
				if elem.Kind() == reflect.Struct && hasMembers(elem) {
					m.walked[cmp.Or(n, f.Name)] = at
				}
			}
		}
	}
	add(t, nil)
	got, _ := typeMembersCache.LoadOrStore(t, m)
	return got.(*typeMembers)
}

// hasMembers reports whether struct type t decodes from an object's
// members, not from a value of its own (time.Time, a secret): whether it
// has exported fields.
func hasMembers(t reflect.Type) bool {
	for f := range t.Fields() {
		if f.IsExported() {
			return true
		}
	}
	return false
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
