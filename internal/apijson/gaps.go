package apijson

import (
	"bytes"
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

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

// Zero reports whether a member that Gaps expects holds its zero value in
// v (a pointer to a struct), at any depth. A member absent or null decodes
// to its zero value, so where Zero is false, Gaps would find no gap: the
// decoded value tells, without reading the document again.
func Zero(v any) bool { return zero(reflect.ValueOf(v).Elem()) }

func zero(v reflect.Value) bool {
	for _, f := range membersOf(v.Type()).fields {
		fv := v.FieldByIndex(f.index)
		switch {
		case !f.walked || fv.Kind() == reflect.Slice && fv.IsNil():
			if fv.IsZero() {
				return true
			}
		case fv.Kind() == reflect.Struct:
			if zero(fv) {
				return true
			}
		default: // a slice of structs
			for i := range fv.Len() {
				if zero(fv.Index(i)) {
					return true
				}
			}
		}
	}
	return false
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

// walk reads the next value, the object decoded into v (an addressable
// struct), with the members v's type declares (membersOf).
func (o *Object) walk(v reflect.Value) error {
	m := membersOf(v.Type())
	return o.Members(v.Addr().Interface(), Members{Required: m.required, Nullable: m.nullable, Nested: func(name []byte) error {
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

// typeMembers are what Gaps expects of an object decoded into a struct
// type: every member its fields declare (inlined structs' included), null
// only for pointers, and the objects and arrays of objects to walk in
// turn; and, for Zero, the field of each member.
type typeMembers struct {
	required, nullable []string
	walked             map[string][]int // by member name
	fields             []typeField
}

// A typeField is a member's field: its index in the struct, and whether it
// holds an object or an array of objects that Gaps walks.
type typeField struct {
	index  []int
	walked bool
}

// typeMembersCache holds membersOf's answers by type.
var typeMembersCache sync.Map

// membersOf returns what Gaps expects of an object decoded into struct
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
			name, at, elem := cmp.Or(n, f.Name), append(slices.Clone(index), f.Index...), f.Type
			if elem.Kind() == reflect.Slice {
				elem = elem.Elem()
			}
			switch {
			case !f.IsExported() && !f.Anonymous || n == "-":
				continue
			case (opts == "inline" || f.Anonymous && n == "") && f.Type.Kind() == reflect.Struct:
				add(f.Type, at)
				continue
			case f.Type.Kind() == reflect.Pointer:
				m.nullable = append(m.nullable, name)
			case elem.Kind() == reflect.Struct && hasMembers(elem):
				m.walked[name] = at
			}
			m.required = append(m.required, name)
			m.fields = append(m.fields, typeField{index: at, walked: m.walked[name] != nil})
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
