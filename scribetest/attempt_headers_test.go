package scribetest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Each attempt records the headers it was sent with, exactly as the
// receiver got them, and those of the answer: at most MaxResponseHeaders
// names, the first in sorted order, at most 4 values each, each value cut
// and redacted (the webhook's signing secret, anything shaped like a
// credential) with control characters escaped. Events gives the payload
// every attempt sent.
func TestAttemptHeadersAndPayload(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	var secret string
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("A-Backend", "replica-b")
		h.Set("A-Secret", "got "+secret)
		h.Set("A-Key", "ask_live_"+strings.Repeat("x", 30))
		h.Set("A-Long", strings.Repeat("é", 300))
		h["A-Control"] = []string{"one\u202etwo"}
		h["A-Many"] = []string{"1", "2", "3", "4", "5"}
		for i := range 40 {
			h.Set(fmt.Sprintf("Z-%02d", i), "v")
		}
		w.WriteHeader(http.StatusNoContent)
	})
	hook := e.hook(t, e.plugin.ID, rc.url())
	secret = hook.SigningSecret.Reveal()
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	a, sent := e.s.Deliveries()[0], rc.got()[0]
	for _, name := range []string{"Webhook-Id", "Webhook-Timestamp", "Webhook-Signature", "Content-Type", "User-Agent"} {
		if got := a.RequestHeaders.Get(name); got == "" || got != sent.header.Get(name) {
			t.Errorf("RequestHeaders[%s] = %q; the receiver got %q", name, got, sent.header.Get(name))
		}
	}
	h := a.ResponseHeaders
	if len(h) != 32 || h.Get("A-Backend") != "replica-b" || h.Get("Z-27") != "" {
		t.Errorf("ResponseHeaders has %d names (A-Backend %q, Z-27 %q); want the first 32 in sorted order", len(h), h.Get("A-Backend"), h.Get("Z-27"))
	}
	if h.Get("A-Secret") != "got whsec_[REDACTED]" || h.Get("A-Key") != "ask_live_[REDACTED]" || h.Get("A-Control") != `one\u202etwo` {
		t.Errorf("answer headers not redacted or escaped: A-Secret %q, A-Key %q, A-Control %q", h.Get("A-Secret"), h.Get("A-Key"), h.Get("A-Control"))
	}
	if long := h.Get("A-Long"); len(long) > 256+len("…") || !strings.HasSuffix(long, "…") {
		t.Errorf("A-Long kept %d bytes (%q…); want at most 256 and the mark of a cut", len(long), long[:min(len(long), 20)])
	}
	if got := h.Values("A-Many"); len(got) != 4 {
		t.Errorf("A-Many kept %d values, want 4", len(got))
	}
	events, _ := e.s.Events(0, 1)
	if len(events) != 1 || !bytes.Equal(events[0].Payload, sent.body) {
		t.Errorf("Events' payload is not the body the receiver got")
	}
}

// However many large headers a receiver answers with, an attempt keeps at
// most 2 KiB of them, the first whole: 10,000 attempts stay small.
func TestAttemptHeadersAreBounded(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		for i := range 30 {
			w.Header().Set(fmt.Sprintf("B-%02d", i), strings.Repeat("v", 250))
		}
		w.WriteHeader(http.StatusNoContent)
	})
	e.hook(t, e.plugin.ID, rc.url())
	if _, err := e.s.Install(e.plugin.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	e.settle(t)
	h, size := e.s.Deliveries()[0].ResponseHeaders, 0
	for name, vs := range h {
		for _, v := range vs {
			size += len(name) + len(v)
		}
	}
	if size > 2<<10 || len(h) < 7 || len(h.Get("B-00")) != 250 {
		t.Errorf("kept %d names, %d bytes (B-00 %d bytes); want 2 KiB at most, the first headers whole", len(h), size, len(h.Get("B-00")))
	}
}
