package scribetest_test

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

func pluginCount(e *env) int { return len(e.s.Plugins()) }

// TestIdempotencyReplay: the same key and body replays the first answer,
// status and body, with Idempotent-Replayed, and creates one plugin.
func TestIdempotencyReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before := pluginCount(e)
	rq := req{method: "POST", path: "/plugins", token: e.devA.Key.Reveal(), body: `{"name":"Once"}`, header: map[string]string{"Idempotency-Key": "k-1"}}
	first, firstBody := e.do(t, rq)
	e.clock.Advance(time.Minute) // a replay must not restamp anything
	second, secondBody := e.do(t, rq)

	if first.StatusCode != 200 || second.StatusCode != 200 {
		t.Fatalf("statuses %d and %d, want 200 twice", first.StatusCode, second.StatusCode)
	}
	if !bytes.Equal(firstBody, secondBody) {
		t.Errorf("replayed body differs:\n%s\n%s", firstBody, secondBody)
	}
	if first.Header.Get("Idempotent-Replayed") != "" || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed = %q then %q, want \"\" then \"true\"", first.Header.Get("Idempotent-Replayed"), second.Header.Get("Idempotent-Replayed"))
	}
	if first.Header.Get("Request-Id") == second.Header.Get("Request-Id") {
		t.Error("the replay reused the first Request-Id header; each answer has its own")
	}
	if got := pluginCount(e) - before; got != 1 {
		t.Errorf("%d plugins created, want 1", got)
	}
}

// TestIdempotencyConflicts covers what a key cannot do twice.
func TestIdempotencyConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dev := e.devA.Key.Reveal()
	post := func(token, key, body string) (*http.Response, []byte) {
		return e.do(t, req{method: "POST", path: "/plugins", token: token, body: body, header: map[string]string{"Idempotency-Key": key}})
	}
	if resp, _ := post(dev, "k", `{"name":"A"}`); resp.StatusCode != 200 {
		t.Fatalf("first: %d", resp.StatusCode)
	}

	t.Run("another body is 409 idempotency_key_reused", func(t *testing.T) {
		resp, body := post(dev, "k", `{"name":"B"}`)
		if p := problemOf(t, resp, body); resp.StatusCode != 409 || p.Code != scribe.CodeIdempotencyKeyReused {
			t.Errorf("%d %s, want 409 idempotency_key_reused", resp.StatusCode, p.Code)
		}
	})
	t.Run("another operation is 409 idempotency_key_reused", func(t *testing.T) {
		resp, body := e.do(t, req{method: "POST", path: "/plugins/" + itoa(e.plugin.ID) + "/secret_keys", token: dev, body: `{"name":"A"}`, header: map[string]string{"Idempotency-Key": "k"}})
		if p := problemOf(t, resp, body); resp.StatusCode != 409 || p.Code != scribe.CodeIdempotencyKeyReused {
			t.Errorf("%d %s, want 409 idempotency_key_reused", resp.StatusCode, p.Code)
		}
	})
	t.Run("keys are scoped per developer", func(t *testing.T) {
		resp, body := post(e.devB.Key.Reveal(), "k", `{"name":"B"}`)
		if resp.StatusCode != 200 {
			t.Fatalf("another developer's same key: %d %s, want 200", resp.StatusCode, body)
		}
	})
	t.Run("a key is forgotten after 24 hours", func(t *testing.T) {
		e := newEnv(t)
		dev := e.devA.Key.Reveal()
		rq := req{method: "POST", path: "/plugins", token: dev, body: `{"name":"Daily"}`, header: map[string]string{"Idempotency-Key": "daily"}}
		e.do(t, rq)
		e.clock.Advance(24*time.Hour - time.Second)
		if resp, _ := e.do(t, rq); resp.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatal("replay within 24 hours did not replay")
		}
		e.clock.Advance(time.Second)
		before := pluginCount(e)
		if resp, _ := e.do(t, rq); resp.StatusCode != 200 || resp.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("after 24 hours: %d, replayed %q; want a fresh 200", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
		}
		if pluginCount(e) != before+1 {
			t.Error("after 24 hours the work was not done again")
		}
	})
	t.Run("a refused body is replayed too, with the replay's request id", func(t *testing.T) {
		rq := req{method: "POST", path: "/plugins", token: dev, body: `{}`, header: map[string]string{"Idempotency-Key": "bad"}}
		first, fb := e.do(t, rq)
		second, sb := e.do(t, rq)
		p1, p2 := problemOf(t, first, fb), problemOf(t, second, sb)
		if second.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("the second answer is not marked as replayed")
		}
		if p2.RequestID != second.Header.Get("Request-Id") {
			t.Errorf("replayed request_id %q differs from its Request-Id %q", p2.RequestID, second.Header.Get("Request-Id"))
		}
		p1.RequestID, p2.RequestID = "", ""
		if first.StatusCode != 400 || second.StatusCode != 400 || p1 != p2 {
			t.Errorf("%d %+v / %d %+v, want the same 400 twice", first.StatusCode, p1, second.StatusCode, p2)
		}
	})
}

// TestIdempotencyConcurrent: many requests with one key at once do the work
// once; the others replay it or answer 409 idempotency_key_in_use.
func TestIdempotencyConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	before := pluginCount(e)
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created [][]byte
		inUse   int
	)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			resp, body := e.do(t, req{method: "POST", path: "/plugins", token: e.devA.Key.Reveal(), body: `{"name":"Race"}`, header: map[string]string{"Idempotency-Key": "race"}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.StatusCode == 200:
				created = append(created, body)
			case resp.StatusCode == 409 && problemOf(t, resp, body).Code == "idempotency_key_in_use":
				inUse++
			default:
				t.Errorf("unexpected answer %d %s", resp.StatusCode, body)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := pluginCount(e) - before; got != 1 {
		t.Fatalf("%d plugins created by %d concurrent requests with one key, want 1", got, n)
	}
	for _, b := range created[1:] {
		if !bytes.Equal(b, created[0]) {
			t.Errorf("two 200 bodies differ:\n%s\n%s", created[0], b)
		}
	}
	if len(created)+inUse != n {
		t.Errorf("%d created + %d in use != %d", len(created), inUse, n)
	}
}
