package scribe

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/transport"
	"github.com/scribehq/scribe-go/internal/wire"
)

// responseJSON are the options every 2xx body is decoded with (the one JSON
// seam, internal/apijson): unknown members are skipped, as a newer service
// may add some; every RFC 3339 timestamp form is read; and every resource
// and list envelope must carry each of its members, as api/openapi.yaml
// requires, so that null, {} or a gateway's {"error": ...} is a
// *DecodeError and never a zero-valued resource or an empty list.
var responseJSON = apijson.Lenient(
	apijson.Require[Transcript](), apijson.Require[TranscriptUser](),
	apijson.Require[TranscriptJob](), apijson.Require[TranscriptAudio](),
	apijson.Require[User](), apijson.Require[Plugin](), apijson.Require[Permissions](),
	apijson.Require[PluginSecretKey](), apijson.Require[PluginInstallation](), apijson.Require[Webhook](),
	apijson.Require[wire.List[Transcript]](), apijson.Require[wire.List[Plugin]](),
	apijson.Require[wire.List[PluginInstallation]](), apijson.Require[wire.List[Webhook]](),
)

// problemJSON decodes the problem document of an error answer: leniently,
// since any part of it helps.
var problemJSON = apijson.Lenient()

// readSuccess reads a 2xx body, bounded by the response limit, into cl.data
// while go-retryablehttp's loop still runs: a body cut off mid-way (a
// dropped connection, an attempt timeout) is then a failed attempt,
// retried like one. It reports whether to retry.
func (cl *call) readSuccess(resp *http.Response) bool {
	defer cl.att.Release()
	limit := cl.s.maxResponseBytes
	cl.data, cl.tooLarge = nil, false
	var err error
	if resp.ContentLength > limit {
		err = errBodyTooLarge
	} else {
		cl.data, err = readBody(resp.Body, resp.ContentLength, limit)
	}
	resp.Body.Close() // a body over the limit is left unread: its connection is discarded, not drained
	resp.Body = http.NoBody
	switch {
	case errors.Is(err, errBodyTooLarge):
		cl.tooLarge = true
		return false
	case err != nil:
		return cl.interrupted(resp, err)
	}
	return false
}

// interrupted handles a 2xx body that could not be read to its end: retried
// within the call's budget like a connection failure (a POST with the same
// Idempotency-Key, so that the service answers with what it stored), and
// the call's error after the last attempt.
func (cl *call) interrupted(resp *http.Response, err error) bool {
	e := &ResponseInterruptedError{
		Method: cl.r.method, Path: cl.path(), StatusCode: resp.StatusCode,
		RequestID:      scrubField(resp.Header.Get("Request-Id"), cl.token, maxRequestIDLen),
		IdempotencyKey: cl.idemKey, Attempts: cl.attempts, Err: err,
	}
	cl.err = e
	if ctxErr := cl.ctx.Err(); ctxErr != nil {
		e.Err = ctxErr // the caller stopped waiting; the answer is still to be had with the key
		return false
	}
	cl.logAttemptErr(err)
	if !cl.replayable {
		return false
	}
	if cl.retries >= cl.s.maxRetries {
		cl.giveUp("retries exhausted", e)
		return false
	}
	return cl.schedule(transport.Jitter(cl.s.waitMin, cl.s.waitMax, cl.retries, transport.RandN), e)
}

// decode is the result of a call whose final answer was a 2xx: the body
// checkRetry read, decoded into out.
func (cl *call) decode(resp *http.Response, m meta, out any) error {
	switch {
	case cl.err != nil:
		return cl.err // the last attempt's body was cut off
	case cl.tooLarge:
		return &ResponseTooLargeError{Method: cl.r.method, Path: cl.path(), StatusCode: resp.StatusCode,
			RequestID: scrubField(m.requestID, cl.token, maxRequestIDLen), Limit: cl.s.maxResponseBytes}
	case out == nil:
		return nil
	}
	err := apijson.Unmarshal(cl.data, out, responseJSON)
	if err == nil {
		return nil
	}
	de := &DecodeError{Method: cl.r.method, Path: cl.path(), StatusCode: resp.StatusCode,
		RequestID: scrubField(m.requestID, cl.token, maxRequestIDLen), Err: err}
	var je *apijson.Error
	if errors.As(err, &je) {
		// The seam never quotes a value; the member names in the pointer
		// come from the answer, so the request's own credential is
		// scrubbed from them too.
		je.Pointer = scrubField(je.Pointer, cl.token, maxFieldLen)
		de.Field, de.Offset = je.Pointer, je.Offset
	}
	return de
}

var errBodyTooLarge = errors.New("body too large")

// readBody reads r to its end, at most limit bytes (errBodyTooLarge beyond).
// A known length sizes the buffer once, so that the body is not copied as
// the buffer grows; an unknown one is read by io.ReadAll through a limit.
// A body shorter than its declared length is io.ErrUnexpectedEOF.
func readBody(r io.Reader, length, limit int64) ([]byte, error) {
	if length < 0 || length >= limit {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		if int64(len(data)) > limit {
			return nil, errBodyTooLarge
		}
		return data, err
	}
	buf := make([]byte, length, length+1) // room for the read that sees EOF
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	// net/http ends a body at its Content-Length; a reader that does not
	// may have more, which is read up to the limit.
	var one [1]byte
	if n, err := r.Read(one[:]); n > 0 {
		rest, err := io.ReadAll(io.LimitReader(r, limit-length))
		buf = append(append(buf, one[0]), rest...)
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		return buf, err
	} else if err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

// apiError reads at most maxErrorBody bytes of a non-2xx answer into an
// *Error, closes the body, and scrubs every field taken from the answer.
func (cl *call) apiError(resp *http.Response) *Error {
	tok := cl.token
	e := &Error{
		StatusCode:     resp.StatusCode,
		RequestID:      scrubField(resp.Header.Get("Request-Id"), tok, maxRequestIDLen),
		Method:         cl.r.method,
		Path:           cl.path(),
		IdempotencyKey: cl.idemKey,
	}
	if d, ok := transport.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.RedirectHost = "(none)"
		if loc, err := resp.Location(); err == nil && loc.Host != "" {
			e.RedirectHost = scrubField(loc.Host, tok, maxRedirectHostLen)
		}
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close() // read to the end when the body was small: the connection is reused
	var p wire.Problem
	if len(data) <= maxErrorBody && strings.Contains(resp.Header.Get("Content-Type"), "json") &&
		apijson.Unmarshal(data, &p, problemJSON) == nil && (p.Code != "" || p.Title != "" || p.Detail != "") {
		e.Type = scrubField(p.Type, tok, maxTypeLen)
		e.Title = scrubField(p.Title, tok, maxTitleLen)
		e.Detail = scrubField(p.Detail, tok, maxDetailLen)
		e.Code = scrubField(p.Code, tok, maxCodeLen)
		if e.RequestID == "" {
			e.RequestID = scrubField(p.RequestID, tok, maxRequestIDLen)
		}
		return e
	}
	e.Body = excerpt(data, tok)
	return e
}
