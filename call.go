package scribe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/transport"
)

// call is one operation across its attempts: what every attempt sends, and
// what the attempts so far have learnt. The retry loop is in retry.go;
// reading and decoding answers in decode.go.
type call struct {
	ctx     context.Context // the caller's, as the operation hooks returned it
	s       *settings
	method  string
	path    string // the operation's path, relative to the base URL, for errors and logs
	url     string
	body    []byte // the JSON request body, nil for none; the same on every attempt
	idemKey string // the Idempotency-Key of a POST; the same on every attempt
	// send sends one attempt: the middlewares around the HTTP client's Do.
	send func(*http.Request) (*http.Response, error)
	// op is the operation, with the number of the latest attempt and why it
	// was made.
	op Operation

	attempts int    // requests sent so far
	token    string // the credential of the latest attempt, to scrub from what the service says
}

// attempt sends the request once, bounded by the per-attempt timeout, and
// reads the answer within that bound: the whole body of a 2xx (data), the
// error body of any other status. It returns the answer (nil when none
// came), err when the answer is not a whole 2xx, and whether that failure
// is worth another attempt of the same request.
func (cl *call) attempt() (resp *http.Response, data []byte, retry bool, err error) {
	ctx := cl.ctx
	if d := cl.s.timeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(cl.ctx, d, transport.AttemptTimeout(d))
		defer cancel() // the answer has been read by then
	}
	cl.op.Attempt = cl.attempts + 1
	req, err := cl.request(context.WithValue(ctx, operationKey{}, cl.op))
	if err != nil {
		return nil, nil, false, err
	}
	cl.attempts++
	start := time.Now()
	resp, err = cl.send(req)
	took := time.Since(start)
	if err != nil {
		retry = cl.ctx.Err() == nil && transport.RetryableError(err) // on the *url.Error, which the policy inspects
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL; ours names the operation
		}
		err = cl.why(ctx, err)
		cl.logAttemptErr(err, took)
		return nil, nil, retry, fmt.Errorf("scribe: %s %s (%s): %w", cl.method, cl.path, plural(cl.attempts, "attempt"), err)
	}
	cl.logAttempt(resp, took)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := cl.apiError(resp) // a 3xx too: the service never redirects, and it is not followed
		return resp, nil, transport.Retryable(cl.method, resp.StatusCode, e.Code), e
	}
	data, err = cl.readSuccess(resp)
	if errors.Is(err, errBodyTooLarge) {
		return resp, nil, false, &ResponseTooLargeError{Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode,
			RequestID: redact.Field(resp.Header.Get("Request-Id"), maxRequestIDLen, cl.token), Limit: cl.s.maxResponseBytes}
	}
	if err != nil {
		// A body cut off mid-way (a dropped connection, the attempt's
		// timeout) is retried like a connection failure: a POST with the
		// same Idempotency-Key, so that the service answers with what it
		// stored. A caller who stopped waiting is not.
		err = cl.why(ctx, err)
		cl.logAttemptErr(err, took)
		return resp, nil, cl.ctx.Err() == nil, &ResponseInterruptedError{
			Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode,
			RequestID:      redact.Field(resp.Header.Get("Request-Id"), maxRequestIDLen, cl.token),
			IdempotencyKey: cl.idemKey, Attempts: cl.attempts, Err: err,
		}
	}
	return resp, data, false, nil
}

// why returns what ended an attempt that failed with err: the caller's
// context, the attempt's timeout (its cause, an ErrAttemptTimeout), or err
// itself.
func (cl *call) why(attemptCtx context.Context, err error) error {
	if ctxErr := cl.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if attemptCtx.Err() != nil {
		return context.Cause(attemptCtx)
	}
	return err
}

// request builds the request of the next attempt, under ctx. Every attempt
// gets a new request with a header of its own, and a token the credential
// gives now (it may have been refreshed during a backoff); the body and the
// Idempotency-Key stay the same.
func (cl *call) request(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body) // sets the request's GetBody and ContentLength
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, cl.url, body)
	if err != nil {
		return nil, fmt.Errorf("scribe: %s %s: %w", cl.method, cl.path, err)
	}
	if cl.s.header != nil {
		req.Header = cl.s.header.Clone() // WithHeader's, copied: a round tripper may modify what it is given
	}
	req.Header.Set("User-Agent", userAgent(cl.s.uaSuffix))
	req.Header.Set("Accept", "application/json")
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cl.idemKey != "" {
		req.Header.Set("Idempotency-Key", cl.idemKey)
	}
	cl.token = ""
	if cl.s.credential != nil {
		tok, err := cl.s.credential.token(cl.ctx)
		if err != nil {
			return nil, fmt.Errorf("scribe: %s %s: token source: %w", cl.method, cl.path, err)
		}
		if tok == "" || !validToken(tok) {
			return nil, fmt.Errorf("scribe: %s %s: token source returned an empty token or one with spaces or control characters", cl.method, cl.path)
		}
		cl.token = tok
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return req, nil
}

// Logging levels (docs/client.md, "Options", WithLogger): each attempt at Debug; a retry
// and the 401 recovery at Info; a give-up after retryable failures at Warn.

func (cl *call) logAttempt(resp *http.Response, took time.Duration) {
	if !cl.logging(slog.LevelDebug) {
		return // no attributes built on every attempt of a client that does not log
	}
	cl.log(slog.LevelDebug, "scribe: attempt",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", took),
		slog.Int("status", resp.StatusCode),
		slog.String("request_id", redact.Field(resp.Header.Get("Request-Id"), maxRequestIDLen, cl.token)))
}

func (cl *call) logAttemptErr(err error, took time.Duration) {
	if !cl.logging(slog.LevelDebug) {
		return
	}
	cl.log(slog.LevelDebug, "scribe: attempt failed",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", took),
		slog.String("error", redact.Known(err.Error(), cl.token)))
}

// giveUp logs, at Warn, that a call stops after a retryable failure.
func (cl *call) giveUp(reason string, last error, attrs ...slog.Attr) {
	if !cl.logging(slog.LevelWarn) {
		return
	}
	cl.log(slog.LevelWarn, "scribe: giving up", append([]slog.Attr{
		slog.String("reason", reason), slog.Int("attempts", cl.attempts),
		slog.String("error", redact.Known(last.Error(), cl.token))}, attrs...)...)
}

// log writes one line naming the operation; it is given no header value,
// token or key.
func (cl *call) log(level slog.Level, msg string, attrs ...slog.Attr) {
	if !cl.logging(level) {
		return
	}
	head := []slog.Attr{slog.String("method", cl.method), slog.String("path", cl.path)}
	if uuid := cl.installationUUID(); uuid != "" {
		head = append(head, slog.String("installation_uuid", uuid))
	}
	cl.s.logger.LogAttrs(cl.ctx, level, msg, append(head, attrs...)...)
}

// installationUUID returns the installation a client acts for, when its
// token source says (as auth.TokenSource does, for NewInstallationClient and
// InstallationClients.For), and "" otherwise. It is no secret: it names the
// installation in every log line of its calls.
func (cl *call) installationUUID() string {
	if ts, ok := cl.s.credential.(*tokenSource); ok {
		if src, ok := ts.ts.(interface{ InstallationUUID() string }); ok {
			return src.InstallationUUID()
		}
	}
	return ""
}

// logging reports whether the client has a logger that takes lines of level.
func (cl *call) logging(level slog.Level) bool {
	return cl.s.logger != nil && cl.s.logger.Enabled(cl.ctx, level)
}

// plural returns "1 attempt", "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
