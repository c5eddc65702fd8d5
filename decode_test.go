package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
)

// The client decodes transcripts and pages of them with a fast path of its
// own (decode.go) that must give exactly what json.Unmarshal gives, or step
// aside. These tests compare the two on every case listed here, on what
// the reference server sends, and on whatever the fuzzer makes of them.

// exactTime compares timestamps by instant, zone and monotonic reading:
// cmp's default, time.Time.Equal, would miss a timestamp decoded in
// another zone.
var exactTime = cmp.Comparer(func(a, b time.Time) bool {
	return a.Equal(b) && a.String() == b.String() && a.Location().String() == b.Location().String()
})

// checkDecode runs the fast path fast and json.Unmarshal on data, each
// into a zero T, and fails t when the fast path took data (returned true)
// and json.Unmarshal refuses it or gives something else, or when the fast
// path refused data but left its target non-zero (the caller then runs
// json.Unmarshal into it). It reports whether the fast path took data.
func checkDecode[T any](t testing.TB, data []byte, fast func([]byte, *T) bool) bool {
	t.Helper()
	var got, want T
	took := fast(data, &got)
	err := json.Unmarshal(data, &want)
	if !took {
		if diff := cmp.Diff(*new(T), got, exactTime); diff != "" {
			t.Errorf("fast path refused %s but left its target non-zero (-zero +got):\n%s", clip(data), diff)
		}
		return false
	}
	if err != nil {
		t.Errorf("fast path took %s, which json.Unmarshal refuses: %v", clip(data), err)
		return true
	}
	if diff := cmp.Diff(want, got, exactTime); diff != "" {
		t.Errorf("fast path and json.Unmarshal differ on %s (-json +fast):\n%s", clip(data), diff)
	}
	return true
}

// clip quotes data for a failure message, at most 300 bytes of it.
func clip(data []byte) string {
	if len(data) > 300 {
		return fmt.Sprintf("%q... (%d bytes)", data[:300], len(data))
	}
	return fmt.Sprintf("%q", data)
}

// decodeTexts are transcript texts with what the service's encoder
// escapes (quotes, backslashes, control characters, <, >, &, U+2028 and
// U+2029) and what it replaces (invalid UTF-8), next to plain ASCII and
// multi-byte text.
var decodeTexts = []string{
	"",
	"Ada opened the meeting and went through the quarter's numbers.",
	`She said "stop" \ and left`,
	"line one\nline two\r\n\ttabbed\b\f",
	"<b>bold</b> & <i>more</i>",
	"para\u2028line\u2029end",
	"emoji 😀🎉, accents éà, 日本語のテキスト",
	"invalid \xff\xfe UTF-8 \xed\xa0\x80 (a surrogate) \xc3",
	"\x00\x01\x1f controls \x7f",
	strings.Repeat("a long line of words, ", 200),
}

// recorder is a transport that keeps the body of the last response.
type recorder struct {
	mu   sync.Mutex
	last []byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.last = b
	r.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

func (r *recorder) body() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// serverBodies returns what the reference server sends, byte for byte,
// for GET /transcripts/{id} of each of a few transcripts (one per text of
// decodeTexts) and for GET /transcripts?limit=100, a page of 100 of them.
func serverBodies(tb testing.TB) (one [][]byte, page100 []byte) {
	tb.Helper()
	s := scribetest.NewTestServer(tb)
	dev, err := s.CreateDeveloper(scribetest.UserParams{FirstName: "Ada", LastName: "Byron", EmailAddress: "ada@example.com"})
	if err != nil {
		tb.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribetest.PluginParams{Name: "Decoder", Published: true,
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	if err != nil {
		tb.Fatal(err)
	}
	key, err := s.CreateSecretKey(plugin.ID, "decode")
	if err != nil {
		tb.Fatal(err)
	}
	user, err := s.CreateUser(scribetest.UserParams{FirstName: "Grâce \"G\"", LastName: "<Hopper>", EmailAddress: "grace@example.com"})
	if err != nil {
		tb.Fatal(err)
	}
	inst, err := s.Install(plugin.ID, user.ID)
	if err != nil {
		tb.Fatal(err)
	}
	types := []string{"meeting", "phone_call", "dictation", "voice\u2028mail"}
	t0 := time.Date(2026, 11, 21, 9, 30, 0, 123456789, time.FixedZone("CET", 3600))
	var ids []int64
	for i := range 100 {
		tr, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{
			Headline: fmt.Sprintf("Call %d: \"review\" <%d>", i, i),
			Text:     decodeTexts[i%len(decodeTexts)],
			Type:     types[i%len(types)],
			Metadata: map[string]any{"n": i, "tags": []string{"crm", "q4"}, "deal": map[string]any{"id": "D-1042", "amount": 1.5e6, "won": i%2 == 0, "note": nil}, "é\n": "<&>"},
			Job:      scribe.TranscriptJob{Lines: i * 7},
			Audio:    scribe.TranscriptAudio{LengthInSeconds: 30 * i},
			// whole seconds, nanoseconds and a zone other than UTC (stored in UTC)
			CreatedOn: t0.Add(time.Duration(i) * 1500 * time.Millisecond),
		})
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	rec := &recorder{}
	c, err := s.InstallationClient(key.Key, inst.UUID, scribe.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range ids[:len(decodeTexts)] {
		if _, err := c.GetTranscript(ctx, id); err != nil {
			tb.Fatal(err)
		}
		one = append(one, rec.body())
	}
	p, err := c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 100}}).Next()
	if err != nil {
		tb.Fatal(err)
	}
	if len(p.Data) != 100 {
		tb.Fatalf("page of %d transcripts, want 100", len(p.Data))
	}
	return one, rec.body()
}

// withMember returns the JSON object obj with member (`"name":value`)
// inserted first.
func withMember(obj []byte, member string) []byte {
	return slices.Concat(obj[:1], []byte(member+","), obj[1:])
}

// decodeCase is an input and whether the fast path must take it: an input
// it refuses is still compared (it must leave its target zero), but a case
// marked fast fails if the fast path steps aside, so that the fast path
// cannot pass these tests by refusing everything.
type decodeCase struct {
	name string
	json string
	fast bool
}

// transcriptCases are the edge cases of json.Unmarshal's behaviour into a
// Transcript that the fast path reproduces (fast) or refuses.
var transcriptCases = []decodeCase{
	{"empty object", `{}`, true},
	{"whitespace everywhere", " \t\r\n{ \"id\" :\t1 ,\n\"text\"\r: \"a\" , \"user\" : { \"id\" : 2 } , \"metadata\" : { } } \n\t", true},
	{"unknown string", `{"x":"s\"\u00e9","id":1}`, true},
	{"unknown number", `{"x":-1.5e+300,"id":1}`, true},
	{"unknown huge number", `{"x":123456789012345678901234567890,"id":1}`, true},
	{"unknown literals", `{"x":true,"y":false,"z":null,"id":1}`, true},
	{"unknown array", `{"x":[1,{"a":[]},[],"s",null],"id":1}`, true},
	{"unknown object", `{"x":{"id":"not this one","y":{}},"id":1}`, true},
	{"unknown in nested", `{"user":{"x":[1],"id":2},"job":{"y":{}},"audio":{"z":"s"}}`, true},
	{"unknown key repeated", `{"x":1,"x":"two","id":1}`, true},
	{"unknown key close to a field", `{"ids":1,"i_d":2,"_id":3,"id":4}`, true},
	{"nesting 50 deep", `{"x":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}`, true},
	{"int64 bounds", `{"id":9223372036854775807,"user":{"id":-9223372036854775808},"job":{"id":0,"lines":-5}}`, true},
	{"string escapes", `{"text":"\"\\\/\b\f\n\r\t\u0041\u00e9\u20ac\u0000\u001f"}`, true},
	{"surrogate pair", `{"text":"\ud83d\ude00 \uD83D\uDE00"}`, true},
	{"lone high surrogate", `{"text":"a\ud800b"}`, true},
	{"lone low surrogate", `{"text":"a\udc00b"}`, true},
	{"reversed surrogates", `{"text":"\udc00\ud800"}`, true},
	{"high surrogate then escape", `{"text":"\ud800\u0041\ud800\n"}`, true},
	{"high surrogate twice then low", `{"text":"\ud800\ud800\udc00"}`, true},
	{"high surrogate at end", `{"text":"\ud800"}`, true},
	{"invalid UTF-8", "{\"text\":\"a\xffb\xc3(\xed\xa0\x80\xf4\x90\x80\x80z\"}", true},
	{"invalid UTF-8 and escape", "{\"text\":\"\\n\xff\"}", true},
	{"DEL and multi-byte", "{\"headline\":\"\x7f\u2028😀\"}", true},
	{"created_on with zone", `{"created_on":"2026-11-21T09:30:00.123456789+02:00","audio":{"created_on":"2026-11-21T09:30:00-07:30"}}`, true},
	{"created_on UTC", `{"created_on":"2026-11-21T09:30:00Z"}`, true},
	{"metadata empty", `{"metadata":{}}`, true},
	{"metadata values", `{"metadata":{"a" : [ 1 , 2 ] , "b":{ "c" : null } ,"c":"\u003c\n","d":-0.5e-3,"e":true,"f":null}}`, true},
	{"metadata duplicate key", `{"metadata":{"a":1,"a":2}}`, true},
	{"metadata escaped keys", "{\"metadata\":{\"\\u00e9\":1,\"a\\nb\":2,\"\\ud800\":3,\"\xff\":4,\"K\":5,\"\u212a\":6}}", true},

	{"not an object", `[]`, false},
	{"null", `null`, false},
	{"string", `"x"`, false},
	{"nothing", ``, false},
	{"whitespace only", " \n", false},
	{"truncated", `{"id":1,"text":"ab`, false},
	{"truncated after comma", `{"id":1,`, false},
	{"trailing comma", `{"id":1,}`, false},
	{"comma only", `{,}`, false},
	{"missing colon", `{"id" 1}`, false},
	{"trailing garbage", `{"id":1}x`, false},
	{"two values", `{"id":1} {}`, false},
	{"byte order mark", "\ufeff{}", false},
	{"duplicate field", `{"id":1,"id":2}`, false},
	{"duplicate nested object", `{"user":{"id":1,"first_name":"a"},"user":{"id":2}}`, false},
	{"duplicate metadata", `{"metadata":{"a":1},"metadata":{"b":2}}`, false},
	{"duplicate nested field", `{"job":{"lines":1,"lines":2}}`, false},
	{"case variant", `{"ID":1}`, false},
	{"case variant text", `{"Text":"x"}`, false},
	{"case variant nested", `{"user":{"First_Name":"x"}}`, false},
	{"long s", `{"user":{"la` + "\u017f" + `t_name":"x"}}`, false},
	{"long s escaped", `{"user":{"la\u017ft_name":"x"}}`, false},
	{"Kelvin sign in unknown key", "{\"\u212aey\":1}", false},
	{"escaped field name", `{"\u0069d":1}`, false},
	{"null id", `{"id":null}`, false},
	{"null headline", `{"headline":null}`, false},
	{"null metadata", `{"metadata":null}`, false},
	{"null user", `{"user":null}`, false},
	{"null created_on", `{"created_on":null}`, false},
	{"float id", `{"id":1.0}`, false},
	{"exponent id", `{"id":1e3}`, false},
	{"exponent lines", `{"job":{"lines":1E2}}`, false},
	{"minus zero", `{"id":-0}`, false},
	{"int64 overflow", `{"id":9223372036854775808}`, false},
	{"int64 underflow", `{"id":-9223372036854775809}`, false},
	{"20 digits", `{"id":12345678901234567890}`, false},
	{"leading zero", `{"id":012}`, false},
	{"plus sign", `{"id":+1}`, false},
	{"lone minus", `{"id":-}`, false},
	{"quoted number", `{"id":"1"}`, false},
	{"string as number", `{"text":1}`, false},
	{"array as object", `{"user":[]}`, false},
	{"metadata array", `{"metadata":[]}`, false},
	{"metadata missing value", `{"metadata":{"a":}}`, false},
	{"metadata trailing comma", `{"metadata":{"a":1,}}`, false},
	{"raw tab in string", "{\"text\":\"a\tb\"}", false},
	{"raw newline in unknown", "{\"x\":\"a\nb\"}", false},
	{"single-quote escape", `{"text":"\'"}`, false},
	{"short unicode escape", `{"text":"\u12"}`, false},
	{"bad escape after surrogate", `{"text":"\ud800\uzzzz"}`, false},
	{"invalid date", `{"created_on":"2026-13-01T00:00:00Z"}`, false},
	{"created_on number", `{"created_on":1700000000}`, false},
	{"created_on escaped", `{"created_on":"\u0032026-11-21T09:30:00Z"}`, false},
	{"created_on object", `{"created_on":{}}`, false},
	{"bad literal", `{"x":tru}`, false},
	{"bad number", `{"x":1.}`, false},
	{"bad exponent", `{"x":1e}`, false},
	{"nesting 100 deep", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false},
	{"nesting unclosed", `{"x":` + strings.Repeat("[", 30), false},
}

// listCases are the edge cases of the page envelope.
var listCases = []decodeCase{
	{"empty page", `{"has_more":false,"total_count":0,"data":[]}`, true},
	{"empty object", `{}`, true},
	{"empty item", `{"data":[{}]}`, true},
	{"whitespace", " { \"data\" : [ { } , {\"id\":2} ] , \"has_more\" : true , \"total_count\" : 2 } \n", true},
	{"unknown member", `{"next":"x","has_more":true,"data":[],"links":{"a":[1]}}`, true},

	{"null data", `{"data":null}`, false},
	{"null has_more", `{"has_more":null}`, false},
	{"number has_more", `{"has_more":1}`, false},
	{"string has_more", `{"has_more":"true"}`, false},
	{"float total", `{"total_count":1.5}`, false},
	{"case variant", `{"Data":[]}`, false},
	{"duplicate data", `{"data":[],"data":[]}`, false},
	{"trailing comma in data", `{"data":[{},]}`, false},
	{"comma only in data", `{"data":[,]}`, false},
	{"null item", `{"data":[null]}`, false},
	{"number item", `{"data":[1]}`, false},
	{"truncated", `{"data":[{}]`, false},
	{"bad literal", `{"has_more":tru}`, false},
}

// asList wraps a transcript in a page.
func asList(transcript string) string {
	return `{"has_more":true,"total_count":1,"data":[` + transcript + `]}`
}

// TestDecodeTranscriptCases protects that the fast path gives exactly
// json.Unmarshal's result for every edge case above, takes the ones marked
// fast, and leaves the rest (with a zero target) to json.Unmarshal.
func TestDecodeTranscriptCases(t *testing.T) {
	t.Parallel()
	for _, c := range transcriptCases {
		if took := checkDecode(t, []byte(c.json), scribe.DecodeTranscript); took != c.fast {
			t.Errorf("%s: fast path took it: %v, want %v", c.name, took, c.fast)
		}
	}
}

// TestDecodeTranscriptListCases is TestDecodeTranscriptCases for a page:
// its own edge cases, and each transcript case as the item of a page.
func TestDecodeTranscriptListCases(t *testing.T) {
	t.Parallel()
	cases := slices.Clone(listCases)
	for _, c := range transcriptCases {
		if strings.TrimSpace(c.json) == "" {
			continue // as an item, an empty array: the "empty page" case
		}
		cases = append(cases, decodeCase{"item: " + c.name, asList(c.json), c.fast})
	}
	for _, c := range cases {
		if took := checkDecode(t, []byte(c.json), scribe.DecodeTranscriptList); took != c.fast {
			t.Errorf("%s: fast path took it: %v, want %v", c.name, took, c.fast)
		}
	}
}

// TestDecodeLargeText protects a long text, such as a recording of hours
// (900 KB here, escapes included), on the fast path, and its truncations
// refused.
func TestDecodeLargeText(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("Line \"quoted\" <tag> & more \u2028 é😀\n", 900_000/45)
	b, err := json.Marshal(scribe.Transcript{ID: 1, Text: text, Metadata: map[string]json.RawMessage{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 900_000 {
		t.Fatalf("body of %d bytes, want at least 900 KB", len(b))
	}
	if !checkDecode(t, b, scribe.DecodeTranscript) {
		t.Error("fast path refused a 900 KB transcript")
	}
	for _, n := range []int{len(b) - 1, len(b) - 2, len(b) / 2} {
		if checkDecode(t, b[:n], scribe.DecodeTranscript) {
			t.Errorf("fast path took the body cut to %d bytes", n)
		}
	}
	// An unclosed string of 900 KB: no read past the end.
	if checkDecode(t, []byte(`{"text":"`+strings.Repeat("\\n\xff", 300_000)), scribe.DecodeTranscript) {
		t.Error("fast path took an unclosed string")
	}
}

// TestDecodeFastPathTaken protects the fast path for what the reference
// server actually sends (each transcript alone and a page of 100, with
// escapes, multi-byte text, invalid UTF-8 replaced, nested metadata), and
// for the same with a member the client does not know, as a newer service
// may add: it fails if a change sends the real responses to json.Unmarshal.
func TestDecodeFastPathTaken(t *testing.T) {
	t.Parallel()
	one, page := serverBodies(t)
	for i, b := range one {
		if !checkDecode(t, b, scribe.DecodeTranscript) {
			t.Errorf("transcript %d: the fast path refused the server's encoding %s", i, clip(b))
		}
		extra := withMember(b, `"sentiment":{"score":0.5,"labels":["calm",null],"model":"v2"}`)
		if !checkDecode(t, extra, scribe.DecodeTranscript) {
			t.Errorf("transcript %d with an unknown member: the fast path refused it", i)
		}
	}
	if !checkDecode(t, page, scribe.DecodeTranscriptList) {
		t.Errorf("the fast path refused the server's page of 100 %s", clip(page))
	}
	if !checkDecode(t, withMember(page, `"next_cursor":"abc"`), scribe.DecodeTranscriptList) {
		t.Error("the fast path refused the page with an unknown member")
	}
}

// TestClientDecodesOnFastPath protects the hook in the client: GET
// /transcripts/{id} and a page of GET /transcripts must decode through the
// fast path. The results are the same either way, so the test counts
// allocations (deterministic, unlike time): what decoding a transcript adds
// to a call, against a call whose body is {}, must be fewer than what it
// adds to json.Unmarshal; it is as many if the call goes to json.Unmarshal.
func TestClientDecodesOnFastPath(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		body, empty string
		call        func(*scribe.Client) error
		into        func() any
	}{
		{"GetTranscript", benchTranscriptJSON(42), `{}`,
			func(c *scribe.Client) error { _, err := c.GetTranscript(ctx, 42); return err },
			func() any { return new(scribe.Transcript) }},
		{"ListTranscripts", benchPageJSON(20), `{"data":[]}`,
			func(c *scribe.Client) error { _, err := c.ListTranscripts(ctx, nil).Next(); return err },
			func() any { return new(wire.List[scribe.Transcript]) }},
	} {
		allocs := func(body string) float64 {
			cl, err := scribe.NewClient(testBase, scribe.WithHTTPClient(&http.Client{Transport: memTransport{[]byte(body)}}), scribe.WithDeveloperKey(testDevKey))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.call(cl); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return testing.AllocsPerRun(20, func() { c.call(cl) })
		}
		jsonAllocs := func(body string) float64 {
			return testing.AllocsPerRun(20, func() {
				if err := json.Unmarshal([]byte(body), c.into()); err != nil {
					t.Fatal(err)
				}
			})
		}
		sdk := allocs(c.body) - allocs(c.empty)
		std := jsonAllocs(c.body) - jsonAllocs(c.empty)
		if sdk >= std {
			t.Errorf("%s: decoding the body adds %.0f allocations to the call, json.Unmarshal %.0f: the call does not take the fast path", c.name, sdk, std)
		}
	}
}

// TestDecodeKnowsEveryField protects against a field added to Transcript,
// its parts or the list envelope that the fast path would skip as unknown:
// the names it reads must be the json names of the structs' fields.
func TestDecodeKnowsEveryField(t *testing.T) {
	t.Parallel()
	types := map[string]reflect.Type{
		"Transcript":      reflect.TypeFor[scribe.Transcript](),
		"TranscriptUser":  reflect.TypeFor[scribe.TranscriptUser](),
		"TranscriptJob":   reflect.TypeFor[scribe.TranscriptJob](),
		"TranscriptAudio": reflect.TypeFor[scribe.TranscriptAudio](),
		"List":            reflect.TypeFor[wire.List[scribe.Transcript]](),
	}
	if len(types) != len(scribe.DecodeNames) {
		t.Fatalf("the fast path reads %d types, the test knows %d", len(scribe.DecodeNames), len(types))
	}
	for name, typ := range types {
		var want []string
		for f := range typ.Fields() {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || !f.IsExported() || tag == "" || tag == "-" {
				t.Errorf("%s.%s: a field without a plain json name; teach decode.go about it", name, f.Name)
				continue
			}
			want = append(want, tag)
		}
		if diff := cmp.Diff(want, scribe.DecodeNames[name]); diff != "" {
			t.Errorf("%s: the fast path's names differ from the struct's (-struct +fast path):\n%s", name, diff)
		}
	}
}

// TestDecodeErrorMalformedTranscript protects that a malformed transcript
// or page still fails as json.Unmarshal fails: a *DecodeError whose Err is
// encoding/json's own error, with its message and type.
func TestDecodeErrorMalformedTranscript(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"id":7,"text":"cut`,
		`{"id":"7"}`,
		`{"id":7,"created_on":"yesterday"}`,
		`{"id":7} trailing`,
		`{"id":1.5}`,
	} {
		f := newFake(t, ok(body))
		_, err := f.client().GetTranscript(context.Background(), 7)
		checkJSONError(t, "GET /transcripts/7", err, []byte(body), new(scribe.Transcript))
	}
	for _, body := range []string{
		`{"has_more":false,"data":[{"id":7,"text":"cut`,
		`{"has_more":"no","data":[]}`,
		`{"data":[{"id":7,"job":{"lines":1e400}}]}`,
	} {
		f := newFake(t, ok(body))
		_, err := f.client().ListTranscripts(context.Background(), nil).Next()
		checkJSONError(t, "GET /transcripts", err, []byte(body), new(wire.List[scribe.Transcript]))
	}
}

// checkJSONError fails t unless err is a *DecodeError carrying exactly the
// error json.Unmarshal gives for body into into.
func checkJSONError(t *testing.T, op string, err error, body []byte, into any) {
	t.Helper()
	want := json.Unmarshal(body, into)
	if want == nil {
		t.Fatalf("%s %q: json.Unmarshal accepts it; the case is wrong", op, body)
	}
	var de *scribe.DecodeError
	if !errors.As(err, &de) {
		t.Errorf("%s %q: err = %v (%T), want *scribe.DecodeError", op, body, err, err)
		return
	}
	if reflect.TypeOf(de.Err) != reflect.TypeOf(want) || de.Err.Error() != want.Error() {
		t.Errorf("%s %q: DecodeError.Err = %v (%T), want json.Unmarshal's %v (%T)", op, body, de.Err, de.Err, want, want)
	}
}

// FuzzDecodeTranscript compares the fast path with json.Unmarshal on any
// input: when the fast path takes it, the results must be equal.
//
//	go test -run '^$' -fuzz 'FuzzDecodeTranscript$' -fuzztime 2m .
func FuzzDecodeTranscript(f *testing.F) {
	one, _ := serverBodies(f)
	for _, b := range one {
		f.Add(b)
		f.Add(withMember(b, `"sentiment":{"score":0.5,"labels":["calm",null]}`))
		var indented bytes.Buffer
		if err := json.Indent(&indented, b, "\r", "\t "); err != nil {
			f.Fatal(err)
		}
		f.Add(indented.Bytes())
	}
	for _, c := range transcriptCases {
		f.Add([]byte(c.json))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data, scribe.DecodeTranscript)
	})
}

// FuzzDecodeTranscriptList is FuzzDecodeTranscript for a page.
//
//	go test -run '^$' -fuzz 'FuzzDecodeTranscriptList$' -fuzztime 2m .
func FuzzDecodeTranscriptList(f *testing.F) {
	one, page := serverBodies(f)
	f.Add(page)
	f.Add(withMember(page, `"next_cursor":"abc"`))
	for _, b := range one[:3] {
		f.Add([]byte(asList(string(b))))
	}
	for _, c := range listCases {
		f.Add([]byte(c.json))
	}
	for _, c := range transcriptCases {
		f.Add([]byte(asList(c.json)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data, scribe.DecodeTranscriptList)
	})
}

// BenchmarkDecodeTranscript decodes the transcript of the client's
// benchmarks (benchTranscriptJSON) with json.Unmarshal and with the fast
// path, in the same run; their ns/op give the speed-up.
//
//	go test -run '^$' -bench 'Decode' -benchmem -count 5 .
func BenchmarkDecodeTranscript(b *testing.B) {
	benchDecode(b, []byte(benchTranscriptJSON(42)), scribe.DecodeTranscript)
}

// BenchmarkDecodeTranscriptPage100 is BenchmarkDecodeTranscript for the
// page of 100 of BenchmarkListPage100.
func BenchmarkDecodeTranscriptPage100(b *testing.B) {
	benchDecode(b, []byte(benchPageJSON(100)), scribe.DecodeTranscriptList)
}

// BenchmarkDecodeTranscriptEscaped is BenchmarkDecodeTranscript for the
// reference server's encoding of a transcript whose texts have escapes
// (quotes, newlines, <, >, &, U+2028) and multi-byte characters.
func BenchmarkDecodeTranscriptEscaped(b *testing.B) {
	one, _ := serverBodies(b)
	benchDecode(b, one[5], scribe.DecodeTranscript) // "para\u2028line\u2029end" and a quoted headline
}

// benchDecode runs json.Unmarshal (json) and the fast path (fast) on data
// as sequential sub-benchmarks (allocations, benchstat), and both in one
// loop (ratio), alternating, which reports fast/json, the ratio of their
// total times: on a shared machine the sequential pair sees different
// stretches of load.
func benchDecode[T any](b *testing.B, data []byte, fast func([]byte, *T) bool) {
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v T
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v T
			if !fast(data, &v) {
				b.Fatal("fast path refused the benchmark's body")
			}
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var took [2]time.Duration // json, fast
		runs := [2]func(){
			func() {
				var v T
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				var v T
				if !fast(data, &v) {
					b.Fatal("fast path refused the benchmark's body")
				}
			},
		}
		i := 0
		for b.Loop() {
			for k := range 2 {
				j := (i + k) % 2 // alternate which goes first
				t0 := time.Now()
				runs[j]()
				took[j] += time.Since(t0)
			}
			i++
		}
		b.ReportMetric(float64(took[1])/float64(took[0]), "fast/json")
	})
}
