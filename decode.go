package scribe

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
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

// decodeBody decodes data, a 2xx body, into out: a resource, or a page of
// them (envelope). The library reads it once, a tolerant reader: a member
// absent or null is left at its zero value, an unknown one is skipped, and
// a member of the wrong kind is an error. What no reading accepts is
// refused as well: a body that is not an object, a resource without what
// identifies it, a page without data or has_more (unidentified). Where
// someone wants to know what was absent or null (WithStrictDecoding, or a
// logger taking Warn where a member decoded to its zero value), apijson.Gaps
// reads the body again, member names and kinds only: strict, its first gap
// is the error; tolerant, each is logged once (warnGap).
// docs/design/json.md says why.
func (cl *call) decodeBody(data []byte, out any) error {
	if err := apijson.Unmarshal(data, out, responseJSON); err != nil {
		return err
	}
	missing, want := unidentified(out, data)
	strict := cl.s.strictDecoding
	if missing == "" && !strict && (!cl.logging(slog.LevelWarn) || !zero(out)) {
		return nil // nothing to refuse, and nothing absent to log (a gap decodes to zero)
	}
	err := apijson.Gaps(data, responseJSON, out, func(e *apijson.Error) error {
		if strict || missing != "" && memberOf(e) == missing {
			return e
		}
		cl.warnGap(e)
		return nil
	})
	if err == nil && missing != "" { // there, but 0, "" or null
		err = &apijson.Error{Pointer: missing, Want: want, Reason: "must be " + want}
	}
	return err
}

// A resource is a type that an answer, or a page's item, decodes into.
// Its unidentified method, beside its declaration, names what identifies
// it (its id; an installation's uuid too) when that is zero, and what it
// must be; the page's (envelope) does the same for data, has_more and each
// item. TestEveryResponseTypeIsChecked holds every type the Client's
// operations answer with to it.
type resource interface {
	// unidentified is given the body out was decoded from, for what the
	// value cannot tell (a page's has_more false, or absent).
	unidentified(body []byte) (member, want string)
}

// unidentified returns the JSON pointer of the member out, decoded from
// body, cannot be read without, when it is zero in out, and what it must
// be; "" when none is.
func unidentified(out any, body []byte) (member, want string) {
	if r, ok := out.(resource); ok {
		if m, w := r.unidentified(body); m != "" {
			return "/" + m, w
		}
	}
	return "", ""
}

// zero reports whether a member of out holds its zero value, as a member
// absent or null does (apijson.Zero; a page's own, envelope.zero).
func zero(out any) bool {
	if p, ok := out.(interface{ zero() bool }); ok {
		return p.zero()
	}
	return apijson.Zero(out)
}

// positiveID is the unidentified of a resource identified by id.
func positiveID(id int64) (member, want string) {
	if id <= 0 {
		return "id", "a positive integer"
	}
	return "", ""
}

// memberOf returns the JSON pointer of the member e is about, missing
// (Missing, in the object at Pointer) or null (at Pointer).
func memberOf(e *apijson.Error) string {
	if e.Missing != "" {
		return e.Pointer + "/" + e.Missing
	}
	return e.Pointer
}

// warnGap logs, at Warn, that an answer lacked a member or had it null,
// which was read as its zero value: once per operation and member for a
// client (and the clients WithOptions derives from it), so that drift
// shows without flooding the log. The member is named as a path of the
// contract's names ("logo_uri", "data.user.first_name"), never with a
// value.
func (cl *call) warnGap(e *apijson.Error) {
	var names []string
	for n := range strings.SplitSeq(strings.TrimPrefix(memberOf(e), "/"), "/") {
		if _, err := strconv.Atoi(n); err != nil { // not an item's index
			names = append(names, n)
		}
	}
	op, member := cl.operation(), strings.Join(names, ".")
	if _, seen := cl.s.gapsLogged.LoadOrStore(op+" "+member, true); seen {
		return
	}
	found := "null"
	if e.Missing != "" {
		found = "absent"
	}
	cl.log(slog.LevelWarn, "scribe: an answer lacked a member, read as its zero value",
		slog.String("operation", op), slog.String("member", member), slog.String("found", found))
}

// operation names the call's operation as the contract does: "GET
// /plugins/{id}/installations"; for Do, whose path is the caller's, with
// each number as {id}.
func (cl *call) operation() string {
	if cl.op.Name != "Do" && cl.op.PathTemplate != "" {
		return cl.op.Method + " " + cl.op.PathTemplate
	}
	segs := strings.Split(cl.path, "/")
	for i, s := range segs {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			segs[i] = "{id}"
		}
	}
	return cl.method + " " + strings.Join(segs, "/")
}

// readSuccess reads a 2xx body, bounded by the response limit, and closes
// it. A body over the limit (errBodyTooLarge) is left unread: its
// connection is discarded, not drained. A body shorter than its declared
// length is io.ErrUnexpectedEOF. A declared length sizes the buffer once,
// with room for the read that finds the end.
func (cl *call) readSuccess(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	limit := cl.s.maxResponseBytes
	if resp.ContentLength > limit {
		return nil, errBodyTooLarge
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if int64(buf.Len()) > limit {
		return nil, errBodyTooLarge
	}
	return buf.Bytes(), err
}

var errBodyTooLarge = errors.New("body too large")

// decode decodes data, the body of the 2xx answer resp, into out.
func (cl *call) decode(resp *http.Response, data []byte, out any) error {
	err := cl.decodeBody(data, out)
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
