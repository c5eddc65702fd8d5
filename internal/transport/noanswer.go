package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
)

// NoAnswer says why a request got no HTTP answer (err, from an
// http.Client's Do), in the words that send the developer after the right
// bug, with the peer as the subject left out: "closed the connection
// without answering", "reset the connection without answering" (or "in
// the middle of its answer", when answered says a byte of it came),
// "answered a malformed HTTP response: ...", "could not be reached: ...",
// else "did not answer: " and the error.
// Only a timeout is "did not answer in time (timeout)". The webhook engine and the
// receiver check both say it. Text from the peer in it is sanitized
// (redact.Field) with secrets redacted.
func NoAnswer(err error, answered bool, timeout time.Duration, secrets ...string) string {
	middle := map[bool]string{false: " without answering", true: " in the middle of its answer"}[answered]
	var oe *net.OpError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "did not answer in time (" + timeout.String() + ")"
	case errors.As(err, &oe) && oe.Op == "dial":
		return "could not be reached: " + redact.Field(oe.Err.Error(), 256, secrets...)
	case errors.Is(err, syscall.ECONNRESET):
		return "reset the connection" + middle
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "server closed idle connection"):
		return "closed the connection" + middle
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the URL, which the user knows
	}
	if msg := err.Error(); answered || strings.Contains(msg, "malformed") {
		for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
			err = u // the innermost error: what was wrong with the answer
		}
		return "answered a malformed HTTP response: " + redact.Field(err.Error(), 256, secrets...)
	}
	return "did not answer: " + redact.Field(err.Error(), 256, secrets...)
}
