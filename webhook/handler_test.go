package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var handlerNow = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

func eventBody(id string, typ EventType) []byte {
	return []byte(`{"id":"` + id + `","type":"` + string(typ) + `","created_on":"2026-11-21T09:30:00Z","plugin_id":100,"plugin_installation_uuid":"u-1","data":{"id":1}}`)
}

// delivery returns a POST of body signed with the vector secret at handlerNow.
func delivery(t testing.TB, id string, body []byte) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	maps.Copy(r.Header, SignHeaders(mustSecret(t, vectorSecret), id, handlerNow, body))
	return r
}

func handlerVerifier(t testing.TB, opts ...VerifierOption) *Verifier {
	t.Helper()
	v, err := NewVerifier(mustSecret(t, vectorSecret), append([]VerifierOption{WithClock(fixedClock(handlerNow))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Each kind of delivery gets the status code the handler documents, and fn
// runs only for a verified, well-formed event.
func TestHandlerStatusCodes(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_1", EventTranscriptCreated)
	cases := []struct {
		name    string
		req     func() *http.Request
		fnErr   error
		want    int
		wantRun bool
	}{
		{"verified event", func() *http.Request { return delivery(t, "evt_1", body) }, nil, http.StatusOK, true},
		{"unknown event type", func() *http.Request { return delivery(t, "evt_1", eventBody("evt_1", "plugin.renamed")) }, nil, http.StatusOK, true},
		{"fn fails", func() *http.Request { return delivery(t, "evt_1", body) }, errors.New("database down"), http.StatusInternalServerError, true},
		{"GET", func() *http.Request { r := delivery(t, "evt_1", body); r.Method = http.MethodGet; return r }, nil, http.StatusMethodNotAllowed, false},
		{"PUT", func() *http.Request { r := delivery(t, "evt_1", body); r.Method = http.MethodPut; return r }, nil, http.StatusMethodNotAllowed, false},
		{"missing webhook-id", func() *http.Request { r := delivery(t, "evt_1", body); r.Header.Del(HeaderID); return r }, nil, http.StatusBadRequest, false},
		{"missing signature", func() *http.Request { r := delivery(t, "evt_1", body); r.Header.Del(HeaderSignature); return r }, nil, http.StatusBadRequest, false},
		{"malformed timestamp", func() *http.Request { r := delivery(t, "evt_1", body); r.Header.Set(HeaderTimestamp, "soon"); return r }, nil, http.StatusBadRequest, false},
		{"tampered body", func() *http.Request {
			r := delivery(t, "evt_1", body)
			r.Body = io.NopCloser(strings.NewReader(string(eventBody("evt_1", EventInstallationDeleted))))
			return r
		}, nil, http.StatusUnauthorized, false},
		{"wrong secret", func() *http.Request {
			r := delivery(t, "evt_1", body)
			other, _ := NewSecret()
			r.Header.Set(HeaderSignature, Sign(other, "evt_1", handlerNow, body))
			return r
		}, nil, http.StatusUnauthorized, false},
		{"stale timestamp", func() *http.Request {
			r := delivery(t, "evt_1", body)
			old := handlerNow.Add(-time.Hour)
			maps.Copy(r.Header, SignHeaders(mustSecret(t, vectorSecret), "evt_1", old, body))
			return r
		}, nil, http.StatusUnauthorized, false},
		{"signed body that is not an event", func() *http.Request { return delivery(t, "evt_1", []byte(`{"hello":"world"}`)) }, nil, http.StatusBadRequest, false},
		{"body over the maximum", func() *http.Request { return delivery(t, "evt_1", append(body, bytes.Repeat([]byte(" "), 1024)...)) }, nil, http.StatusRequestEntityTooLarge, false},
		{"body over the maximum, length not announced", func() *http.Request {
			r := delivery(t, "evt_1", append(body, bytes.Repeat([]byte(" "), 1024)...))
			r.ContentLength = -1
			return r
		}, nil, http.StatusRequestEntityTooLarge, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ran atomic.Int32
			h := NewHandler(handlerVerifier(t, WithMaxBodyBytes(512)), func(ctx context.Context, e *Event) error {
				ran.Add(1)
				return tc.fnErr
			})
			w := serve(h, tc.req())
			if w.Code != tc.want {
				t.Errorf("status %d, want %d (body %q)", w.Code, tc.want, w.Body.String())
			}
			if got := ran.Load() == 1; got != tc.wantRun {
				t.Errorf("fn ran %d times, want run=%v", ran.Load(), tc.wantRun)
			}
			if tc.want == http.StatusMethodNotAllowed && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q, want POST", w.Header().Get("Allow"))
			}
			if strings.Contains(w.Body.String(), "database down") {
				t.Errorf("the answer %q carries fn's error", w.Body.String())
			}
		})
	}
}

// fn receives the decoded event.
func TestHandlerPassesEvent(t *testing.T) {
	t.Parallel()
	var got *Event
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error { got = e; return nil })
	if w := serve(h, delivery(t, "evt_7", eventBody("evt_7", EventInstallationCreated))); w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if got == nil || got.ID != "evt_7" || got.Type != EventInstallationCreated || got.PluginInstallationUUID != "u-1" {
		t.Errorf("fn got %+v", got)
	}
}

// The same delivery twice runs fn once and answers 2xx both times.
func TestHandlerDedupesRepeatedDelivery(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error { ran.Add(1); return nil })
	body := eventBody("evt_1", EventTranscriptCreated)
	for i := range 2 {
		if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusOK {
			t.Errorf("delivery %d: status %d, want 200", i+1, w.Code)
		}
	}
	if ran.Load() != 1 {
		t.Errorf("fn ran %d times, want 1", ran.Load())
	}
	// Another id is another event.
	serve(h, delivery(t, "evt_2", eventBody("evt_2", EventTranscriptCreated)))
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times after a second event, want 2", ran.Load())
	}
}

// When fn fails the handler answers 5xx and forgets the id, so the sender's
// retry runs fn again; once it succeeds, later retries are duplicates.
func TestHandlerRetryAfterFailureRunsAgain(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error {
		if ran.Add(1) == 1 {
			return errors.New("temporary")
		}
		return nil
	})
	body := eventBody("evt_1", EventTranscriptCreated)
	for i, want := range []int{http.StatusInternalServerError, http.StatusOK, http.StatusOK} {
		if w := serve(h, delivery(t, "evt_1", body)); w.Code != want {
			t.Errorf("attempt %d: status %d, want %d", i+1, w.Code, want)
		}
	}
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times, want 2 (the failure and the retry)", ran.Load())
	}
}

// A panic in fn releases the id too, so the retry runs fn again.
func TestHandlerPanicReleasesID(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error {
		if ran.Add(1) == 1 {
			panic("bug")
		}
		return nil
	})
	body := eventBody("evt_1", EventTranscriptCreated)
	func() {
		defer func() { _ = recover() }() // net/http recovers handler panics the same way
		serve(h, delivery(t, "evt_1", body))
	}()
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusOK || ran.Load() != 2 {
		t.Errorf("retry after a panic: status %d, fn ran %d times; want 200 and 2", w.Code, ran.Load())
	}
}

// Concurrent deliveries of one id run fn once: while it runs the others get
// 409 with Retry-After (not 2xx, since fn may still fail), and after it
// succeeded a retry is a 200 duplicate.
func TestHandlerConcurrentDeliveriesRunOnce(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error {
		ran.Add(1)
		close(started)
		<-release
		return nil
	})
	body := eventBody("evt_1", EventTranscriptCreated)
	first := make(chan int)
	go func() { first <- serve(h, delivery(t, "evt_1", body)).Code }()
	<-started

	var wg sync.WaitGroup
	codes := make([]int, 8)
	retryAfter := make([]string, 8)
	for i := range codes {
		wg.Go(func() {
			w := serve(h, delivery(t, "evt_1", body))
			codes[i], retryAfter[i] = w.Code, w.Header().Get("Retry-After")
		})
	}
	wg.Wait()
	close(release)
	if c := <-first; c != http.StatusOK {
		t.Errorf("first delivery: status %d, want 200", c)
	}
	for i, c := range codes {
		if c != http.StatusConflict || retryAfter[i] != strconv.Itoa(RetryAfterInFlight) {
			t.Errorf("concurrent delivery %d: status %d, Retry-After %q; want 409 and %d", i, c, retryAfter[i], RetryAfterInFlight)
		}
	}
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusOK {
		t.Errorf("retry after success: status %d, want 200", w.Code)
	}
	if ran.Load() != 1 {
		t.Errorf("fn ran %d times, want 1", ran.Load())
	}
}

// failingStore is a DedupeStore whose every call fails.
type failingStore struct{ reserveErr, completeErr error }

func (s failingStore) Reserve(context.Context, string) (Reservation, error) {
	if s.reserveErr != nil {
		return 0, s.reserveErr
	}
	return Reserved, nil
}
func (s failingStore) Complete(context.Context, string) error { return s.completeErr }
func (s failingStore) Release(context.Context, string) error  { return nil }

// A store that cannot reserve makes the handler answer 503 without running
// fn; one that cannot complete after fn succeeded still gets a 200, since
// answering 5xx would make the sender run fn again for certain.
func TestHandlerStoreFailures(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_1", EventTranscriptCreated)
	var ran atomic.Int32
	fn := func(ctx context.Context, e *Event) error { ran.Add(1); return nil }

	h := NewHandler(handlerVerifier(t), fn, WithDedupeStore(failingStore{reserveErr: errors.New("redis down")}))
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusServiceUnavailable || ran.Load() != 0 {
		t.Errorf("Reserve fails: status %d, fn ran %d; want 503 and 0", w.Code, ran.Load())
	}
	h = NewHandler(handlerVerifier(t), fn, WithDedupeStore(failingStore{completeErr: errors.New("redis down")}))
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusOK || ran.Load() != 1 {
		t.Errorf("Complete fails: status %d, fn ran %d; want 200 and 1", w.Code, ran.Load())
	}
}

// WithDedupeStore(nil) turns dedupe off: every verified delivery runs fn.
func TestHandlerWithoutDedupe(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error { ran.Add(1); return nil }, WithDedupeStore(nil))
	body := eventBody("evt_1", EventTranscriptCreated)
	serve(h, delivery(t, "evt_1", body))
	serve(h, delivery(t, "evt_1", body))
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times, want 2", ran.Load())
	}
}

// A handler built without a Verifier or a function answers 500 instead of
// panicking.
func TestHandlerMisconfigured(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_1", EventTranscriptCreated)
	for _, h := range []http.Handler{
		NewHandler(nil, func(context.Context, *Event) error { return nil }),
		NewHandler(handlerVerifier(t), nil),
	} {
		if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusInternalServerError {
			t.Errorf("status %d, want 500", w.Code)
		}
	}
}

// Neither answers nor log records carry the secret or a signature.
func TestHandlerNeverLeaks(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := NewHandler(handlerVerifier(t), func(ctx context.Context, e *Event) error { return errors.New("boom") }, WithLogger(logger))
	body := eventBody("evt_1", EventTranscriptCreated)
	good := delivery(t, "evt_1", body)
	sig := good.Header.Get(HeaderSignature)

	var answers []string
	for _, r := range []*http.Request{
		good,
		func() *http.Request {
			r := delivery(t, "evt_1", body)
			r.Body = io.NopCloser(strings.NewReader("{}"))
			return r
		}(),
		func() *http.Request { r := delivery(t, "evt_1", body); r.Header.Set(HeaderTimestamp, "1"); return r }(),
	} {
		answers = append(answers, serve(h, r).Body.String())
	}
	if logs.Len() == 0 {
		t.Fatal("WithLogger logged nothing")
	}
	for _, out := range append(answers, logs.String()) {
		for _, leak := range []string{vectorSecret[len("whsec_"):], sig[3:], sig[3:15]} {
			if strings.Contains(out, leak) {
				t.Errorf("output %q leaks %q", out, leak)
			}
		}
	}
}
