package apijson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

type user struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type resource struct {
	ID        int64                      `json:"id"`
	CreatedOn time.Time                  `json:"created_on"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
	User      user                       `json:"user"`
}

type list struct {
	HasMore bool       `json:"has_more"`
	Data    []resource `json:"data"`
}

var (
	lenient = Lenient(Require[list](), Require[resource](), Require[user]())
	strict  = Strict(Require[user]())
)

const good = `{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{"a":[1,{"b":null}]},"user":{"id":2,"name":"Ada"}}`

func TestRequiredMembers(t *testing.T) {
	var r resource
	if err := Unmarshal([]byte(good), &r, lenient); err != nil {
		t.Fatalf("a complete resource: %v", err)
	}
	if r.ID != 1 || r.User.Name != "Ada" || string(r.Metadata["a"]) != `[1,{"b":null}]` || !r.CreatedOn.Equal(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)) {
		t.Fatalf("decoded %+v", r)
	}
	// Unknown members are skipped by Lenient: a newer service may add some.
	if err := Unmarshal([]byte(`{"new":{"x":[1]},`+good[1:]), &r, lenient); err != nil {
		t.Fatalf("an unknown member: %v", err)
	}

	for _, tc := range []struct {
		in, pointer, reason string
	}{
		{`null`, "", "must be an object, not null"},
		{`[]`, "", "must be an object, got array"},
		{`{}`, "", `missing required member "id"`},
		{`{"error":"upstream request timeout"}`, "", `missing required member "id"`},
		{`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{},"user":{"id":2}}`, "/user", `missing required member "name"`},
		{`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":{},"user":null}`, "/user", "must be an object, not null"},
		{`{"id":"1"}`, "/id", "must be an integer, got string"},
		{`{"id":99999999999999999999}`, "/id", "must be an integer, got a number out of its range"},
		{`{"id":1,"id":2}`, "/id", "duplicate member name"},
		{`{"id":1,"created_on":null}`, "/created_on", "must be an RFC 3339 timestamp string, not null"},
		{`{"id":1`, "", "the document ends before its value does"},
		{`{"id":1,"created_on":"2026-11-21T09:30:00Z","metadata":null,"user":{"id":2,"name":"Ada"}}`, "/metadata", "must be an object, not null"},
		{`{"id":null}`, "/id", "must be an integer, not null"},
		// What is not JSON at all says so (Got is NotJSON), and nothing is
		// said to be missing from an empty document.
		{`<!DOCTYPE html><html>`, "", "must be an object, got something that is not JSON"},
		{`OK`, "", "must be an object, got something that is not JSON"},
		{`{"id":1,"created_on":<b>now</b>}`, "/created_on", "must be an RFC 3339 timestamp string, got something that is not JSON"},
		{``, "", "the document is empty"},
		{" \n", "", "the document is empty"},
	} {
		var r resource
		err := Unmarshal([]byte(tc.in), &r, lenient)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.in, err)
			continue
		}
		if e.Pointer != tc.pointer || e.Reason != tc.reason {
			t.Errorf("%s: got pointer %q reason %q, want %q %q", tc.in, e.Pointer, e.Reason, tc.pointer, tc.reason)
		}
		if notJSON := strings.HasSuffix(tc.reason, "not JSON"); notJSON != (e.Got == NotJSON) {
			t.Errorf("%s: Got = %q", tc.in, e.Got)
		}
	}

	var l list
	err := Unmarshal([]byte(`{"has_more":false,"data":[`+good+`,{"id":3}]}`), &l, lenient)
	var e *Error
	if !errors.As(err, &e) || e.Pointer != "/data/1" || e.Missing != "created_on" {
		t.Fatalf("a list with an incomplete item: %v", err)
	}
}

// TestFieldsAreOptionalButNotNull protects Fields: members may be omitted,
// but null is refused for a field that is not a pointer.
func TestFieldsAreOptionalButNotNull(t *testing.T) {
	type body struct {
		Name string  `json:"name" apijson:"required"`
		Note string  `json:"note"`
		Tag  *string `json:"tag" apijson:"nonull"`
		CRM  *int64  `json:"crm"`
	}
	opts := Strict(Fields[body]())
	var b body
	if err := Unmarshal([]byte(`{"name":"n","crm":null}`), &b, opts); err != nil || b.Tag != nil || b.CRM != nil {
		t.Fatalf("omitted members and a nullable null: %+v, %v", b, err)
	}
	for in, want := range map[string]string{
		`{"name":"n","note":null}`: "/note: must be a string, not null",
		`{"name":"n","tag":null}`:  "/tag: must be a string, not null",
		`{"note":"x"}`:             `: missing required member "name"`,
	} {
		err := Unmarshal([]byte(in), &b, opts)
		var e *Error
		if !errors.As(err, &e) || e.Pointer+": "+e.Reason != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

// TestFieldsInline protects Fields' inlining: the members of a struct
// tagged `json:",inline"` are members of the object, checked as its own,
// and one the outer struct declares itself hides the inlined one.
func TestFieldsInline(t *testing.T) {
	type Inner struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	type outer struct {
		ID    *int64 `json:"id" apijson:"nonull"`
		Inner `json:",inline"`
	}
	opts := Strict(Fields[outer]())
	var o outer
	if err := Unmarshal([]byte(`{"id":0,"name":"n"}`), &o, opts); err != nil || o.ID == nil || *o.ID != 0 || o.Name != "n" || o.Inner.ID != 0 {
		t.Fatalf("outer id and inlined name: %+v, %v", o, err)
	}
	for in, want := range map[string]string{
		`{"name":null}`: "/name: must be a string, not null",
		`{"id":null}`:   "/id: must be an integer, not null",
		`{"nme":"x"}`:   "/nme: unknown member",
	} {
		err := Unmarshal([]byte(in), &o, opts)
		var e *Error
		if !errors.As(err, &e) || e.Pointer+": "+e.Reason != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestStrictRefusesUnknownMembers(t *testing.T) {
	var u user
	err := Unmarshal([]byte(`{"id":1,"name":"Ada","nmae":"x"}`), &u, strict)
	var e *Error
	if !errors.As(err, &e) || e.Pointer != "/nmae" || !strings.Contains(e.Reason, "unknown member") {
		t.Fatalf("got %v, want an unknown member at /nmae", err)
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
		got, err := ParseTime(tc.in)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "2026-11-21", "2026-11-21T09:30:00", "2026-11-21 09:30:00Z", "2026-11-21T09:30:00.Z",
		"2026-11-21T09:30:00,5Z", "2026-11-21T24:00:00Z", "2026-11-21T09:60:00Z", "2026-11-21T09:30:61Z",
		"2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T09:30:00+24:00", "2026-11-21T09:30:00+0100",
		"2026-11-21T09:30:00ZZ", "+2026-11-21T09:30:00Z", "2026-11-21T09:30:00." + strings.Repeat("1", 100) + "Z",
	} {
		if got, err := ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", in, got)
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
		} {
			var r resource
			err := Unmarshal([]byte(in), &r, lenient)
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

// TestFieldsStringsAsTheLibraryReadsThem: a plain string member decodes as
// the library decodes it (escapes, surrogate pairs), invalid UTF-8 and a
// number where a string belongs are refused, and a named string type still
// goes through the library (and its own methods).
func TestFieldsStringsAsTheLibraryReadsThem(t *testing.T) {
	type level string
	type doc struct {
		S string `json:"s"`
		L level  `json:"l"`
	}
	opts := Strict(Fields[doc]())
	var d doc
	if err := Unmarshal([]byte(`{"s":"caf\u00e9 \ud83d\ude00\n\"x\"","l":"read"}`), &d, opts); err != nil {
		t.Fatal(err)
	}
	if d.S != "café 😀\n\"x\"" || d.L != "read" {
		t.Errorf("decoded %+v", d)
	}
	for _, bad := range []string{"{\"s\":\"\xff\"}", `{"s":1}`, `{"l":1}`, `{"s":null}`} {
		if err := Unmarshal([]byte(bad), &doc{}, opts); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// objectFields has an integer, a pointer and a timestamp member for the
// object decoder of Require and Fields; libraryFields is the same struct
// without it, so the library decodes its members. (Fields: every member
// optional, so each case can carry one.)
type objectFields struct {
	N   int64     `json:"n"`
	I   int       `json:"i"`
	P   *int64    `json:"p"`
	At  time.Time `json:"at"`
	Pad string    `json:"pad"`
}

type libraryFields objectFields

// TestFieldsNumbersAndTimesAsTheLibraryReadsThem: integers and timestamps read
// through Require's object decoder give the same values, and the same
// errors (place, offset, what was wanted and found), as the library's own
// decoding of the same member.
func TestFieldsNumbersAndTimesAsTheLibraryReadsThem(t *testing.T) {
	viaFields, viaLibrary := Lenient(Fields[objectFields]()), Lenient()
	for _, member := range []string{
		`"n":7`, `"n":-0`, `"n":-9223372036854775808`, `"n":9223372036854775808`, `"n":1.5`, `"n":1e2`, `"n":"7"`,
		`"i":42`, `"i":99999999999999999999`, `"i":0.0`,
		`"p":5`, `"p":-5`, `"p":1.25`, `"p":null`,
		`"at":"2026-11-21T09:30:00Z"`, `"at":"2026-11-21t09:30:00.123456789123z"`, `"at":"2016-12-31T23:59:60-00:00"`,
		`"at":"2026-11-21T09:30:00+05:30"`, `"at":"2026-13-21T09:30:00Z"`, `"at":"ask_live_0123456789abcdef"`,
		`"at":"2026-11-21T09:30:00\u005a"`, `"at":7`,
	} {
		doc := `{"pad":"  x  ",` + member + `}`
		var a objectFields
		var b libraryFields
		errA := Unmarshal([]byte(doc), &a, viaFields)
		errB := Unmarshal([]byte(doc), &b, viaLibrary)
		if (errA == nil) != (errB == nil) {
			t.Errorf("%s: Require's decoder: %v; the library: %v", member, errA, errB)
			continue
		}
		if errA != nil {
			var ea, eb *Error
			errors.As(errA, &ea)
			errors.As(errB, &eb)
			if ea.Pointer != eb.Pointer || ea.Offset != eb.Offset || ea.Want != eb.Want || ea.Got != eb.Got || ea.Reason != eb.Reason {
				t.Errorf("%s:\n Require's decoder: %+v\n the library:       %+v", member, *ea, *eb)
			}
			continue
		}
		if a.N != b.N || a.I != b.I || (a.P == nil) != (b.P == nil) || (a.P != nil && *a.P != *b.P) || !a.At.Equal(b.At) || a.At.Location().String() != b.At.Location().String() {
			t.Errorf("%s: Require's decoder gave %+v, the library %+v", member, a, b)
		}
	}
}
