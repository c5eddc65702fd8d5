package scribetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The strict checks encoding/json does not make: a member the Go type has
// no field for (matched by exact name, at any depth) and a null where the
// document does not allow one. shape.check runs them in one pass over the
// bytes of a value, allocating nothing unless it finds a fault, before
// json.Unmarshal decodes the value and reports wrong types.
//
// The null rule (docs/contract.md, "Null in request bodies"): a member may
// be null only if its struct field is tagged `null:"ok"`
// (crm_integration_id, deleted_on). A null anywhere else, including an
// element of an array, is refused: the document's types say string,
// integer, object, and null is none of them. The free JSON of metadata
// values is not checked.

// shapeKind is how check treats a value of some Go type.
type shapeKind uint8

const (
	shapeAny    shapeKind = iota // anything but null (time.Time, json.Unmarshaler, scalars)
	shapeFree                    // anything, null included (json.RawMessage, any)
	shapeStruct                  // an object whose members must be fields
	shapeSlice                   // an array of elem
	shapeMap                     // an object of elem values, any member names
)

// shape is what check knows of a Go type.
type shape struct {
	kind   shapeKind
	typ    reflect.Type
	fields []shapeField // shapeStruct: a few, so a scan beats a map
	elem   *shape       // shapeSlice, shapeMap
}

type shapeField struct {
	name     string
	shape    *shape
	nullable bool
}

// field returns the field whose JSON name is name, matched exactly.
func (sh *shape) field(name []byte) (*shapeField, bool) {
	for i := range sh.fields {
		if string(name) == sh.fields[i].name {
			return &sh.fields[i], true
		}
	}
	return nil, false
}

var (
	shapes        sync.Map // reflect.Type -> *shape
	rawType       = reflect.TypeFor[json.RawMessage]()
	unmarshalType = reflect.TypeFor[json.Unmarshaler]()
)

// shapeOf returns the shape of t (pointers followed), built once per type.
func shapeOf(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	sh := buildShape(t, map[reflect.Type]*shape{})
	actual, _ := shapes.LoadOrStore(t, sh)
	return actual.(*shape)
}

func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := building[t]; ok {
		return sh
	}
	sh := &shape{typ: t}
	building[t] = sh
	switch {
	case t == rawType || t.Kind() == reflect.Interface:
		sh.kind = shapeFree
	case t == timeType || reflect.PointerTo(t).Implements(unmarshalType):
		sh.kind = shapeAny
	case t.Kind() == reflect.Struct:
		sh.kind = shapeStruct
		addFields(sh, t, building)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8, t.Kind() == reflect.Array:
		sh.kind = shapeSlice
		sh.elem = buildShape(t.Elem(), building)
	case t.Kind() == reflect.Map:
		sh.kind = shapeMap
		sh.elem = buildShape(t.Elem(), building)
	default:
		sh.kind = shapeAny
	}
	return sh
}

// addFields adds the JSON members of struct type t to sh (embedded structs
// flattened, as encoding/json does).
func addFields(sh *shape, t reflect.Type, building map[reflect.Type]*shape) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				addFields(sh, f.Type, building)
				continue
			}
			name = f.Name
		}
		sh.fields = append(sh.fields, shapeField{name: name, shape: buildShape(f.Type, building), nullable: f.Tag.Get("null") == "ok"})
	}
}

// check returns a *fieldError for the first unknown member or refused null
// of the value in data, in document order, or nil. data must hold one JSON
// value; what is not well-formed is left for json.Unmarshal to report, so
// check never fails on it, only stops looking.
func (sh *shape) check(data []byte) error {
	i := skipSpace(data, 0)
	if i < len(data) && data[i] == 'n' && sh.kind != shapeFree {
		return errors.New("must be " + jsonKind(sh.typ) + ", not null")
	}
	_, err := sh.walk(data, i)
	if errors.Is(err, errMalformed) || errors.Is(err, errShort) {
		return nil
	}
	return err
}

// errMalformed stops a walk over bytes that are not JSON.
var errMalformed = errors.New("malformed JSON")

// malformedAt is the error of a walk that cannot go on at data[i]: errShort
// if the bytes end there (a stream reads more), else errMalformed.
func malformedAt(data []byte, i int) error {
	if i >= len(data) {
		return errShort
	}
	return errMalformed
}

// walk checks the value at data[i:] (not whitespace, not null) and returns
// the index after it.
func (sh *shape) walk(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, malformedAt(data, i)
	}
	switch {
	case (sh.kind == shapeStruct || sh.kind == shapeMap) && data[i] == '{':
		return sh.walkObject(data, i)
	case sh.kind == shapeSlice && data[i] == '[':
		return sh.walkArray(data, i)
	}
	return skipValue(data, i)
}

// walkObject checks the members of the object at data[i]: a struct's must
// be its fields; a map's values must fit its element's shape.
func (sh *shape) walkObject(data []byte, i int) (int, error) {
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, malformedAt(data, i)
		}
		end, err := skipString(data, i)
		if err != nil {
			return end, err
		}
		name, ok := memberName(data[i:end])
		if !ok {
			return end, errMalformed
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return i, malformedAt(data, i)
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return i, malformedAt(data, i)
		}
		vsh, nullable := sh.elem, false
		if sh.kind == shapeStruct {
			f, known := sh.field(name)
			if !known {
				return i, &fieldError{displayName(name), "unknown member"}
			}
			vsh, nullable = f.shape, f.nullable
		}
		if data[i] == 'n' && !nullable && vsh.kind != shapeFree {
			return i, &fieldError{displayName(name), "must be " + jsonKind(vsh.typ) + ", not null"}
		}
		if i, err = vsh.walk(data, i); err != nil {
			return i, prefixField(err, displayName(name))
		}
		var done bool
		if i, done, err = afterItem(data, i, '}'); err != nil || done {
			return i, err
		}
	}
}

// walkArray checks the elements of the array at data[i].
func (sh *shape) walkArray(data []byte, i int) (int, error) {
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		if i >= len(data) {
			return i, malformedAt(data, i)
		}
		if data[i] == 'n' && sh.elem.kind != shapeFree {
			return i, &fieldError{"[" + strconv.Itoa(n) + "]", "must be " + jsonKind(sh.elem.typ) + ", not null"}
		}
		var err error
		if i, err = sh.elem.walk(data, i); err != nil {
			return i, prefixField(err, "["+strconv.Itoa(n)+"]")
		}
		var done bool
		if i, done, err = afterItem(data, i, ']'); err != nil || done {
			return i, err
		}
	}
}

// afterItem reads what follows a member or an element of a container that
// end closes: a comma, and it returns the index of the next item
// (whitespace skipped), or end, and it returns the index after it and
// done.
func afterItem(data []byte, i int, end byte) (next int, done bool, err error) {
	i = skipSpace(data, i)
	switch {
	case i >= len(data):
		return i, false, malformedAt(data, i)
	case data[i] == ',':
		return skipSpace(data, i+1), false, nil
	case data[i] == end:
		return i + 1, true, nil
	}
	return i, false, malformedAt(data, i)
}

// prefixField puts name (a member, or an [index]) in front of the path of a
// *fieldError.
func prefixField(err error, name string) error {
	fe, ok := err.(*fieldError)
	if !ok {
		return err
	}
	if strings.HasPrefix(fe.Field, "[") {
		return &fieldError{name + fe.Field, fe.Reason}
	}
	return &fieldError{name + "." + fe.Field, fe.Reason}
}

// displayName is a member name as an error message shows it.
func displayName(name []byte) string { return strings.ToValidUTF8(string(name), "\ufffd") }

// memberName returns the text of a quoted member name. Without escapes it
// aliases the bytes, and allocates nothing.
func memberName(quoted []byte) ([]byte, bool) {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string that opens at data[i].
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return len(data), errShort
}

// errShort says the bytes end inside a value: read more.
var errShort = errors.New("unexpected end of JSON input")

// skipValue returns the index after the value that begins at data[i] (not
// whitespace). It follows only the structure, strings and nesting; the
// value's well-formedness is json.Unmarshal's to check. A value cut short
// by the end of data is errShort.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, errShort
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return end, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return len(data), errShort
	}
	for j := i; j < len(data); j++ {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return j, errMalformed
			}
			return j, nil
		}
	}
	return len(data), errShort
}
