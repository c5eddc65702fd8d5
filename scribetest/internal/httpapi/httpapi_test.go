package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
)

// testAPI is an API without state, whose log is logged.
func testAPI(logged *[]int) *API {
	return &API{cfg: Config{Now: time.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Log: func(_ *http.Request, _ time.Time, _ string, status int, _, _ string, _ time.Duration) {
			*logged = append(*logged, status)
		}}}
}

// TestPanicIsA500Problem: a panicking handler answers 500 internal_error
// with a Request-Id equal to the problem's request_id.
func TestPanicIsA500Problem(t *testing.T) {
	t.Parallel()
	a := testAPI(new([]int))
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
	var logged []int
	a := testAPI(&logged)
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
	if len(logged) != 1 || logged[0] != http.StatusOK {
		t.Errorf("statuses logged = %v, want the 200 that was sent", logged)
	}
}
