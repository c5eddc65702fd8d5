package scribe

import (
	"bytes"
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
	err := apijson.Unmarshal(data, out, responseJSON)
	if err == nil {
		return nil
	}
	de := &DecodeError{Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode,
		RequestID: scrubField(resp.Header.Get("Request-Id"), cl.token, maxRequestIDLen), Err: err}
	var je *apijson.Error
	if errors.As(err, &je) {
		// The seam never quotes a value; the member names in the pointer
		// come from the answer, so the request's own credential is
		// scrubbed from them too.
		je.Pointer = scrubField(je.Pointer, cl.token, maxFieldLen)
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
			de.Body = excerpt(rest, cl.token, maxDecodeExcerpt)
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
		RequestID:      scrubField(resp.Header.Get("Request-Id"), tok, maxRequestIDLen),
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
	e.Body = excerpt(data, tok, maxErrorExcerpt)
	return e
}
