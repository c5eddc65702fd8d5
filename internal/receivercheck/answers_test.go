package receivercheck

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/webhook"
)

// rawReceiver listens on loopback and, for each connection, reads one
// request whole and then does what answer does with the connection; it
// returns the URL.
func rawReceiver(t *testing.T, answer func(*net.TCPConn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body) // all of it: unread bytes would make Close a reset
				answer(conn.(*net.TCPConn))
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook"
}

// A receiver that gives no HTTP answer is told what it did, in the words
// that send its developer after the right bug, and only a receiver that
// says nothing in time is told it did not answer in time.
func TestNoAnswerIsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(*net.TCPConn)
		ctx    time.Duration // how long the check waits, when shorter than its own wait
		says   string        // what the answer says
		why    string        // how the rule's line explains it
	}{
		{name: "closes", answer: func(*net.TCPConn) {},
			says: "no answer: the receiver closed the connection without answering",
			why:  "No HTTP answer to a valid delivery: the receiver failed while handling the event"},
		{name: "resets", answer: func(c *net.TCPConn) { _ = c.SetLinger(0) },
			says: "no answer: the receiver reset the connection",
			why:  "No HTTP answer to a valid delivery: the receiver failed while handling the event"},
		{name: "not HTTP", answer: func(c *net.TCPConn) { _, _ = io.WriteString(c, "SSH-2.0-OpenSSH_9.6\r\n") },
			says: `no answer: the receiver answered a malformed HTTP response: malformed HTTP response "SSH-2.0-OpenSSH_9.6"`,
			why:  "No HTTP answer to a valid delivery: the receiver failed while handling the event"},
		{name: "says nothing", answer: func(*net.TCPConn) { time.Sleep(time.Second) }, ctx: 100 * time.Millisecond,
			says: "no answer: the receiver did not answer in time: nothing within",
			why:  "The receiver did not answer a valid delivery in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			secret, err := keygen.WebhookSecret()
			if err != nil {
				t.Fatal(err)
			}
			c, err := newChecker(Config{URL: rawReceiver(t, tc.answer), Secret: secret, Timeout: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer c.client.CloseIdleConnections()
			d, err := c.fresh(t.Context(), webhook.EventTranscriptCreated, c.now(), validly)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if tc.ctx > 0 { // the check's own wait is the timeout and 5 s of grace
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctx)
				defer cancel()
			}
			a := c.send(ctx, d)
			if got := a.String(); !strings.HasPrefix(got, tc.says) || a.timedOut != (tc.ctx > 0) || a.unreachable {
				t.Errorf("answer %q (timed out %v, unreachable %v), want %q", got, a.timedOut, a.unreachable, tc.says)
			}
			why, err := c.handlingFailed(t.Context(), d, a, "")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(why, tc.why) || (tc.ctx == 0 && strings.Contains(why, "in time")) {
				t.Errorf("explained as %q, want %q", why, tc.why)
			}
		})
	}
}

// A whole check against a receiver that hangs up says so on every line, and
// no line speaks of time.
func TestHangUpIsNotATimeout(t *testing.T) {
	t.Parallel()
	secret, _ := keygen.WebhookSecret()
	url := rawReceiver(t, func(*net.TCPConn) {})
	var results []Result
	sum, err := Run(t.Context(), Config{URL: url, Secret: secret}, func(r Result) { results = append(results, r) })
	if err != nil || sum != (Summary{Failed: 9}) {
		t.Fatalf("Run = %v, %v; want 9 failed", sum, err)
	}
	for _, r := range results {
		if l := r.String(); !strings.Contains(l, "got no answer: the receiver closed the connection without answering") ||
			strings.Contains(l, "in time") || strings.Contains(l, "nothing within") {
			t.Errorf("%s", l)
		}
	}
}
