package scribe

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
)

// TestEveryResponseTypeIsChecked finds by reflection every type the
// Client's operations answer with (what a method returns, a Pager's items,
// and every struct within them), so that a type added to an operation is
// covered without a list to update. Each must be a checker, and a sample of
// it must decode, with unknown members too, then fail naming the member
// when any member, at any depth, is missing, or is null where its field is
// not a pointer.
func TestEveryResponseTypeIsChecked(t *testing.T) {
	t.Parallel()
	types := responseTypes()
	if len(types) < 10 {
		t.Fatalf("found %d response types (%v); the walk of the Client's methods is broken", len(types), types)
	}
	for _, typ := range types {
		if !reflect.PointerTo(typ).Implements(reflect.TypeFor[checker]()) {
			t.Errorf("%s has no check method: its answers would be decoded unchecked (decode.go)", typ)
			continue
		}
		sample := sampleOf(t, typ)
		if err := decodeBody(sample, reflect.New(typ).Interface()); err != nil {
			t.Fatalf("%s: the sample %s: %v", typ, sample, err)
		}
		// A newer service may add members, objects and arrays too: skipped.
		later := append([]byte(`{"later":{"id":null,"data":[{}]},"Data":[1],`), sample[1:]...)
		if err := decodeBody(later, reflect.New(typ).Interface()); err != nil {
			t.Errorf("%s with unknown members: %v", typ, err)
		}
		for _, path := range memberPaths(t, sample) {
			parent, name := path[:strings.LastIndex(path, "/")], path[strings.LastIndex(path, "/")+1:]
			err := decodeBody(edit(t, sample, path, false), reflect.New(typ).Interface())
			var e *apijson.Error
			if !errors.As(err, &e) || e.Missing != name || e.Pointer != parent {
				t.Errorf("%s without %s: %v; want a missing member %q at %q", typ, path, err, name, parent)
			}
			err = decodeBody(edit(t, sample, path, true), reflect.New(typ).Interface())
			if field := fieldAt(typ, path); field.Kind() == reflect.Pointer {
				if err != nil {
					t.Errorf("%s with %s null: %v; its field is a pointer, so null is allowed", typ, path, err)
				}
			} else if !errors.As(err, &e) || e.Got != "null" || e.Pointer != path {
				t.Errorf("%s with %s null: %v; want it refused there", typ, path, err)
			}
		}
	}
}

// responseTypes returns the types the Client's operations answer with.
func responseTypes() []reflect.Type {
	var types []reflect.Type
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || slices.Contains(types, t) {
			return
		}
		tagged := false
		for f := range t.Fields() {
			if _, ok := f.Tag.Lookup("json"); ok && f.IsExported() {
				tagged = true
				add(f.Type)
			}
		}
		if tagged {
			types = append(types, t)
		}
	}
	for m := range reflect.TypeFor[*Client]().Methods() {
		for out := range m.Type.Outs() {
			if all, ok := out.MethodByName("All"); ok { // a *Pager[T]: All is an iter.Seq2[T, error]
				out = all.Type.Out(0).In(0).In(0)
			}
			add(out)
		}
	}
	return types
}

// sampleOf returns an answer of type t with every member given, none null.
func sampleOf(t *testing.T, typ reflect.Type) []byte {
	t.Helper()
	v := reflect.New(typ).Elem()
	fill(t, v)
	b, err := apijson.Marshal(v.Interface())
	if err != nil {
		t.Fatal(err)
	}
	// The secrets marshal redacted; the sample carries real ones.
	s := strings.NewReplacer(`"ask_live_[REDACTED]"`, `"ask_live_sample"`, `"whsec_[REDACTED]"`, `"whsec_c2FtcGxl"`).Replace(string(b))
	return []byte(s)
}

func fill(t *testing.T, v reflect.Value) {
	switch p := v.Addr().Interface().(type) {
	case *time.Time:
		*p = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
		return
	case *auth.SecretKey:
		*p, _ = auth.ParseSecretKey("ask_live_sample")
		return
	case *auth.WebhookSecret:
		*p, _ = auth.ParseWebhookSecret("whsec_c2FtcGxl")
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i))
			}
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem())
	case reflect.Map:
		m, e := reflect.MakeMap(v.Type()), reflect.New(v.Type().Elem()).Elem()
		fill(t, e)
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // free JSON, such as a json.RawMessage
			v.SetBytes([]byte("1"))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0))
	default:
		t.Fatalf("sampleOf: no sample value of kind %s (%s); teach fill one", v.Kind(), v.Type())
	}
}

// memberPaths returns the JSON pointer of every member of every object of
// the document, but those within free-form members (metadata).
func memberPaths(t *testing.T, doc []byte) []string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for name, member := range m {
			paths = append(paths, prefix+"/"+name)
			if sub, ok := member.(map[string]any); ok && name != "metadata" {
				walk(prefix+"/"+name, sub)
			}
		}
	}
	walk("", v)
	slices.Sort(paths)
	return paths
}

// edit returns doc with the member at path removed, or set to null.
func edit(t *testing.T, doc []byte, path string, null bool) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	m, names := v, strings.Split(path[1:], "/")
	for _, n := range names[:len(names)-1] {
		m = m[n].(map[string]any)
	}
	if null {
		m[names[len(names)-1]] = nil
	} else {
		delete(m, names[len(names)-1])
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fieldAt returns the type of the field that the member at path decodes
// into.
func fieldAt(typ reflect.Type, path string) reflect.Type {
	for _, name := range strings.Split(path[1:], "/") {
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		for f := range typ.Fields() {
			if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
				typ = f.Type
				break
			}
		}
	}
	return typ
}
