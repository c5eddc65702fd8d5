package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
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

func newHandler(t testing.TB, v *Verifier, fn func(context.Context, *Event) error, opts ...HandlerOption) http.Handler {
	t.Helper()
	h, err := NewHandler(v, fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
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
		{"fn fails permanently", func() *http.Request { return delivery(t, "evt_1", body) }, Permanent(errors.New("unknown installation")), StatusPermanentFailure, true},
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
			other, _ := keygen.WebhookSecret()
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
			h := newHandler(t, handlerVerifier(t, WithMaxBodyBytes(512)), func(ctx context.Context, e *Event) error {
				ran.Add(1)
				return tc.fnErr
			}, WithLogger(nil), WithErrorDetails())
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
			// fn's error is in the answer (WithErrorDetails), so the
			// service's attempt log says what went wrong.
			if tc.fnErr != nil && !strings.Contains(w.Body.String(), tc.fnErr.Error()) {
				t.Errorf("the answer %q does not carry fn's error %q", w.Body.String(), tc.fnErr)
			}
		})
	}
}

// fn receives the decoded event.
func TestHandlerPassesEvent(t *testing.T) {
	t.Parallel()
	var got *Event
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error { got = e; return nil })
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
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error { ran.Add(1); return nil })
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
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error {
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
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error {
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
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error {
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
		if c != http.StatusConflict || retryAfter[i] != retryAfterInFlight {
			t.Errorf("concurrent delivery %d: status %d, Retry-After %q; want 409 and %s", i, c, retryAfter[i], retryAfterInFlight)
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

func (s failingStore) Reserve(_ context.Context, id string) (Reservation, Claim, error) {
	if s.reserveErr != nil {
		return 0, Claim{}, s.reserveErr
	}
	return Reserved, Claim{ID: id, Token: "t"}, nil
}
func (s failingStore) Complete(context.Context, Claim) error { return s.completeErr }
func (s failingStore) Release(context.Context, Claim) error  { return nil }

// A store that cannot reserve makes the handler answer 503 without running
// fn; one that cannot complete after fn succeeded still gets a 200, since
// answering 5xx would make the sender run fn again for certain.
func TestHandlerStoreFailures(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_1", EventTranscriptCreated)
	var ran atomic.Int32
	fn := func(ctx context.Context, e *Event) error { ran.Add(1); return nil }

	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	secret := "redis: AUTH failed for password whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	h := newHandler(t, handlerVerifier(t), fn, WithDedupeStore(failingStore{reserveErr: errors.New(secret)}), WithLogger(logger))
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusServiceUnavailable || ran.Load() != 0 ||
		w.Header().Get("Retry-After") != retryAfterStoreFailure {
		t.Errorf("Reserve fails: status %d, Retry-After %q, fn ran %d; want 503, %s and 0", w.Code, w.Header().Get("Retry-After"), ran.Load(), retryAfterStoreFailure)
	}
	if strings.Contains(logs.String(), "MfKQ9r8GKYqr") || !strings.Contains(logs.String(), "dedupe store failed") {
		t.Errorf("the store's error is logged unredacted, or not at all: %s", logs.String())
	}
	h = newHandler(t, handlerVerifier(t), fn, WithDedupeStore(failingStore{completeErr: errors.New("redis down")}))
	if w := serve(h, delivery(t, "evt_1", body)); w.Code != http.StatusOK || ran.Load() != 1 {
		t.Errorf("Complete fails: status %d, fn ran %d; want 200 and 1", w.Code, ran.Load())
	}
}

// WithoutDedupe turns dedupe off: every verified delivery runs fn.
func TestHandlerWithoutDedupe(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error { ran.Add(1); return nil }, WithoutDedupe())
	body := eventBody("evt_1", EventTranscriptCreated)
	serve(h, delivery(t, "evt_1", body))
	serve(h, delivery(t, "evt_1", body))
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times, want 2", ran.Load())
	}
}

// A handler without a Verifier, a function or a store is refused when it is
// built, not at the first delivery.
func TestHandlerMisconfigured(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, *Event) error { return nil }
	for name, build := range map[string]func() (http.Handler, error){
		"nil Verifier":              func() (http.Handler, error) { return NewHandler(nil, fn) },
		"nil function":              func() (http.Handler, error) { return NewHandler(handlerVerifier(t), nil) },
		"nil store":                 func() (http.Handler, error) { return NewHandler(handlerVerifier(t), fn, WithDedupeStore(nil)) },
		"nil verifier and function": func() (http.Handler, error) { return NewHandler(nil, nil) },
	} {
		if h, err := build(); err == nil || h != nil {
			t.Errorf("%s: NewHandler = %v, %v; want an error", name, h, err)
		}
	}
	if _, err := NewHandler(handlerVerifier(t), fn, HandlerOption{}); err != nil {
		t.Errorf("the zero HandlerOption: %v, want it to do nothing", err)
	}
}

// Neither answers nor log records carry the secret or a signature.
func TestHandlerNeverLeaks(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := newHandler(t, handlerVerifier(t), func(ctx context.Context, e *Event) error { return errors.New("boom") }, WithLogger(logger))
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

// A function that returns Permanent(err) gets a 422, the status the service
// does not retry; the id is released, so a delivery sent again by hand runs
// the function again, and the failure is logged at Warn.
func TestHandlerPermanentFailure(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var ran atomic.Int32
	h := newHandler(t, handlerVerifier(t), func(context.Context, *Event) error {
		ran.Add(1)
		return fmt.Errorf("installation u-1: %w", Permanent(errors.New("not a customer of ours")))
	}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), WithErrorDetails())
	body := eventBody("evt_1", EventTranscriptCreated)
	for i := range 2 {
		w := serve(h, delivery(t, "evt_1", body))
		if w.Code != http.StatusUnprocessableEntity {
			t.Errorf("delivery %d: status %d, want 422", i+1, w.Code)
		}
		if !strings.Contains(w.Body.String(), "failed permanently") || !strings.Contains(w.Body.String(), "not a customer of ours") {
			t.Errorf("delivery %d: answer %q does not say the failure is permanent and why", i+1, w.Body.String())
		}
	}
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times for two deliveries of one id, want 2 (the id is released)", ran.Load())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "will not retry") {
		t.Errorf("log %q: want a Warn record saying the service will not retry", logs.String())
	}
}

// Permanent(nil) is nil, and IsPermanent sees the mark through wrapping.
func TestPermanent(t *testing.T) {
	t.Parallel()
	if err := Permanent(nil); err != nil {
		t.Errorf("Permanent(nil) = %v, want nil", err)
	}
	base := errors.New("bad data")
	err := fmt.Errorf("handling evt_1: %w", Permanent(base))
	if !IsPermanent(err) || !errors.Is(err, base) {
		t.Errorf("IsPermanent = %v, errors.Is(base) = %v; want both true", IsPermanent(err), errors.Is(err, base))
	}
	if IsPermanent(base) || IsPermanent(nil) {
		t.Error("IsPermanent is true for an error that was never marked")
	}
	if got := Permanent(base).Error(); got != "permanent failure: bad data" {
		t.Errorf("Error() = %q", got)
	}
}

// The function's error reaches neither the log nor the answer unredacted, even
// when it quotes the signing secret (with or without its whsec_ prefix), a
// plugin secret key or a JWT, or carries control characters that would forge
// log lines.
func TestHandlerRedactsFunctionError(t *testing.T) {
	t.Parallel()
	const askKey = "ask_live_4eC39HqLyjWDarjtT1zdp7dc"
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJpYXQiOjF9.c2lnbmF0dXJl"
	bareKey := vectorSecret[len(auth.WebhookSecretPrefix):]
	fnErr := fmt.Errorf("calling the API with %s for secret %s (key %s), token %s\n\x1b[31mFAKE LOG LINE", askKey, vectorSecret, bareKey, jwt)
	for _, details := range []bool{true, false} {
		t.Run(fmt.Sprintf("details=%v", details), func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			opts := []HandlerOption{WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}
			if details {
				opts = append(opts, WithErrorDetails())
			}
			h := newHandler(t, handlerVerifier(t), func(context.Context, *Event) error { return fnErr }, opts...)
			w := serve(h, delivery(t, "evt_1", eventBody("evt_1", EventTranscriptCreated)))
			if w.Code != http.StatusInternalServerError {
				t.Fatalf("status %d, want 500", w.Code)
			}
			for name, out := range map[string]string{"log": logs.String(), "answer": w.Body.String()} {
				for _, leak := range []string{askKey[len("ask_live_"):], bareKey, vectorSecret, jwt, "\x1b", "\nFAKE"} {
					if strings.Contains(out, leak) {
						t.Errorf("%s %q leaks %q", name, out, leak)
					}
				}
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "ask_live_[REDACTED]") ||
				!strings.Contains(logs.String(), "whsec_[REDACTED]") || !strings.Contains(logs.String(), "calling the API") {
				t.Errorf("log %q: want a Warn record with the error, its secrets redacted", logs.String())
			}
			if got := strings.Contains(w.Body.String(), "calling the API"); got != details {
				t.Errorf("answer %q carries the error: %v, want %v", w.Body.String(), got, details)
			}
			if strings.Count(w.Body.String(), "\n") != 1 {
				t.Errorf("answer %q is not one line", w.Body.String())
			}
		})
	}
}

// An answer carries at most maxErrorDetailBytes of the error.
func TestHandlerBoundsErrorDetail(t *testing.T) {
	t.Parallel()
	h := newHandler(t, handlerVerifier(t), func(context.Context, *Event) error { return errors.New(strings.Repeat("é", 2000)) }, WithLogger(nil), WithErrorDetails())
	w := serve(h, delivery(t, "evt_1", eventBody("evt_1", EventTranscriptCreated)))
	if n := len(w.Body.String()); n > 100+maxErrorDetailBytes {
		t.Errorf("answer of %d bytes; want the error cut to %d", n, maxErrorDetailBytes)
	}
	if !utf8.ValidString(w.Body.String()) || !strings.Contains(w.Body.String(), "…") {
		t.Errorf("answer %q: want valid UTF-8 cut with an ellipsis", w.Body.String())
	}
}

// Without WithLogger the handler reports fn's errors to slog.Default() at
// Warn, the default logger at the time (a program may set it after building
// its handler). Not parallel: it replaces the default logger.
func TestHandlerLogsToSlogDefault(t *testing.T) {
	h := newHandler(t, handlerVerifier(t), func(context.Context, *Event) error { return errors.New("index unavailable") })
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	serve(h, delivery(t, "evt_1", eventBody("evt_1", EventTranscriptCreated)))
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "index unavailable") || !strings.Contains(logs.String(), "webhook_id=evt_1") {
		t.Errorf("slog.Default got %q; want a Warn record with the error and the webhook-id", logs.String())
	}
}

// The default limit admits a 3 MiB event (a long transcript) signed like the
// service signs it, and refuses one byte over DefaultMaxBodyBytes with 413.
func TestHandlerDefaultLimitAdmitsLargeEvents(t *testing.T) {
	t.Parallel()
	if DefaultMaxBodyBytes < 4<<20 {
		t.Fatalf("DefaultMaxBodyBytes = %d, want at least 4 MiB", DefaultMaxBodyBytes)
	}
	envelope := func(size int) []byte {
		head := `{"id":"evt_big","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":100,"plugin_installation_uuid":"u-1","data":{"id":1,"text":"`
		tail := `"}}`
		return []byte(head + strings.Repeat("a", size-len(head)-len(tail)) + tail)
	}
	var got int
	h := newHandler(t, handlerVerifier(t), func(_ context.Context, e *Event) error {
		tr, err := e.Transcript()
		if err != nil {
			return err
		}
		got = len(tr.Text)
		return nil
	}, WithLogger(nil))
	if w := serve(h, delivery(t, "evt_big", envelope(3<<20))); w.Code != http.StatusOK || got < 3<<20-200 {
		t.Errorf("3 MiB event: status %d, text of %d bytes reached fn; want 200 and the whole text", w.Code, got)
	}
	if w := serve(h, delivery(t, "evt_big2", envelope(DefaultMaxBodyBytes+1))); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("event one byte over the limit: status %d, want 413", w.Code)
	}
}

// A panic in the user's function, over a real http.Server: the answer is
// 500, the id is released (the next delivery runs the function again), the
// panic value is logged at Error redacted with its stack, and nothing
// reaches the server's ErrorLog, where net/http would print it raw.
func TestHandlerRecoversPanic(t *testing.T) {
	t.Parallel()
	const askKey = "ask_live_4eC39HqLyjWDarjtT1zdp7dc"
	var logs, errorLog syncBuffer
	var runs atomic.Int32
	h := newHandler(t, handlerVerifier(t), func(context.Context, *Event) error {
		if runs.Add(1) == 1 {
			panic(fmt.Sprintf("boom with %s and %s", vectorSecret, askKey))
		}
		return nil
	}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(&errorLog, "", 0)
	srv.Start()
	defer srv.Close()

	body := eventBody("evt_p", EventTranscriptCreated)
	post := func() int {
		r := delivery(t, "evt_p", body)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hook", bytes.NewReader(body))
		req.Header = r.Header
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("the panic broke the connection: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(); got != http.StatusInternalServerError {
		t.Fatalf("status after a panic = %d, want 500", got)
	}
	if got := post(); got != http.StatusOK || runs.Load() != 2 {
		t.Fatalf("retry: status %d after %d runs; want 200 after 2 (the panic released the id)", got, runs.Load())
	}
	out := logs.String()
	for _, leak := range []string{vectorSecret[len("whsec_"):], askKey[len("ask_live_"):]} {
		if strings.Contains(out, leak) {
			t.Errorf("the log leaks %q: %s", leak, out)
		}
	}
	if !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "boom with whsec_[REDACTED]") || !strings.Contains(out, "TestHandlerRecoversPanic") {
		t.Errorf("log %q: want an Error record with the panic value redacted and the stack", out)
	}
	if errorLog.String() != "" {
		t.Errorf("the server's ErrorLog got %q; want nothing", errorLog.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// A MemoryDedupeStore full of claims in flight makes the handler refuse a
// new event with 503 and Retry-After, without running fn: the service
// delivers it again later, and no running claim is dropped.
func TestHandlerDedupeStoreFull(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	fn := func(ctx context.Context, e *Event) error {
		if e.ID == "evt_slow" {
			close(started)
			<-release
		}
		ran.Add(1)
		return nil
	}
	h := newHandler(t, handlerVerifier(t), fn, WithDedupeStore(NewMemoryDedupeStoreForTest(time.Hour, 1, 0, time.Now)), WithLogger(slog.New(slog.DiscardHandler)))
	done := make(chan int)
	go func() {
		done <- serve(h, delivery(t, "evt_slow", eventBody("evt_slow", EventTranscriptCreated))).Code
	}()
	<-started
	w := serve(h, delivery(t, "evt_other", eventBody("evt_other", EventTranscriptCreated)))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("a new event while the store is full of running claims: status %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the running delivery: status %d, want 200", code)
	}
	if w := serve(h, delivery(t, "evt_other", eventBody("evt_other", EventTranscriptCreated))); w.Code != http.StatusOK {
		t.Errorf("the retry once the claim settled: status %d, want 200", w.Code)
	}
	if ran.Load() != 2 {
		t.Errorf("fn ran %d times, want 2 (each event once)", ran.Load())
	}
}

// DeliveryTimeout is the contract's delivery timeout: the reference server
// and the receiver check time attempts by it, and receivers are told to
// answer within it.
func TestDeliveryTimeoutIsTheContracts(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("any 2xx within %d s is success", int(DeliveryTimeout.Seconds())); !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), want) {
		t.Errorf("docs/contract.md does not say %q: DeliveryTimeout (%v) and the contract disagree", want, DeliveryTimeout)
	}
}
