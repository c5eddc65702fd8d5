package scribe

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
)

// Do sends one operation of the service that no method of the client covers
// yet, such as one newer than this SDK, as the typed methods send theirs:
// with the client's credential, headers, timeouts, retries, middlewares and
// hooks (Operation.Name "Do"), and opts for this call.
//
// method is an HTTP method in upper case (http.MethodGet). path is relative
// to the base URL, as every operation's path is: "/users/me" and "users/me"
// both send GET <base URL>/users/me. It may carry a query
// ("/transcripts?limit=5"); its elements are sent as written, so escape an
// element that holds "/" or "?" with url.PathEscape. An absolute URL, a
// fragment and "." or ".." elements are refused.
//
// A body other than nil is sent as JSON; a json.RawMessage is JSON already.
// A POST carries an Idempotency-Key, random or WithIdempotencyKey's, the
// same on every attempt, as the typed POST methods do, and is retried only
// with one; a GET, HEAD, PUT, DELETE or OPTIONS is retried as a GET is; any
// other method is never retried, since a replay could do its work twice.
//
// A 2xx body is decoded into out, which must be nil (the body is discarded)
// or a non-nil pointer, with the typed methods' decoding: a *Transcript is
// decoded as GetTranscript decodes it. Any other status is an *Error, as
// for any method. The Response describes the final answer, on success and on
// an error answer alike; it is nil when no answer came. Errors of a POST carry
// its key for IdempotencyKeyOf. Errors refusing the arguments are
// *ArgumentError values, returned before anything is sent.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...Option) (*Response, error) {
	r, err := doRequest(method, path, body, out)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, r, out, opts)
}

// doRequest checks Do's arguments and returns its request.
func doRequest(method, path string, body, out any) (request, error) {
	bad := func(arg, reason string) (request, error) {
		return request{}, &ArgumentError{Func: "Do", Arg: arg, Reason: reason}
	}
	if method == "" || strings.ContainsFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		return bad("method", fmt.Sprintf("is %q; want an HTTP method in upper case, such as http.MethodGet", method))
	}
	if out != nil {
		if v := reflect.ValueOf(out); v.Kind() != reflect.Pointer || v.IsNil() {
			return bad("out", fmt.Sprintf("is a %T; want nil or a non-nil pointer to decode the answer into", out))
		}
	}
	ref, err := url.Parse(path)
	switch {
	case strings.TrimLeft(path, "/") == "":
		return bad("path", "is empty; pass the operation's path below the base URL, such as /users/me")
	case err != nil:
		return bad("path", "is not a valid URL path; pass one such as /users/me")
	case ref.Scheme != "" || ref.Host != "" || ref.User != nil || strings.HasPrefix(path, "//"):
		return bad("path", "must be relative to the base URL, such as /users/me, not an absolute URL: the credential goes to the base URL's host only")
	case ref.Fragment != "" || strings.Contains(path, "#"):
		return bad("path", "must not carry a fragment")
	}
	escaped := "/" + strings.TrimPrefix(ref.EscapedPath(), "/")
	for elem := range strings.SplitSeq(escaped[1:], "/") {
		if elem == "." || elem == ".." {
			return bad("path", fmt.Sprintf("must not hold a %q element: name the operation's path below the base URL", elem))
		}
	}
	template, _, _ := strings.Cut(path, "?")
	return request{
		op:    Operation{Name: "Do", Method: method, PathTemplate: "/" + strings.TrimPrefix(template, "/")},
		path:  escaped,
		query: ref.RawQuery,
		body:  body,
	}, nil
}
