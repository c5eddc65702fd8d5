package transport_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/internal/transport"
)

// Issue 49 item 4: a receiver that hangs up, resets or answers garbage is
// told so; "did not answer in time" is only for a timeout, so a 10 ms
// hang-up never sends the developer after a slow handler.
func TestNoAnswerSaysWhatHappened(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(c *net.TCPConn)
		want   string
	}{
		{"closed", func(c *net.TCPConn) {}, "closed the connection without answering"},
		{"reset", func(c *net.TCPConn) { _ = c.SetLinger(0) }, "reset the connection without answering"},
		{"malformed", func(c *net.TCPConn) { _, _ = io.WriteString(c, "SSH-2.0 \x1b[2J whsec_abc+def=\r\n") },
			"answered a malformed HTTP response: malformed HTTP status code"},
		{"slow", func(c *net.TCPConn) { time.Sleep(300 * time.Millisecond) }, "did not answer in time (100ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					_, _ = io.Copy(io.Discard, req.Body)
				}
				tc.answer(c.(*net.TCPConn))
			}()
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ln.Addr().String()+"/hook", strings.NewReader("{}"))
			_, err = http.DefaultClient.Do(req)
			if err == nil {
				t.Fatal("the request got an answer")
			}
			if got := transport.NoAnswer(err, false, 100*time.Millisecond); !strings.HasPrefix(got, tc.want) || strings.ContainsAny(got, "\x1b\r\n") {
				t.Errorf("NoAnswer(%v) = %q, want %q, on one line without escape characters", err, got, tc.want)
			}
		})
	}
}
