package devserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// waitLimit bounds every wait of these tests: a liveness bound that fails a
// hung test, never a measure of speed.
const waitLimit = 10 * time.Second

// fastSchedule makes retries follow each other within milliseconds.
var fastSchedule = scribetest.WithWebhookSchedule(0, 2*time.Millisecond, 4*time.Millisecond, 8*time.Millisecond)

// newDevServer starts a server with opts, serving its dev server with the
// admin API, on its own address, and closes it when t ends.
func newDevServer(t testing.TB, opts ...scribetest.Option) *scribetest.Server {
	t.Helper()
	return startDev(t, []devserver.Option{devserver.WithAdminAPI()}, opts...)
}

// startDev starts a server with opts, serving its dev server with dev.
func startDev(t testing.TB, dev []devserver.Option, opts ...scribetest.Option) *scribetest.Server {
	t.Helper()
	s, err := scribetest.NewUnstartedServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h, err := devserver.New(s, dev...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartWith(h); err != nil {
		t.Fatal(err)
	}
	return s
}

// got is one request a receiver got.
type got struct {
	header http.Header
	body   []byte
	event  webhook.Event
}

// receiver is a webhook endpoint that records every request. answer, when
// set, writes the answer to the n-th request (from 1); the default is 204.
type receiver struct {
	srv    *httptest.Server
	answer func(n int, w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []got
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev webhook.Event
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, got{header: r.Header.Clone(), body: body, event: ev})
		n := len(rc.reqs)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(n, w, r)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url() string { return rc.srv.URL + "/hook" }

func (rc *receiver) got() []got {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// status answers every request with code.
func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}
