package scribetest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/wire"
)

// TestIndexPage: a page starts after after_id whether or not it is in the
// index, and has_more says whether a greater id exists.
func TestIndexPage(t *testing.T) {
	t.Parallel()
	var ix index
	for _, id := range []int64{5, 1, 3, 9, 7, 3} { // out of order, one repeat
		ix.insert(id)
	}
	ix.remove(9)
	ix.remove(4) // absent: no-op
	type page struct {
		IDs     []int64
		HasMore bool
	}
	tests := []struct {
		after int64
		limit int
		want  page
	}{
		{0, 10, page{[]int64{1, 3, 5, 7}, false}},
		{0, 2, page{[]int64{1, 3}, true}},
		{3, 2, page{[]int64{5, 7}, false}},
		{4, 1, page{[]int64{5}, true}},
		{7, 5, page{[]int64{}, false}},
		{100, 5, page{[]int64{}, false}},
	}
	for _, tt := range tests {
		ids, more := ix.page(tt.after, tt.limit)
		if diff := cmp.Diff(tt.want, page{append([]int64{}, ids...), more}); diff != "" {
			t.Errorf("page(%d, %d) (-want +got):\n%s", tt.after, tt.limit, diff)
		}
	}
}

// TestPanicIsA500Problem: a panicking operation answers 500 internal_error
// with a Request-Id equal to the problem's request_id.
func TestPanicIsA500Problem(t *testing.T) {
	t.Parallel()
	s, err := NewUnstartedServer(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := s.chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/transcripts", nil))

	var p wire.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	id := rec.Header().Get("Request-Id")
	want := wire.Problem{Type: "about:blank", Title: "Internal Server Error", Status: 500, Detail: p.Detail, Code: scribe.CodeInternalError, RequestID: id}
	if rec.Code != 500 || id == "" || p != want {
		t.Errorf("status %d, Request-Id %q, problem %+v; want 500 and %+v", rec.Code, id, p, want)
	}
	if got := s.Requests(); len(got) != 1 || got[0].Status != 500 {
		t.Errorf("request log = %+v, want the 500", got)
	}
}

// TestPanicAfterResponseStartedAborts: once the operation has written its
// status, a panic cannot be answered with a 500 (recoverer, reading the
// status requestID's writer recorded); the connection is aborted with
// http.ErrAbortHandler, and nothing is written after the partial response.
func TestPanicAfterResponseStartedAborts(t *testing.T) {
	t.Parallel()
	s, err := NewUnstartedServer(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	h := s.chain(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("partial"))
		panic("boom")
	}))
	rec := httptest.NewRecorder()
	var got any
	func() {
		defer func() { got = recover() }()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/transcripts", nil))
	}()
	if got != http.ErrAbortHandler {
		t.Fatalf("recovered %v, want http.ErrAbortHandler", got)
	}
	if rec.Code != http.StatusOK || rec.Body.String() != "partial" {
		t.Errorf("status %d, body %q; want 200 and only \"partial\"", rec.Code, rec.Body)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Status != http.StatusOK {
		t.Errorf("request log = %+v, want the 200 that was sent", reqs)
	}
}

// TestEventsFunnel: the seeding calls publish the events of CONTRACT §7
// through the store's one hook: installations to their plugin, transcripts
// only to plugins with transcript permission installed by the user now.
func TestEventsFunnel(t *testing.T) {
	t.Parallel()
	s, err := NewUnstartedServer(WithClock(NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got []string
	)
	s.st.onEvent = func(e event) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, e.Type+" "+itoa(e.PluginID))
	}
	dev, _ := s.CreateDeveloper(UserParams{})
	user, _ := s.CreateUser(UserParams{})
	reader, _ := s.CreatePlugin(dev.User.ID, PluginParams{Name: "reader", Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
	blind, _ := s.CreatePlugin(dev.User.ID, PluginParams{Name: "blind"})
	in, err := s.Install(reader.ID, user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(blind.ID, user.ID); err != nil {
		t.Fatal(err)
	}
	tr, _ := s.CreateTranscript(user.ID, TranscriptParams{Type: "dictation"})
	if _, err := s.UpdateTranscript(tr.ID, func(t *scribe.Transcript) { t.Headline = "new" }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uninstall(in.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTranscript(user.ID, TranscriptParams{}); err != nil { // nobody with permission has it installed now
		t.Fatal(err)
	}
	want := []string{
		"installation.created 1",
		"installation.created 2",
		"transcript.created 1",
		"transcript.updated 1",
		"installation.deleted 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// BenchmarkPage measures one page of 20 from the middle of a large scope,
// beside a page from a small one: the cost must not grow with the scope.
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		c := newCollection[transcriptRow]()
		for id := int64(1); id <= int64(n); id++ {
			c.add(id, 1, transcriptRow{owner: 1})
		}
		b.Run(itoa(int64(n)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, _, _ := c.page(1, int64(n/2), 20)
				if len(rows) != 20 {
					b.Fatal(len(rows))
				}
			}
		})
	}
}
