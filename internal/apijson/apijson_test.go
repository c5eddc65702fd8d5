package apijson

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The types of these tests check themselves as the SDK's response types
// do: every member required, none null but those listed nullable.

type user struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func (u *user) check(o *Object) error {
	return o.Members(u, Members{Required: []string{"id", "name"}})
}

type resource struct {
	ID        int64                      `json:"id"`
	CreatedOn time.Time                  `json:"created_on"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
	User      user                       `json:"user"`
	Note      *string                    `json:"note"`
}

func (r *resource) check(o *Object) error {
	return o.Members(r, Members{
		Required: []string{"id", "created_on", "metadata", "user", "note"},
		Nullable: []string{"note"},
		Nested: func(name []byte) error {
			if string(name) == "user" {
				return r.User.check(o)
			}
			return o.Skip()
		},
	})
}

type list struct {
	HasMore bool       `json:"has_more"`
	Data    []resource `json:"data"`
}

func (l *list) check(o *Object) error {
	return o.Members(l, Members{
		Required: []string{"has_more", "data"},
		Nested:   func([]byte) error { return o.Array(func(i int) error { return l.Data[i].check(o) }) },
	})
}

// decode is what the SDK does with a 2xx answer: Unmarshal, then Check.
func decode(data string, v interface{ check(*Object) error }, opts Options) error {
	err := Unmarshal([]byte(data), v, opts)
	if err == nil {
		err = Check([]byte(data), opts, v.check)
	}
	return err
}

const good = `{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{"a":[1,{"b":null}]},"user":{"id":2,"name":"Ada"},"note":null}`

// TestRequiredMembers protects what the check adds to the library: a
// missing member, or null where the member is not nullable, is an error
// naming it, at any depth; unknown members are skipped (Lenient).
func TestRequiredMembers(t *testing.T) {
	var r resource
	if err := decode(good, &r, Lenient()); err != nil {
		t.Fatalf("a complete resource: %v", err)
	}
	if r.ID != 1 || r.User.Name != "Ada" || string(r.Metadata["a"]) != `[1,{"b":null}]` || !r.CreatedOn.Equal(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)) || r.Note != nil {
		t.Fatalf("decoded %+v", r)
	}
	if err := decode(`{"new":{"x":[null]},"id":null,`[:len(`{"new":{"x":[null]},`)]+good[1:], &r, Lenient()); err != nil {
		t.Fatalf("an unknown member: %v", err)
	}
	if err := decode(`{"n\u0061me":"Ada","\u0069d":2}`, &user{}, Lenient()); err != nil {
		t.Fatalf("escaped member names: %v", err)
	}
	// An unknown member holding an array or an object is skipped, not
	// handed to a check that does not look at names (list's Nested).
	if err := decode(`{"has_more":false,"Data":[`+good+`],"data":[],"more":{"data":[1]}}`, &list{}, Lenient()); err != nil {
		t.Fatalf("unknown members holding arrays and objects: %v", err)
	}

	for _, tc := range []struct {
		in, pointer, reason string
		offset              int64
	}{
		{`null`, "", "must be an object, not null", 0},
		{`[]`, "", "must be an object, got array", 0},
		{`{}`, "", `missing required member "id"`, 0},
		{` {"error":"upstream request timeout"}`, "", `missing required member "id"`, 1},
		{strings.Replace(good, `"name":"Ada"`, `"nam":"Ada"`, 1), "/user", `missing required member "name"`, 83},
		{strings.Replace(good, `,"note":null`, ``, 1), "", `missing required member "note"`, 0},
		{strings.Replace(good, `{"id":2,"name":"Ada"}`, `null`, 1), "/user", "must be an object, not null", 83},
		{strings.Replace(good, `"id":1`, `"id":"1"`, 1), "/id", "must be an integer, got string", 6},
		{strings.Replace(good, `"id":1`, `"id":99999999999999999999`, 1), "/id", "must be an integer, got a number out of its range", 6},
		{strings.Replace(good, `"id":1`, `"id":1,"id":2`, 1), "/id", "duplicate member name", 8},
		{strings.Replace(good, `"2026-11-21T09:30:00Z"`, `null`, 1), "/created_on", "must be an RFC 3339 timestamp string, not null", 21},
		{`{"id":1`, "", "the document ends before its value does", 7},
		{strings.Replace(good, `{"a":[1,{"b":null}]}`, `null`, 1), "/metadata", "must be an object, not null", 55},
		{strings.Replace(good, `"id":1`, `"id":null`, 1), "/id", "must be an integer, not null", 6},
		{strings.Replace(good, `"id":2`, `"id":null`, 1), "/user/id", "must be an integer, not null", 89},
		// What is not JSON at all says so (Got is NotJSON), and nothing is
		// said to be missing from an empty document.
		{`<!DOCTYPE html><html>`, "", "must be an object, got something that is not JSON", 0},
		{`OK`, "", "must be an object, got something that is not JSON", 0},
		{strings.Replace(good, `"2026-11-21T09:30:00Z"`, `<b>now</b>`, 1), "/created_on", "must be an RFC 3339 timestamp string, got something that is not JSON", 21},
		{``, "", "the document is empty", 0},
		{" \n", "", "the document is empty", 2},
	} {
		var r resource
		err := decode(tc.in, &r, Lenient())
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.in, err)
			continue
		}
		if e.Pointer != tc.pointer || e.Reason != tc.reason || e.Offset != tc.offset {
			t.Errorf("%s: got pointer %q reason %q offset %d, want %q %q %d", tc.in, e.Pointer, e.Reason, e.Offset, tc.pointer, tc.reason, tc.offset)
		}
		if notJSON := strings.HasSuffix(tc.reason, "not JSON"); notJSON != (e.Got == NotJSON) {
			t.Errorf("%s: Got = %q", tc.in, e.Got)
		}
	}

	err := decode(`{"has_more":false,"data":[`+good+`,{"id":3}]}`, &list{}, Lenient())
	var e *Error
	if !errors.As(err, &e) || e.Pointer != "/data/1" || e.Missing != "created_on" {
		t.Fatalf("a list with an incomplete item: %v", err)
	}
	if err := decode(`{"has_more":false,"data":[null]}`, &list{}, Lenient()); !errors.As(err, &e) || e.Pointer != "/data/0" || e.Got != "null" {
		t.Fatalf("a list with a null item: %v", err)
	}
}

// body is a request body or a fixture: members may be omitted, but in
// Strict no member may be null unless it is nullable, however deep.
type body struct {
	Name  string  `json:"name"`
	Note  string  `json:"note"`
	Tag   *string `json:"tag"`
	CRM   *int64  `json:"crm"`
	Inner struct {
		Level string `json:"level"`
	} `json:"inner"`
}

func (b *body) check(o *Object) error {
	return o.Members(b, Members{
		Required: []string{"name"},
		Nullable: []string{"crm"},
		Nested:   func([]byte) error { return o.Members(&b.Inner, Members{}) },
	})
}

// TestStrictNulls protects the checks of request bodies and fixtures:
// members may be omitted, but null is refused for any member not
// nullable, a pointer's included, and a required member must be there.
func TestStrictNulls(t *testing.T) {
	var b body
	if err := decode(`{"name":"n","crm":null}`, &b, Strict()); err != nil || b.Tag != nil || b.CRM != nil {
		t.Fatalf("omitted members and a nullable null: %+v, %v", b, err)
	}
	for in, want := range map[string]string{
		`{"name":"n","note":null}`:             "/note: must be a string, not null",
		`{"name":"n","tag":null}`:              "/tag: must be a string, not null",
		`{"name":"n","inner":{"level":null}}`:  "/inner/level: must be a string, not null",
		`{"name":"n","inner":null}`:            "/inner: must be an object, not null",
		`{"note":"x"}`:                         `: missing required member "name"`,
		`{"name":"n","nmae":"x"}`:              "/nmae: unknown member",
		`{"name":"n","inner":{"levl":"read"}}`: "/inner/levl: unknown member",
	} {
		err := decode(in, &body{}, Strict())
		var e *Error
		if !errors.As(err, &e) || e.Pointer+": "+e.Reason != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	// Lenient (an answer): an unknown member may be null.
	if err := decode(`{"name":"n","later":null}`, &body{}, Lenient()); err != nil {
		t.Errorf("an unknown null member in an answer: %v", err)
	}
}

// TestInlinedFields: the members of a struct tagged `json:",inline"` are
// checked, and worded, as the object's own.
func TestInlinedFields(t *testing.T) {
	type Inner struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	type outer struct {
		ID    *int64 `json:"id"`
		Inner `json:",inline"`
	}
	var o outer
	check := func(obj *Object) error { return obj.Members(&o, Members{Required: []string{"name"}}) }
	for in, want := range map[string]string{
		`{"id":0,"name":"n"}`: "",
		`{"name":null}`:       "/name: must be a string, not null",
		`{"id":null}`:         "/id: must be an integer, not null",
		`{"id":1}`:            `: missing required member "name"`,
	} {
		o = outer{}
		err := Unmarshal([]byte(in), &o, Strict())
		if err == nil {
			err = Check([]byte(in), Strict(), check)
		}
		var e *Error
		switch {
		case want == "" && (err != nil || o.ID == nil || *o.ID != 0 || o.Name != "n" || o.Inner.ID != 0):
			t.Errorf("%s: %+v, %v", in, o, err)
		case want != "" && (!errors.As(err, &e) || e.Pointer+": "+e.Reason != want):
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestParseTime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-21T09:30:00Z", utc(2026, 11, 21, 9, 30, 0, 0)},
		{"2026-11-21t09:30:00z", utc(2026, 11, 21, 9, 30, 0, 0)},
		{"2026-11-21T09:30:00.5Z", utc(2026, 11, 21, 9, 30, 0, 5e8)},
		{"2026-11-21T09:30:00.123456789123Z", utc(2026, 11, 21, 9, 30, 0, 123456789)},
		{"2026-11-21T09:30:00-00:00", utc(2026, 11, 21, 9, 30, 0, 0)},
		{"2026-11-21T10:30:00+01:00", utc(2026, 11, 21, 9, 30, 0, 0)},
		{"2026-11-21T00:30:00-09:00", utc(2026, 11, 21, 9, 30, 0, 0)},
		// The leap second is the first instant of the next minute.
		{"2016-12-31T23:59:60Z", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"2016-12-31T23:59:60.5Z", utc(2017, 1, 1, 0, 0, 0, 5e8)},
		{"2017-01-01T00:59:60+01:00", utc(2017, 1, 1, 0, 0, 0, 0)},
		{"2024-02-29T00:00:00Z", utc(2024, 2, 29, 0, 0, 0, 0)},
	} {
		got, err := parseTime(tc.in)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "2026-11-21", "2026-11-21T09:30:00", "2026-11-21 09:30:00Z", "2026-11-21T09:30:00.Z",
		"2026-11-21T09:30:00,5Z", "2026-11-21T24:00:00Z", "2026-11-21T09:60:00Z", "2026-11-21T09:30:61Z",
		"2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T09:30:00+24:00", "2026-11-21T09:30:00+0100",
		"2026-11-21T09:30:00ZZ", "+2026-11-21T09:30:00Z", "2026-11-21T09:30:00." + strings.Repeat("1", 100) + "Z",
		"2026-11-21T09:60:60Z", "2026-11-21x09:30:00Z",
	} {
		if got, err := parseTime(in); err != errTimestamp { // its fixed words, never the input
			t.Errorf("parseTime(%q) = %v, %v; want errTimestamp", in, got, err)
		}
	}
}

// TestErrorsNeverQuoteTheValue: a broken server may put a credential where
// a timestamp belongs; the error names the place and the expectation only,
// and stays short however long the value.
func TestErrorsNeverQuoteTheValue(t *testing.T) {
	secrets := []string{
		"ask_live_" + strings.Repeat("k", 40),
		"eyJhbGciOiJIUzI1NiJ9.eyJpYXQiOjB9.c2lnbmF0dXJl",
		strings.Repeat("x", 1<<20),
	}
	for _, s := range secrets {
		for _, in := range []string{
			`{"id":1,"created_on":"` + s + `"}`,
			`{"id":"` + s + `"}`,
			`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{},"user":{"id":2,"name":"a","` + s + `":1,"` + s + `":2}}`,
			`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{"` + s + `":` + "\x01" + `}}`,
			`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{},"note":null,"user":{"` + s + `":null}}`,
		} {
			err := decode(in, &resource{}, Lenient())
			if err == nil {
				t.Fatalf("no error for %.60s", in)
			}
			msg := err.Error()
			if len(msg) > 1024 {
				t.Errorf("message of %d bytes: %.100s", len(msg), msg)
			}
			if strings.Contains(msg, s[:min(len(s), 40)]) || strings.Contains(msg, s[9:30]) {
				t.Errorf("message quotes the value: %s", msg)
			}
		}
	}
}

func TestMarshalIsDeterministic(t *testing.T) {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	for range 20 {
		b, err := Marshal(m)
		if err != nil || string(b) != `{"a":1,"b":2,"c":3}` {
			t.Fatalf("Marshal = %s, %v", b, err)
		}
	}
}

// TestStringsAsTheLibraryReadsThem: a string member decodes as the library
// decodes it (escapes, surrogate pairs); invalid UTF-8 and a number where a
// string belongs are refused.
func TestStringsAsTheLibraryReadsThem(t *testing.T) {
	var u user
	if err := decode(`{"id":1,"name":"caf\u00e9 \ud83d\ude00\n\"x\""}`, &u, Strict()); err != nil || u.Name != "café 😀\n\"x\"" {
		t.Fatalf("decoded %+v, %v", u, err)
	}
	for _, bad := range []string{"{\"id\":1,\"name\":\"\xff\"}", `{"id":1,"name":1}`, `{"id":1,"name":null}`} {
		if err := decode(bad, &user{}, Strict()); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestGapsFromTheType protects Gaps: with no rules but the type's, every
// member the fields declare is expected, at any depth (a nested object, the
// items of an array), null passes only a pointer field, maps and unknown
// members are not walked; each gap reaches the function in document order,
// the walk goes on when it returns nil and stops with its error otherwise.
func TestGapsFromTheType(t *testing.T) {
	type page struct {
		HasMore bool       `json:"has_more"`
		Data    []resource `json:"data"`
	}
	doc := `{"has_more":true,"later":{"id":null},"data":[` + good + `,` +
		`{"id":2,"created_on":null,"metadata":{"x":null},"user":{"id":3},"note":null}]}`
	var p page
	if err := Unmarshal([]byte(doc), &p, Lenient()); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := Gaps([]byte(doc), Lenient(), &p, func(e *Error) error {
		got = append(got, e.Pointer+" "+e.Missing+" "+e.Got)
		return nil
	})
	want := []string{"/data/1/created_on  null", "/data/1/user name "}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("gaps %q, %v; want %q", got, err, want)
	}
	stop := errors.New("stop")
	if err := Gaps([]byte(doc), Lenient(), &p, func(*Error) error { return stop }); err != stop {
		t.Errorf("a gap function's error: %v, want it returned", err)
	}
	if err := Gaps([]byte(doc), Lenient(), &p, nil); !errors.As(err, new(*Error)) {
		t.Errorf("no gap function: %v, want the first gap", err)
	}
	// What is not a member's gap is the walk's error.
	var r resource
	if err := Gaps([]byte(`null`), Lenient(), &r, func(*Error) error { return nil }); err == nil {
		t.Error("a null document passed")
	}
	if err := Gaps([]byte(`{"has_more":true,"data":[null]}`), Lenient(), &page{Data: []resource{{}}}, func(*Error) error { return nil }); err == nil {
		t.Error("a null item passed")
	}
}

// TestZero protects Zero: true where a member Gaps expects decoded to its
// zero value, at any depth (a nil pointer, a nil map, an item's member),
// and only there.
func TestZero(t *testing.T) {
	type page struct {
		HasMore bool       `json:"has_more"`
		Data    []resource `json:"data"`
	}
	whole := strings.Replace(good, `"note":null`, `"note":"n"`, 1)
	for doc, want := range map[string]bool{
		`{"has_more":true,"data":[` + whole + `]}`:                                    false,
		`{"has_more":true,"data":[]}`:                                                 false,
		`{"has_more":false,"data":[` + whole + `]}`:                                   true,
		`{"has_more":true}`:                                                           true,
		`{"has_more":true,"data":[` + good + `]}`:                                     true, // note null
		`{"has_more":true,"data":[` + strings.Replace(whole, `"id":2,`, ``, 1) + `]}`: true,
		`{"has_more":true,"data":[` + strings.Replace(whole, `,"metadata":{"a":[1,{"b":null}]}`, ``, 1) + `]}`: true,
	} {
		var p page
		if err := Unmarshal([]byte(doc), &p, Lenient()); err != nil {
			t.Fatal(err)
		}
		if got := Zero(&p); got != want {
			t.Errorf("%s: Zero = %v, want %v", doc, got, want)
		}
	}
}

// TestPresent protects Present: a member there and not null, at the top of
// the object only.
func TestPresent(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"has_more":false,"data":[]}`:                  true,
		`{"data":[{"has_more":true}],"has_more":false}`: true,
		`{"h\u0061s_more":false}`:                       true,
		`{"data":[{"has_more":true}]}`:                  false,
		`{"has_more":null}`:                             false,
		`[{"has_more":true}]`:                           false,
		`null`:                                          false,
	} {
		if got := Present([]byte(doc), "has_more"); got != want {
			t.Errorf("%s: %v, want %v", doc, got, want)
		}
	}
}
