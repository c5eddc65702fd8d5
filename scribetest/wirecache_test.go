package scribetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/webhook"
)

// get answers GET target with the environment's installation JWT through
// the server's handler.
func (e *benchEnv) get(t *testing.T, target string) (int, []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Authorization", e.inst)
	w := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(w, r)
	if w.Code == http.StatusOK && w.Header().Get("Content-Length") != fmt.Sprint(w.Body.Len()) {
		t.Errorf("GET %s: Content-Length %q for a body of %d bytes", target, w.Header().Get("Content-Length"), w.Body.Len())
	}
	return w.Code, w.Body.Bytes()
}

func marshalLine(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestTranscriptWireBytes: GET /transcripts/{id} and the pages of GET
// /transcripts, assembled from the stored encodings, are byte for byte what
// encoding/json makes of the transcripts as they were created or updated
// (the list envelope of wire.List included), whatever the text holds: HTML,
// U+2028, invalid UTF-8, nested metadata with spaces.
func TestTranscriptWireBytes(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(0)
	if err != nil {
		t.Fatal(err)
	}
	params := []TranscriptParams{
		{Headline: "<b>Q&A</b>", Text: "line\u2028sep \xff bad", Type: "meeting", Metadata: map[string]any{"n": 1, "html": "<x>", "nested": map[string]any{"a": []int{1, 2}}}},
		{Headline: "Ünïcode ✓", Text: "", Type: "dictation", CreatedOn: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("CET", 3600))},
		{Headline: "third", Text: strings.Repeat("x", 5000), Type: "phone_call", Job: scribe.TranscriptJob{ID: 77, Lines: 3}},
	}
	var want []scribe.Transcript
	for _, p := range params {
		tr, err := e.s.CreateTranscript(e.user, p)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, tr)
	}
	upd, err := e.s.UpdateTranscript(want[0].ID, func(tr *scribe.Transcript) {
		tr.Headline = "updated \"quoted\""
		tr.Metadata["raw"] = json.RawMessage(`{ "spaced" : [ 1, 2 ] }`)
	})
	if err != nil {
		t.Fatal(err)
	}
	want[0] = upd

	for _, tr := range want {
		code, body := e.get(t, fmt.Sprintf("/transcripts/%d", tr.ID))
		if wantBody := marshalLine(t, tr); code != 200 || !bytes.Equal(body, wantBody) {
			t.Errorf("GET /transcripts/%d: %d\n%s\nwant\n%s", tr.ID, code, body, wantBody)
		}
	}
	pages := []struct {
		query string
		list  wire.List[scribe.Transcript]
	}{
		{"", wire.List[scribe.Transcript]{TotalCount: 3, Data: want}},
		{"?limit=2", wire.List[scribe.Transcript]{HasMore: true, TotalCount: 3, Data: want[:2]}},
		{"?limit=1&after_id=1", wire.List[scribe.Transcript]{HasMore: true, TotalCount: 3, Data: want[1:2]}},
		{"?after_id=3", wire.List[scribe.Transcript]{TotalCount: 3, Data: []scribe.Transcript{}}},
	}
	for _, p := range pages {
		code, body := e.get(t, "/transcripts"+p.query)
		if wantBody := marshalLine(t, p.list); code != 200 || !bytes.Equal(body, wantBody) {
			t.Errorf("GET /transcripts%s: %d\n%s\nwant\n%s", p.query, code, body, wantBody)
		}
	}
	// A user without transcripts gets the empty list, not null.
	other, err := e.s.CreateUser(UserParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(e.s.st.appendTranscriptPage(nil, other.ID, 0, 20)), "{\"has_more\":false,\"total_count\":0,\"data\":[]}\n"; got != want {
		t.Errorf("empty page = %q, want %q", got, want)
	}
	// The Go reads decode the same bytes.
	if got := e.s.Transcripts(e.user); len(got) != 3 || got[0].Headline != upd.Headline || string(got[0].Metadata["raw"]) != `{"spaced":[1,2]}` {
		t.Errorf("Transcripts = %+v", got)
	}
}

// TestTranscriptEncodeRefused: a transcript encoding/json cannot encode is
// refused when it is created or updated, with the reason, and nothing
// changes: before, it was stored and every GET of it failed with a 500.
func TestTranscriptEncodeRefused(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.s.CreateTranscript(e.user, TranscriptParams{Headline: "far future", CreatedOn: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err == nil || !strings.Contains(err.Error(), "cannot be encoded as JSON") || !strings.Contains(err.Error(), "year") {
		t.Fatalf("CreateTranscript with year 10000: err = %v, want a refusal naming the year", err)
	}
	if got := e.s.Transcripts(e.user); len(got) != 0 {
		t.Fatalf("a refused transcript was stored: %+v", got)
	}
	tr, err := e.s.CreateTranscript(e.user, TranscriptParams{Headline: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.ID != 1 || tr.Job.ID != 1 || tr.Audio.ID != 1 {
		t.Errorf("after a refusal, ids %d/%d/%d, want 1/1/1 (the refusal took none)", tr.ID, tr.Job.ID, tr.Audio.ID)
	}
	_, before := e.get(t, "/transcripts/1")
	_, err = e.s.UpdateTranscript(tr.ID, func(tr *scribe.Transcript) {
		tr.Headline = "changed"
		tr.Metadata["bad"] = json.RawMessage(`{`)
	})
	if err == nil || !strings.Contains(err.Error(), "cannot be encoded as JSON") {
		t.Fatalf("UpdateTranscript with invalid metadata: err = %v, want a refusal", err)
	}
	if code, after := e.get(t, "/transcripts/1"); code != 200 || !bytes.Equal(before, after) {
		t.Errorf("after a refused update: %d %s, want the transcript unchanged: %s", code, after, before)
	}
}

// TestArenaCompaction: once replaced encodings outweigh the live ones (and
// pass arenaCompactMin), the arena is rebuilt from the live ones; answers
// stay right, and bytes handed out before stay as they were.
func TestArenaCompaction(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(3)
	if err != nil {
		t.Fatal(err)
	}
	e.s.st.mu.RLock()
	handedOut := e.s.st.tjson.get(e.s.st.transcripts.rows.at(2).wire)
	e.s.st.mu.RUnlock()
	kept := bytes.Clone(handedOut)

	big := strings.Repeat("y", 1<<20)
	rounds := arenaCompactMin/len(big) + 3
	for i := range rounds {
		if _, err := e.s.UpdateTranscript(2, func(tr *scribe.Transcript) { tr.Text = fmt.Sprint(i) + big }); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.s.DeleteTranscript(3); err != nil {
		t.Fatal(err)
	}
	st := e.s.st
	st.mu.RLock()
	live, dead, held := st.tjson.live, st.tjson.dead, 0
	for _, c := range st.tjson.chunks {
		held += cap(c)
	}
	st.mu.RUnlock()
	if dead >= arenaCompactMin || live > 2<<20 || held > 8<<20 {
		t.Errorf("after %d updates of 1 MiB: live %d, dead %d, %d bytes held in chunks; want a compacted arena", rounds, live, dead, held)
	}
	if !bytes.Equal(handedOut, kept) {
		t.Error("bytes handed out before the compaction changed")
	}
	got := e.s.Transcripts(e.user)
	if len(got) != 2 || got[0].ID != 1 || got[1].ID != 2 || got[1].Text != fmt.Sprint(rounds-1)+big {
		t.Fatalf("after compaction: %d transcripts", len(got))
	}
	if code, b := e.get(t, "/transcripts/1"); code != 200 || !bytes.Contains(b, []byte(`"headline":"Weekly sync #1"`)) {
		t.Errorf("GET /transcripts/1 after compaction: %d %.100s", code, b)
	}
	if code, _ := e.get(t, "/transcripts/3"); code != 404 {
		t.Errorf("GET of a deleted transcript: %d, want 404", code)
	}
}

// TestConcurrentAnswersIntact: answers assembled in pooled buffers are not
// mixed up while many requests run at once and transcripts change (run
// with -race): every page holds exactly the ids it asked for, every body is
// one JSON value.
func TestConcurrentAnswersIntact(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(300)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := e.s.UpdateTranscript(int64(i%300+1), func(tr *scribe.Transcript) { tr.Headline = fmt.Sprint("h", i) }); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var readers sync.WaitGroup
	for g := range 8 {
		readers.Go(func() {
			for i := range 40 {
				after := (g*37 + i*11) % 300
				code, body := e.get(t, fmt.Sprintf("/transcripts?limit=7&after_id=%d", after))
				var page wire.List[scribe.Transcript]
				if err := json.Unmarshal(body, &page); code != 200 || err != nil {
					t.Errorf("page after %d: %d %v: %.200s", after, code, err, body)
					return
				}
				for k, tr := range page.Data {
					if tr.ID != int64(after+1+k) {
						t.Errorf("page after %d: item %d has id %d", after, k, tr.ID)
					}
				}
				id := after + 1
				code, body = e.get(t, fmt.Sprintf("/transcripts/%d", id))
				var one scribe.Transcript
				if err := json.Unmarshal(body, &one); code != 200 || err != nil || one.ID != int64(id) {
					t.Errorf("GET /transcripts/%d: %d %v id %d", id, code, err, one.ID)
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	wg.Wait()
}

// TestTranscriptPagesFollowChanges: the per-owner positions of the wire
// forms stay aligned with the id index whatever order ids arrive in and
// whatever is updated or deleted: every page equals encoding/json of the
// transcripts in id order, for each of two users.
func TestTranscriptPagesFollowChanges(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(0)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.s.CreateUser(UserParams{FirstName: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]scribe.Transcript{}
	for i, id := range []int64{50, 10, 30, 20, 60, 40, 5} {
		user := e.user
		if i%3 == 2 {
			user = other.ID
		}
		tr, err := e.s.CreateTranscript(user, TranscriptParams{ID: id, Headline: fmt.Sprint("t", id)})
		if err != nil {
			t.Fatal(err)
		}
		want[id] = tr
	}
	for _, id := range []int64{30, 5} {
		if err := e.s.DeleteTranscript(id); err != nil {
			t.Fatal(err)
		}
		delete(want, id)
	}
	for _, id := range []int64{10, 60, 40} {
		tr, err := e.s.UpdateTranscript(id, func(tr *scribe.Transcript) { tr.Headline += " changed" })
		if err != nil {
			t.Fatal(err)
		}
		want[id] = tr
	}
	for _, user := range []int64{e.user, other.ID} {
		var mine []scribe.Transcript
		for _, id := range []int64{5, 10, 20, 30, 40, 50, 60} {
			if tr, ok := want[id]; ok && tr.User.ID == user {
				mine = append(mine, tr)
			}
		}
		for limit := 1; limit <= len(mine)+1; limit++ {
			for start := 0; start <= len(mine); start++ {
				after := int64(0)
				if start > 0 {
					after = mine[start-1].ID
				}
				end := min(start+limit, len(mine))
				page := wire.List[scribe.Transcript]{HasMore: end < len(mine), TotalCount: len(mine), Data: append([]scribe.Transcript{}, mine[start:end]...)}
				got := e.s.st.appendTranscriptPage(nil, user, after, limit)
				if wantBody := marshalLine(t, page); !bytes.Equal(got, wantBody) {
					t.Errorf("user %d, limit %d after %d:\n%s\nwant\n%s", user, limit, after, got, wantBody)
				}
			}
		}
	}
}

// TestSecretsOnTheWire: the answers that carry a secret are encoded from
// the server's wire structs, with the material, not scribe.Secret's
// redacted form: a secret key from POST /plugins/{id}/secret_keys (and its
// replay under the same Idempotency-Key) mints a JWT the server accepts,
// and GET /plugins/{id}/webhooks lists a signing secret that parses.
func TestSecretsOnTheWire(t *testing.T) {
	t.Parallel()
	e, err := newBenchEnv(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateWebhook(e.plugin, "http://127.0.0.1:9/hook"); err != nil {
		t.Fatal(err)
	}
	devDo := func(method, target, body, idemKey string) (int, []byte) {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Authorization", e.dev)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if idemKey != "" {
			r.Header.Set("Idempotency-Key", idemKey)
		}
		w := httptest.NewRecorder()
		e.s.Handler().ServeHTTP(w, r)
		return w.Code, w.Body.Bytes()
	}
	var values []string
	for range 2 { // the second is the replay
		code, body := devDo(http.MethodPost, fmt.Sprintf("/plugins/%d/secret_keys", e.plugin), `{"description":"wire"}`, "k1")
		var k struct{ Value string }
		if err := json.Unmarshal(body, &k); code/100 != 2 || err != nil {
			t.Fatalf("POST secret_keys: %d %v %s", code, err, body)
		}
		values = append(values, k.Value)
	}
	if values[0] != values[1] {
		t.Errorf("the replay answered another key")
	}
	key, err := auth.ParseSecretKey(values[0])
	if err != nil {
		t.Fatalf("the secret key on the wire does not parse (redacted?): %v", err)
	}
	uuid := e.s.Installations(e.plugin)[0].UUID
	tok, err := auth.Mint(key, uuid, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, p := e.s.authenticateJWT(tok); p != nil {
		t.Errorf("a JWT signed with the key from the wire is refused: %v", p)
	}

	code, body := devDo(http.MethodGet, fmt.Sprintf("/plugins/%d/webhooks", e.plugin), "", "")
	var hooks wire.List[struct {
		SigningSecret string `json:"signing_secret"`
	}]
	if err := json.Unmarshal(body, &hooks); code != 200 || err != nil || len(hooks.Data) != 1 {
		t.Fatalf("GET webhooks: %d %v %s", code, err, body)
	}
	if _, err := webhook.ParseSecret(hooks.Data[0].SigningSecret); err != nil {
		t.Errorf("the signing secret on the wire does not parse (redacted?): %v", err)
	}
}

// transcriptSamples are transcripts whose encoding exercises every escape
// of encoding/json and every member.
func transcriptSamples() []scribe.Transcript {
	at := time.Date(2026, 11, 21, 9, 30, 0, 123456789, time.UTC)
	base := scribe.Transcript{
		ID: 1 << 53, Headline: "Weekly sync", Text: "Line one.", Type: "meeting", CreatedOn: at,
		Metadata: map[string]json.RawMessage{},
		User:     scribe.TranscriptUser{ID: 7, FirstName: "Grace", LastName: "Hopper"},
		Job:      scribe.TranscriptJob{ID: 3, Lines: 12},
		Audio:    scribe.TranscriptAudio{ID: 4, LengthInSeconds: 1800, CreatedOn: at.Add(-time.Hour)},
	}
	var out []scribe.Transcript
	for _, s := range []string{
		"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"Ünïcode ✓ 日本語 🎙", "bad \xff\xfe utf-8 \xe2\x82", "sep\u2028par\u2029end", "\u2027\u202a", "\xed\xa0\x80 surrogate",
	} {
		t := base
		t.Headline, t.Text, t.Type, t.User.FirstName, t.User.LastName = s, s+s, s, s, s
		out = append(out, t)
	}
	zone := base
	zone.CreatedOn = time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -(9*3600+30*60)))
	zone.Audio.CreatedOn = time.Time{}
	zone.ID, zone.Job, zone.Audio.ID, zone.Audio.LengthInSeconds = -1, scribe.TranscriptJob{ID: -5, Lines: -1}, 0, 0
	meta := base
	meta.Metadata = map[string]json.RawMessage{"b": json.RawMessage(`{ "x" : [1, 2] }`), "a": json.RawMessage(`"<&>"`), "<k>": json.RawMessage(`null`)}
	nilMeta := base
	nilMeta.Metadata = nil
	return append(out, zone, meta, nilMeta)
}

// TestEncodeTranscriptMatchesJSON: the hand-written encoder writes what
// encoding/json writes for the same transcript, escapes, zones, zero
// times, negative numbers and metadata included (nil metadata is written as
// {}, as the store never holds nil).
func TestEncodeTranscriptMatchesJSON(t *testing.T) {
	t.Parallel()
	for i, tr := range transcriptSamples() {
		got, err := encodeTranscript(&tr)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if tr.Metadata == nil {
			tr.Metadata = map[string]json.RawMessage{}
		}
		want, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sample %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// What encoding/json refuses is refused, naming the member.
	bad := transcriptSamples()[0]
	bad.Audio.CreatedOn = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := encodeTranscript(&bad); err == nil || !strings.Contains(err.Error(), "audio.created_on") {
		t.Errorf("year 10000: err = %v, want a refusal naming audio.created_on", err)
	}
	bad = transcriptSamples()[0]
	bad.Metadata = map[string]json.RawMessage{"k": json.RawMessage(`{`)}
	if _, err := encodeTranscript(&bad); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("invalid metadata: err = %v, want a refusal naming metadata", err)
	}
}

// FuzzEncodeTranscript compares the hand-written encoder with encoding/json
// on arbitrary strings, numbers and times.
func FuzzEncodeTranscript(f *testing.F) {
	for _, tr := range transcriptSamples() {
		f.Add(tr.Headline, tr.Text, tr.ID, tr.Job.Lines, tr.CreatedOn.UnixNano(), 0)
	}
	f.Fuzz(func(t *testing.T, headline, text string, id int64, lines int, nanos int64, offsetMin int) {
		tr := transcriptSamples()[0]
		tr.Headline, tr.Text, tr.Type, tr.User.FirstName = headline, text, headline+text, text
		tr.ID, tr.Job.Lines, tr.Audio.LengthInSeconds = id, lines, -lines
		tr.CreatedOn = time.Unix(0, nanos).In(time.FixedZone("z", (offsetMin%(48*60))*60))
		want, wantErr := json.Marshal(tr)
		got, err := encodeTranscript(&tr)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("encodeTranscript err %v, encoding/json err %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// TestTranscriptFieldsKnown fails when scribe.Transcript or the structs in
// it gain or lose a JSON member: encodeTranscript writes them by hand and
// must be changed with them.
func TestTranscriptFieldsKnown(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"Transcript":      {"id", "headline", "text", "type", "created_on", "metadata", "user", "job", "audio"},
		"TranscriptUser":  {"id", "first_name", "last_name"},
		"TranscriptJob":   {"id", "lines"},
		"TranscriptAudio": {"id", "length_in_seconds", "created_on"},
	}
	got := map[string][]string{
		"Transcript":      jsonMembers(scribe.Transcript{}),
		"TranscriptUser":  jsonMembers(scribe.TranscriptUser{}),
		"TranscriptJob":   jsonMembers(scribe.TranscriptJob{}),
		"TranscriptAudio": jsonMembers(scribe.TranscriptAudio{}),
	}
	for k := range want {
		if !slices.Equal(got[k], want[k]) {
			t.Errorf("scribe.%s members %q, encodeTranscript writes %q: change it with the type", k, got[k], want[k])
		}
	}
}
