package httpapi

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest/internal/clock"
	"github.com/scribehq/scribe-go/scribetest/internal/faults"
	"github.com/scribehq/scribe-go/scribetest/internal/reqlog"
)

func testAPI() *API {
	return &API{cfg: Config{Faults: &faults.Queue{}, Log: &reqlog.Log{}, Clock: clock.Real{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
}

// TestPanicIsA500Problem: a panicking handler answers 500 internal_error
// with a Request-Id equal to the problem's request_id.
func TestPanicIsA500Problem(t *testing.T) {
	t.Parallel()
	a := testAPI()
	h := a.requestID(a.recoverer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/plugins", nil))
	var p wire.Problem
	if err := apijson.Unmarshal(rec.Body.Bytes(), &p, apijson.Lenient()); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 500 || p.Code != "internal_error" || p.RequestID == "" || p.RequestID != rec.Header().Get("Request-Id") {
		t.Errorf("status %d, problem %+v, Request-Id %q", rec.Code, p, rec.Header().Get("Request-Id"))
	}
}

// TestPanicAfterAnswerStartedAborts: once the answer has started, a panic
// cannot be answered: the handler aborts (net/http drops the connection)
// and the request log keeps the status that was sent.
func TestPanicAfterAnswerStartedAborts(t *testing.T) {
	t.Parallel()
	a := testAPI()
	h := a.requestID(a.recoverer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "partial")
		panic("boom")
	})))
	rec := httptest.NewRecorder()
	var got any
	func() {
		defer func() { got = recover() }()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/plugins", nil))
	}()
	if got != http.ErrAbortHandler || rec.Body.String() != "partial" {
		t.Errorf("recovered %v, body %q; want http.ErrAbortHandler after only \"partial\"", got, rec.Body)
	}
	if recs := a.cfg.Log.All(); len(recs) != 1 || recs[0].Status != http.StatusOK {
		t.Errorf("request log = %+v, want the 200 that was sent", recs)
	}
}

// TestTranscriptPageIsTheLibrarys: the page written around stored
// encodings (which the library made) is byte for byte the library's
// encoding of the same page.
func TestTranscriptPageIsTheLibrarys(t *testing.T) {
	t.Parallel()
	var items [][]byte
	for i, text := range []string{"a", "<\u2028\"é"} {
		b, err := apijson.Marshal(map[string]any{"id": i + 1, "text": text, "metadata": map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, b)
	}
	for _, tt := range []struct {
		items [][]byte
		more  bool
		total int
	}{{nil, false, 0}, {items[:1], true, 2}, {items, false, 2}} {
		values := []jsontext.Value{}
		for _, it := range tt.items {
			values = append(values, it)
		}
		want, err := apijson.Marshal(wire.List[jsontext.Value]{HasMore: tt.more, TotalCount: tt.total, Data: values})
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(transcriptPage(tt.items, tt.more, tt.total), nil); string(got) != string(want)+"\n" {
			t.Errorf("page %s\nwant %s", got, want)
		}
	}
}
