package scribe

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
)

// TestEveryResponseTypeIsChecked finds by reflection every type the
// Client's operations answer with (what a method returns, a Pager's items
// and their pages, and every struct within them), so that a type added to
// an operation is covered without a list to update. A sample of each, with
// every member given, must decode, with unknown members too. Then each
// member, at any depth, is removed, and set to null:
//
//   - what identifies a resource (its id, an installation's uuid) and a
//     page's data and has_more: refused by every client, naming the member;
//   - any other member: the default client reads it as the zero value and
//     logs it at Warn, once; a WithStrictDecoding client refuses it, naming
//     it. Null passes both where the Go field is a pointer.
func TestEveryResponseTypeIsChecked(t *testing.T) {
	t.Parallel()
	types, items := responseTypes()
	if len(types) < 10 {
		t.Fatalf("found %d response types (%v); the walk of the Client's methods is broken", len(types), types)
	}
	for _, typ := range types {
		sample := sampleOf(t, typ)
		checkMembers(t, typ, sample, isResource(typ))
		if items[typ] {
			if pageOf[typ] == nil {
				t.Errorf("%s is a Pager's item, and pageOf has no page of it", typ)
				continue
			}
			page := append(append([]byte(`{"has_more":true,"total_count":1,"data":[`), sample...), "]}"...)
			checkMembers(t, pageOf[typ], page, true)
		}
	}
}

// pageOf holds the type of a page of each Pager's item type.
var pageOf = map[reflect.Type]reflect.Type{
	reflect.TypeFor[Plugin]():             reflect.TypeFor[envelope[Plugin]](),
	reflect.TypeFor[PluginInstallation](): reflect.TypeFor[envelope[PluginInstallation]](),
	reflect.TypeFor[Transcript]():         reflect.TypeFor[envelope[Transcript]](),
	reflect.TypeFor[Webhook]():            reflect.TypeFor[envelope[Webhook]](),
}

// isResource reports whether typ is identified (resource).
func isResource(typ reflect.Type) bool {
	return reflect.PointerTo(typ).Implements(reflect.TypeFor[resource]())
}

// checkMembers holds the decoding of sample, an answer of type typ, and of
// sample short of each member, to the rules TestEveryResponseTypeIsChecked
// states; top says whether typ is what an answer decodes into at its top
// (a resource or a page), where identity is required.
func checkMembers(t *testing.T, typ reflect.Type, sample []byte, top bool) {
	t.Helper()
	var logs bytes.Buffer
	tolerant := &call{ctx: context.Background(), method: "GET", path: "/sample/7", s: &settings{
		logger: slog.New(slog.NewJSONHandler(&logs, nil)), gapsLogged: new(sync.Map)}}
	strict := &call{ctx: context.Background(), method: "GET", path: "/sample/7", s: &settings{strictDecoding: true}}
	whole := reflect.New(typ)
	for _, cl := range []*call{tolerant, strict} {
		if err := cl.decodeBody(sample, whole.Interface()); err != nil {
			t.Fatalf("%s: the sample %s: %v", typ, sample, err)
		}
		// A newer service may add members, objects and arrays too: skipped.
		later := append([]byte(`{"later":{"id":null,"data":[{}]},"Data":[1],`), sample[1:]...)
		if err := cl.decodeBody(later, reflect.New(typ).Interface()); err != nil {
			t.Errorf("%s with unknown members: %v", typ, err)
		}
	}
	if logs.Len() > 0 {
		t.Errorf("%s: a whole sample logged %s", typ, logs.String())
	}
	for _, path := range memberPaths(t, sample) {
		identity := top && identityPaths.MatchString(path)
		for _, null := range []bool{false, true} {
			doc, what := edit(t, sample, path, null), "without "+path
			if null {
				what = "with " + path + " null"
			}
			nullable := null && fieldAt(typ, path).Kind() == reflect.Pointer
			got := reflect.New(typ)
			logs.Reset()
			err := tolerant.decodeBody(doc, got.Interface())
			var e *apijson.Error
			switch {
			case identity:
				if !errors.As(err, &e) || memberOf(e) != path {
					t.Errorf("%s %s: %v; want it refused there, however tolerant the reader", typ, what, err)
				}
				err = strict.decodeBody(doc, reflect.New(typ).Interface())
				if !errors.As(err, &e) || memberOf(e) != path {
					t.Errorf("%s %s, strict: %v; want it refused there", typ, what, err)
				}
				continue
			case err != nil:
				t.Errorf("%s %s: %v; want it read as the zero value", typ, what, err)
				continue
			}
			want := reflect.New(typ) // whole, read again: zeroAt must not reach into whole's slices
			if err := strict.decodeBody(sample, want.Interface()); err != nil {
				t.Fatal(err)
			}
			zeroAt(want.Elem(), path)
			if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
				t.Errorf("%s %s: decoded %+v, want %+v", typ, what, got.Elem(), want.Elem())
			}
			if line := logs.String(); nullable && line != "" {
				t.Errorf("%s %s: logged %s; null is allowed there", typ, what, line)
			} else if !nullable && !warned(line, logName(path), null) {
				t.Errorf("%s %s: logged %q; want one Warn line naming GET /sample/{id} and the member", typ, what, line)
			}
			logs.Reset()
			if _ = tolerant.decodeBody(doc, reflect.New(typ).Interface()); logs.Len() > 0 {
				t.Errorf("%s %s, a second time: logged %s; once per operation and member", typ, what, logs.String())
			}
			tolerant.s.gapsLogged = new(sync.Map) // the next path of the same member logs anew
			err = strict.decodeBody(doc, reflect.New(typ).Interface())
			if nullable {
				if err != nil {
					t.Errorf("%s %s, strict: %v; its field is a pointer, so null is allowed", typ, what, err)
				}
			} else if !errors.As(err, &e) || memberOf(e) != path || null != (e.Got == "null") {
				t.Errorf("%s %s, strict: %v; want it refused there", typ, what, err)
			}
		}
	}
}

// identityPaths match the members without which a resource or a page is
// refused by every client.
var identityPaths = regexp.MustCompile(`^(/data/0)?/(id|uuid)$|^/(data|has_more)$`)

// logName is how warnGap names the member at path.
func logName(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(strings.Replace(path, "/data/0/", "/data/", 1), "/"), "/", ".")
}

// warned reports whether out is one Warn line naming the sample's
// operation and member, found absent or null.
func warned(out, member string, null bool) bool {
	var line map[string]any
	found := map[bool]string{false: "absent", true: "null"}[null]
	return strings.Count(out, "\n") == 1 && json.Unmarshal([]byte(out), &line) == nil &&
		line["level"] == "WARN" && line["operation"] == "GET /sample/{id}" && line["member"] == member && line["found"] == found
}

// zeroAt sets the field the member at path decodes into to its zero value.
func zeroAt(v reflect.Value, path string) {
	names := strings.Split(path[1:], "/")
	for i, name := range names {
		if v.Kind() == reflect.Slice {
			n, _ := strconv.Atoi(name)
			v = v.Index(n)
			continue
		}
		for f := range v.Type().Fields() {
			if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
				if i == len(names)-1 {
					v.FieldByIndex(f.Index).SetZero()
					return
				}
				v = v.FieldByIndex(f.Index)
				break
			}
		}
	}
}

// responseTypes returns the types the Client's operations answer with, and
// which of them are a Pager's items.
func responseTypes() (types []reflect.Type, items map[reflect.Type]bool) {
	items = map[reflect.Type]bool{}
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
				items[out] = true
			}
			add(out)
		}
	}
	return types, items
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
// the document, in arrays too, but those within free-form members
// (metadata).
func memberPaths(t *testing.T, doc []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for name, member := range v {
				paths = append(paths, prefix+"/"+name)
				if name != "metadata" {
					walk(prefix+"/"+name, member)
				}
			}
		case []any:
			for i, item := range v {
				walk(prefix+"/"+strconv.Itoa(i), item)
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
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	at, names := v, strings.Split(path[1:], "/")
	for _, n := range names[:len(names)-1] {
		if a, ok := at.([]any); ok {
			i, _ := strconv.Atoi(n)
			at = a[i]
		} else {
			at = at.(map[string]any)[n]
		}
	}
	m := at.(map[string]any)
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
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
			if _, err := strconv.Atoi(name); err == nil {
				break
			}
		}
		if _, err := strconv.Atoi(name); err == nil {
			continue
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
