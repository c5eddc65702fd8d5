package scribetest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// streamDoc is a fixture document of n transcripts, larger than the
// loader's 64 KiB read buffer once n passes a few hundred; extra goes into
// the last transcript.
func streamDoc(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"users": [{"id": 1}], "transcripts": [`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",\n")
		}
		more := ""
		if i == n {
			more = extra
		}
		fmt.Fprintf(&b, `{"id": %d, "user_id": 1, "headline": "h\"%d\\", "text": "%s", "metadata": {"k": [1, {"x": "}"}]}, "job": {"lines": %d}%s}`,
			i, i, strings.Repeat("é", i%50), i%7, more)
	}
	b.WriteString("]}")
	return b.String()
}

// TestFixtureStreamBoundaries: the loader reads the document in chunks;
// whatever the chunks (one byte at a time, or the reader's own sizes), it
// loads the same resources, and finds an error in the last resource with
// the same message.
func TestFixtureStreamBoundaries(t *testing.T) {
	t.Parallel()
	doc := streamDoc(3000, "")
	if len(doc) < 3*64<<10 {
		t.Fatalf("the document is %d bytes, want several read buffers", len(doc))
	}
	clock := scribetest.NewFakeClock(t0)
	whole := scribetest.NewTestServer(t, scribetest.WithClock(clock))
	want, err := whole.LoadFixtures(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	bytewise := scribetest.NewTestServer(t, scribetest.WithClock(clock))
	got, err := bytewise.LoadFixtures(iotest.OneByteReader(strings.NewReader(doc)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Transcripts) != 3000 || got.Transcripts[2999].Headline != `h"3000\` {
		t.Fatalf("loaded %d transcripts, the last with headline %q", len(got.Transcripts), got.Transcripts[len(got.Transcripts)-1].Headline)
	}
	if diff := cmp.Diff(want.Transcripts, got.Transcripts); diff != "" {
		t.Errorf("byte by byte, the transcripts differ (-whole +bytewise):\n%s", diff)
	}

	for _, tt := range []struct{ extra, want string }{
		{`, "jobb": 1`, "fixtures: transcripts[2999].jobb: unknown member"},
		{`, "audio": {"length_in_seconds": 1, "format": "mp3"}`, "fixtures: transcripts[2999].audio.format: unknown member"},
		{`, "type": null`, "fixtures: transcripts[2999].type: must be a string, not null"},
		{`, "type": 5`, "fixtures: transcripts[2999].type: must be a string, got number"},
	} {
		s := scribetest.NewTestServer(t)
		_, err := s.LoadFixtures(iotest.HalfReader(strings.NewReader(streamDoc(3000, tt.extra))))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("with %s: error %v, want one beginning %q", tt.extra, err, tt.want)
		}
		if n := len(s.Users()); n != 0 {
			t.Errorf("with %s: a refused document left %d users", tt.extra, n)
		}
	}
}

// TestFixtureMalformedDocuments: a document that is not JSON, or not the
// fixture document's shape, is refused with what is wrong and where.
func TestFixtureMalformedDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, want string }{
		{``, "fixtures: not valid JSON: the document is empty"},
		{`   `, "fixtures: not valid JSON: the document is empty"},
		{`[]`, "fixtures: the document must be a JSON object"},
		{`{"users": [`, "fixtures: not valid JSON in users: the document ends before its value does (byte 11)"},
		{`{"users": [{"id": 1}`, "fixtures: not valid JSON in users: the document ends before its value does (byte 20)"},
		{`{"users": [{"id": 1}] `, "fixtures: not valid JSON: the document ends before its value does (byte 22)"},
		{`{"users": [{"id": 1} {"id": 2}]}`, `fixtures: not valid JSON in users: malformed JSON (byte 21)`},
		{`{"users": [{"id": 1}]} {}`, "fixtures: not valid JSON: unexpected data after the document"},
		{`{"users": [{"id": 1,}]}`, "fixtures: not valid JSON in users[0]: malformed JSON (byte 20)"},
		{`{"users": [{"id": 01}]}`, "fixtures: not valid JSON in users[0]: malformed JSON (byte 19)"},
		{`{"users": [{"id": tru}]}`, "fixtures: not valid JSON in users[0].id: malformed JSON (byte 21)"},
		{`{"users": {}}`, "fixtures: users: must be an array"},
		{`{"users": [], "users": []}`, "fixtures: users: appears twice"},
		{`{"users" [] }`, `fixtures: not valid JSON in users: malformed JSON (byte 9)`},
		{`{"us\u0065rs": [{"id": 5}]}`, ""},
		{`{"users": [{"first_n\u0061me": "A", "firstname": "B"}]}`, "fixtures: users[0].firstname: unknown member"},
		{`{"users": [5]}`, "fixtures: users[0]: must be an object, got number"},
	}
	for _, tt := range tests {
		s := scribetest.NewTestServer(t)
		_, err := s.LoadFixtures(strings.NewReader(tt.doc))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want it loaded", tt.doc, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one beginning %q", tt.doc, err, tt.want)
		}
	}
	s := scribetest.NewTestServer(t)
	broken := errors.New("disk on fire")
	_, err := s.LoadFixtures(iotest.TimeoutReader(iotest.ErrReader(broken)))
	if !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "fixtures: reading: ") {
		t.Errorf("a failing reader: %v, want fixtures: reading: wrapping its error", err)
	}
}

// TestFixtureTranscriptsMetadataPerElement: the loader decodes every
// transcript into one reused value; each transcript gets its own metadata
// and nothing of the one before it (an omitted metadata is empty),
// on the server and in what LoadFixtures returns.
func TestFixtureTranscriptsMetadataPerElement(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{"users": [{"id": 3}], "transcripts": [
		{"user_id": 3, "metadata": {"a": 1, "z": [1, 2]}},
		{"user_id": 3},
		{"user_id": 3, "metadata": {"b": "<&>"}},
		{"user_id": 3, "metadata": {"c": {"d": null}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":1,"z":[1,2]}`, `{}`, `{"b":"\u003c\u0026\u003e"}`, `{"c":{"d":null}}`}
	stored := s.Transcripts(3)
	if len(fx.Transcripts) != len(want) || len(stored) != len(want) {
		t.Fatalf("loaded %d transcripts, the server holds %d, want %d", len(fx.Transcripts), len(stored), len(want))
	}
	for i, tr := range fx.Transcripts {
		for _, got := range []scribe.Transcript{tr, stored[i]} {
			b, err := json.Marshal(got.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != want[i] {
				t.Errorf("transcript %d: metadata %s, want %s", i, b, want[i])
			}
		}
	}
}

// TestFixtureTranscriptsAreWhatWasLoaded: Fixtures.Transcripts are the
// transcripts as they were loaded; updating and deleting transcripts
// afterwards (enough to make the server compact its store) leaves them as
// they were.
func TestFixtureTranscriptsAreWhatWasLoaded(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{"users": [{"id": 3, "first_name": "Ada"}], "transcripts": [
		{"id": 10, "user_id": 3, "headline": "first"}, {"id": 11, "user_id": 3, "headline": "second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateTranscript(10, func(tr *scribe.Transcript) { tr.Headline = "changed" }); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTranscript(11); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	for range 40 { // 40 MiB replaced: past the store's compaction threshold
		if _, err := s.UpdateTranscript(10, func(tr *scribe.Transcript) { tr.Text = big + tr.Text[:min(len(tr.Text), 1)] }); err != nil {
			t.Fatal(err)
		}
	}
	first, second := fx.Transcripts[0], fx.Transcripts[1]
	if first.ID != 10 || first.Headline != "first" || first.User.FirstName != "Ada" || second.ID != 11 || second.Headline != "second" {
		t.Errorf("Fixtures.Transcripts after changes on the server: %+v, %+v; want them as loaded", first, second)
	}
}

// Fixtures.Transcripts are the transcripts of a load, with the owner's
// names filled in.
func ExampleServer_LoadFixtures_transcripts() {
	s, err := scribetest.NewUnstartedServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	fx, err := s.LoadFixtures(strings.NewReader(`{
	  "users": [{"id": 8, "first_name": "Grace", "last_name": "Hopper"}],
	  "transcripts": [
	    {"id": 1, "user_id": 8, "headline": "Weekly sync", "metadata": {"room": "B"}},
	    {"user_id": 8, "headline": "Follow-up"}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, tr := range fx.Transcripts {
		fmt.Println(i, tr.ID, tr.Headline, tr.User.FirstName, string(tr.Metadata["room"]))
	}
	// Output:
	// 0 1 Weekly sync Grace "B"
	// 1 2 Follow-up Grace
}
