package receivercheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/transport"
	"github.com/scribehq/scribe-go/webhook"
)

// delivery is one request the check sends.
type delivery struct {
	what   string // what it is, for the report: "transcript.created evt_…, validly signed"
	id     string // the event's id
	typ    webhook.EventType
	uuid   string // the installation the event names
	at     time.Time
	body   []byte
	header http.Header
}

// signed returns a delivery of e signed with the webhook's secret at the
// time at, as the service sends it.
func (c *checker) signed(e webhook.Event, at time.Time, what string) (delivery, error) {
	body, err := encodeEvent(e)
	if err != nil {
		return delivery{}, err
	}
	h := webhook.SignHeaders(c.secret, e.ID, at, body)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	if sent := string(e.Type) + " " + e.ID; !slices.Contains(c.sent, sent) {
		c.sent = append(c.sent, sent)
	}
	return delivery{what: fmt.Sprintf("%s %s %s", e.Type, e.ID, what), id: e.ID, typ: e.Type, uuid: e.PluginInstallationUUID,
		at: at, body: body, header: h}, nil
}

// answer is what came back for a delivery.
type answer struct {
	status     int    // 0 when there was no answer
	statusText string // "401 Unauthorized", scrubbed
	retryAfter bool   // a valid Retry-After came with it: delay seconds or an HTTP date
	excerpt    string // the start of the body, scrubbed
	elapsed    time.Duration
	err        string // why there was no answer
	// unreachable: no connection could be made (nothing listens at the
	// URL, or its host is unknown), so the receiver never saw the delivery.
	unreachable bool
	timedOut    bool // nothing came within the wait: the only "in time" failure
}

func (a answer) is2xx() bool { return a.status >= 200 && a.status <= 299 }
func (a answer) is4xx() bool { return a.status >= 400 && a.status <= 499 }

// String says what came back: "401 Unauthorized \"...\"", or why nothing did.
func (a answer) String() string {
	if a.status == 0 {
		return "no answer: " + a.err
	}
	if a.excerpt == "" {
		return a.statusText
	}
	return a.statusText + " " + strconv.Quote(a.excerpt)
}

// send posts d and waits for the answer at most the timeout and Grace.
func (c *checker) send(ctx context.Context, d delivery) answer {
	wait := c.timeout + Grace
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var answered atomic.Bool // a byte of an answer came, from the transport's goroutine
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotFirstResponseByte: func() { answered.Store(true) }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(d.body))
	if err != nil {
		return answer{err: c.scrub(err.Error())}
	}
	req.Header = d.header.Clone()
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		a := c.noAnswer(err, answered.Load())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			a.timedOut, a.err = true, fmt.Sprintf("the receiver did not answer in time: nothing within %v", wait)
		}
		a.elapsed = time.Since(start)
		return a
	}
	head := make([]byte, maxExcerpt*2)
	n, _ := io.ReadFull(resp.Body, head)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return answer{
		status: resp.StatusCode, statusText: c.scrub(resp.Status),
		retryAfter: hasRetryAfter(resp.Header, c.now()),
		excerpt:    c.scrub(string(head[:n])), elapsed: time.Since(start),
	}
}

// noAnswer says why a request got no HTTP answer, in the words that send the
// developer after the right bug: nothing listening, a connection closed or
// reset, an answer that is not HTTP. answered: a byte of an answer came.
func (c *checker) noAnswer(err error, answered bool) answer {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return answer{unreachable: true, err: c.scrub(oe.Error())}
	}
	return answer{err: "the receiver " + transport.NoAnswer(err, answered, c.timeout+Grace, c.secrets...)}
}

// scrub makes text from the receiver fit to print: the secrets and anything
// shaped like a credential redacted, control characters but newline and tab
// blanked (the report quotes the body, so those print escaped), white space
// trimmed, at most maxExcerpt bytes.
func (c *checker) scrub(s string) string {
	return strings.TrimSpace(redact.Excerpt(s, maxExcerpt, false, c.secrets...))
}

// hasRetryAfter reports whether h carries a Retry-After a client can act on,
// read as the SDK's own retries read it.
func hasRetryAfter(h http.Header, now time.Time) bool {
	_, ok := transport.RetryAfter(h, now)
	return ok
}
