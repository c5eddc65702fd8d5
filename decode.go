package scribe

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/transport"
	"github.com/scribehq/scribe-go/internal/wire"
)

// responseJSON are the options every body is decoded with (the one JSON
// seam, internal/apijson): unknown members are skipped, as a newer service
// may add some, and every RFC 3339 timestamp form is read.
var responseJSON = apijson.Lenient()

// A checker is a type a 2xx answer decodes into: a resource or a list
// envelope. Its check method, beside its declaration, refuses what the
// JSON library accepts and api/openapi.yaml does not: a member missing, or
// null where the member is not nullable. So null, {} or a gateway's
// {"error": ...} is a *DecodeError, never a zero-valued resource or an
// empty list. TestEveryResponseTypeIsChecked walks the Client's operations
// to hold every type they return to it.
type checker interface {
	check(o *apijson.Object) error
}

// decodeBody decodes data, a 2xx body, into out, and checks it.
func decodeBody(data []byte, out any) error {
	err := apijson.Unmarshal(data, out, responseJSON)
	if c, ok := out.(checker); ok && err == nil {
		err = apijson.Check(data, responseJSON, c.check)
	}
	return err
}

// readSuccess reads a 2xx body, bounded by the response limit, and closes
// it. A body over the limit (errBodyTooLarge) is left unread: its
// connection is discarded, not drained. A body shorter than its declared
// length is io.ErrUnexpectedEOF.
func (cl *call) readSuccess(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	limit := cl.s.maxResponseBytes
	if resp.ContentLength > limit {
		return nil, errBodyTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if int64(len(data)) > limit {
		return nil, errBodyTooLarge
	}
	return data, err
}

var errBodyTooLarge = errors.New("body too large")

// decode decodes data, the body of the 2xx answer resp, into out.
func (cl *call) decode(resp *http.Response, data []byte, out any) error {
	err := decodeBody(data, out)
	if err == nil {
		return nil
	}
	de := &DecodeError{Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode,
		RequestID: redact.Field(resp.Header.Get("Request-Id"), maxRequestIDLen, cl.token), Err: err}
	var je *apijson.Error
	if errors.As(err, &je) {
		// The seam never quotes a value; the member names in the pointer
		// come from the answer, so the request's own credential is
		// scrubbed from them too.
		je.Pointer = redact.Field(je.Pointer, maxFieldLen, cl.token)
		de.Field, de.Offset = je.Pointer, je.Offset
		if je.Got == apijson.NotJSON && je.Offset < int64(len(data)) {
			// Not JSON at all (a captive portal's page, a bare "OK"):
			// what came instead is shown, from where it begins. In a
			// member's place, only up to where the document's JSON may
			// go on, so that no value of another member is quoted.
			rest := data[je.Offset:]
			if i := bytes.IndexAny(rest, ",}]"); je.Pointer != "" && i >= 0 {
				rest = rest[:i]
			}
			de.Body = redact.Head(rest, maxDecodeExcerpt, cl.token)
		}
	}
	return de
}

// apiError reads at most maxErrorBody bytes of a non-2xx answer into an
// *Error, closes the body, and scrubs every field taken from the answer.
func (cl *call) apiError(resp *http.Response) *Error {
	tok := cl.token
	e := &Error{
		StatusCode:     resp.StatusCode,
		RequestID:      redact.Field(resp.Header.Get("Request-Id"), maxRequestIDLen, tok),
		Method:         cl.method,
		Path:           cl.path,
		IdempotencyKey: cl.idemKey,
	}
	if d, ok := transport.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.RedirectHost = "(none)"
		if loc, err := resp.Location(); err == nil && loc.Host != "" {
			e.RedirectHost = redact.Field(loc.Host, maxRedirectHostLen, tok)
		}
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close() // read to the end when the body was small: the connection is reused
	var p wire.Problem
	if len(data) <= maxErrorBody && strings.Contains(resp.Header.Get("Content-Type"), "json") &&
		apijson.Unmarshal(data, &p, responseJSON) == nil && (p.Code != "" || p.Title != "" || p.Detail != "") {
		e.Type = redact.Field(p.Type, maxTypeLen, tok)
		e.Title = redact.Field(p.Title, maxTitleLen, tok)
		e.Detail = redact.Field(p.Detail, maxDetailLen, tok)
		e.Code = redact.Field(p.Code, maxCodeLen, tok)
		if e.RequestID == "" {
			e.RequestID = redact.Field(p.RequestID, maxRequestIDLen, tok)
		}
		return e
	}
	e.Body = redact.Head(data, maxErrorExcerpt, tok)
	return e
}
