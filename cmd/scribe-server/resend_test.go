package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/scribehq/scribe-go/webhook"
)

// "scribe-server resend EVENT_ID" makes a running server send an event
// again: the receiver gets the same webhook-id a second time, and the
// command prints the new attempt, numbered after the first, and exits 0
// when it was delivered, 1 with the receiver's answer when it was not. An
// id the server does not know exits 1 saying so; no id is a usage error.
func TestResend(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusNoContent)
	var mu sync.Mutex
	var ids []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids = append(ids, r.Header.Get(webhook.HeaderID))
		mu.Unlock()
		if code := int(status.Load()); code >= 400 {
			http.Error(w, "the receiver is down", code)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(recv.Close)
	base := startServer(t, defaultLimits, "-admin", "-webhook-schedule-scale", "0.001")

	cli := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(t.Context(), args, &stdout, &stderr), &stderr)
		return code, stdout.String() + stderr.String()
	}
	code, out := cli("trigger", "-server", base, "-uri", recv.URL+"/hook", "installation.created")
	event := regexp.MustCompile(`triggered installation.created (evt_\S+)`).FindStringSubmatch(out)
	if code != 0 || event == nil {
		t.Fatalf("trigger: exit %d:\n%s", code, out)
	}
	id := event[1]

	code, out = cli("resend", "-server", base, id)
	if code != 0 || !strings.Contains(out, "resent "+id) || !strings.Contains(out, "attempt 2: 204") || !strings.Contains(out, "delivered: 1 of 1") {
		t.Errorf("resend of a delivered event: exit %d; want 0 and attempt 2 delivered:\n%s", code, out)
	}
	mu.Lock()
	got := strings.Join(ids, " ")
	mu.Unlock()
	if got != id+" "+id {
		t.Errorf("the receiver got webhook-ids %q, want %s twice", got, id)
	}

	status.Store(http.StatusInternalServerError)
	code, out = cli("resend", "-server", base, id)
	if code != 1 || !strings.Contains(out, "attempt 3: answered 500") || !strings.Contains(out, "the receiver is down") {
		t.Errorf("resend to a failing receiver: exit %d; want 1, attempt 3 and its answer:\n%s", code, out)
	}

	code, out = cli("resend", "-server", base, "evt_UNKNOWN")
	if code != 1 || !strings.Contains(out, `no event "evt_UNKNOWN" was emitted`) {
		t.Errorf("resend of an unknown id: exit %d:\n%s", code, out)
	}
	if code, out = cli("resend", "-server", base); code != 2 || !strings.Contains(out, "resend takes one argument") {
		t.Errorf("resend without an id: exit %d:\n%s", code, out)
	}
}
