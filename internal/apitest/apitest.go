// Package apitest holds HTTP traffic to the service contract in
// api/openapi.yaml, so that the client, the reference server and the test
// fixtures of either cannot drift from it.
//
// A test builds a [Validator] with [NewValidator] and puts it where the
// traffic flows:
//
//   - on the client side, [Validator.Transport] wraps an http.RoundTripper (the
//     real network, an httptest server, or an httpmock transport): every
//     request the client sends must conform, and every response must conform
//     to what the contract says the operation answers;
//   - on the server side, [Validator.Handler] wraps an http.Handler: every
//     response must conform, and a request the contract forbids must not be
//     answered with a 2xx;
//   - [Validator.ValidateResponse], [Validator.ValidateRequest] and
//     [Validator.ValidateWebhook] check one message directly.
//
// Mismatches are reported through the test's Errorf, with the method, path,
// status, operation and the validation error; secrets in the message are
// redacted. A test that sends a non-conforming request on purpose (to see the
// 400, 401, 404, 405 or 415) marks its context with [AllowInvalidRequest].
//
// The harness is stricter than a client must be: a response status the
// operation does not declare fails (there is no "default" response), and an
// object in a response may not carry members the contract does not name
// (clients ignore unknown members for forward compatibility, but the service
// of this interface version must not send them).
//
// Paths are matched relative to the server's base path. Given one with
// [Validator.WithBasePath], a request outside it names no operation (the
// server must answer 404). Without one, leading segments that are not the
// first segment of a contract path (such as /v1 or /api/v1) are skipped. A
// path with a trailing slash names no operation either: /transcripts/ is not
// /transcripts.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/scribehq/scribe-go/internal/redact"
)

// Validator checks HTTP messages against api/openapi.yaml and reports
// mismatches to the test it was made for. It is safe for concurrent use.
type Validator struct {
	t    testing.TB
	spec *spec
	base string // the server's base path, "" to skip unknown leading segments
}

// NewValidator returns a Validator that reports to t. The contract is parsed
// once per process and shared; a contract that does not load fails t at once.
func NewValidator(t testing.TB) *Validator {
	t.Helper()
	s, err := loadSpec()
	if err != nil {
		t.Fatalf("apitest: api/openapi.yaml does not load: %v", err)
		return nil
	}
	return &Validator{t: t, spec: s}
}

// WithBasePath returns a copy of v that matches request paths below base
// (such as "/v1"), the path of the server's base URL. A request outside it
// names no operation, so the server must answer it 404. Without a base path,
// v skips leading segments that no contract path starts with.
func (v *Validator) WithBasePath(base string) *Validator {
	c := *v
	c.base = strings.TrimSuffix(base, "/")
	return &c
}

type allowInvalidKey struct{}

// AllowInvalidRequest returns a copy of ctx marking the requests made with it
// as deliberately outside the contract, such as a limit of 0, a missing
// Authorization header or an unknown path. The Transport does not report such
// a request; it still checks the response, and reports a 2xx answer, because
// the service must refuse what the contract forbids.
func AllowInvalidRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, allowInvalidKey{}, true)
}

func invalidAllowed(ctx context.Context) bool {
	allowed, _ := ctx.Value(allowInvalidKey{}).(bool)
	return allowed
}

// Transport returns an http.RoundTripper that sends each request through base
// (http.DefaultTransport when nil) and checks the request and the response
// against the contract, reporting every mismatch with t.Errorf. The response
// body is read in full and restored, so the caller reads it as usual. HEAD
// requests pass unchecked.
func (v *Validator) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{v: v, base: base}
}

type transport struct {
	v    *Validator
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodHead {
		return tr.base.RoundTrip(req)
	}
	out, reqBody, err := bufferRequest(req)
	if err != nil {
		return nil, err
	}
	resp, err := tr.base.RoundTrip(out)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		// Hand the caller what arrived and the same read error; there is no
		// whole response to check.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	tr.v.check(out, reqBody, resp.StatusCode, resp.Header, body, !invalidAllowed(req.Context()))
	return resp, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// bufferRequest reads req's body and returns a copy of req whose body replays
// it, as the body a RoundTripper is given must be consumed and closed.
func bufferRequest(req *http.Request) (*http.Request, []byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil, nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("apitest: reading the request body: %w", err)
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	return out, body, nil
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
}

// Handler returns an http.Handler that serves each request with next and
// checks the response against the contract, reporting every mismatch with
// t.Errorf. It also reports a 2xx answer to a request the contract forbids;
// other mismatches of the request itself are not reported, since on the
// server side they are the client's doing. The response is buffered, so next
// cannot stream or hijack.
func (v *Validator) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqBody []byte
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(r.Body)
			_ = r.Body.Close()
			if err != nil {
				http.Error(w, "apitest: reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			reqBody = b
			setBody(r, b)
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		if r.Method != http.MethodHead {
			v.check(r, reqBody, rec.Code, rec.Header(), rec.Body.Bytes(), false)
		}
	})
}

// ValidateResponse checks a response to req against the contract: that the
// operation declares its status, that the declared headers (Request-Id on
// every response) are present and well formed, that the content type and the
// body match the declared schema, and that a problem document's request_id
// equals the Request-Id header. body is the response body, read in full;
// resp.Body is not touched.
func (v *Validator) ValidateResponse(req *http.Request, resp *http.Response, body []byte) error {
	m := v.spec.match(req, v.base)
	return v.spec.validateResponse(req, m, resp.StatusCode, resp.Header, body)
}

// ValidateRequest checks a request against the contract: that the path and
// method name an operation, the parameters, the Authorization header the
// operation requires (its presence and Bearer form, not the token itself),
// and the body. The body is read and restored.
func (v *Validator) ValidateRequest(req *http.Request) error {
	body, err := readAndRestore(req)
	if err != nil {
		return err
	}
	m := v.spec.match(req, v.base)
	return v.spec.validateRequest(req, body, m)
}

// ValidateWebhook checks a webhook delivery against the webhooks section of
// the contract: the event kind named by the body's "type", the webhook-id,
// webhook-timestamp and webhook-signature headers, the content type, and the
// event envelope with its resource. body is the request body, read in full;
// req.Body is not touched. The signature itself is not verified.
func (v *Validator) ValidateWebhook(req *http.Request, body []byte) error {
	var envelope struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return fmt.Errorf("apitest: webhook body is not a JSON event: %w", err)
	}
	item := v.spec.doc.Webhooks[envelope.Type]
	if item == nil || item.Post == nil {
		return fmt.Errorf("apitest: webhook event type %q is not in the contract", envelope.Type)
	}
	if req.Method != http.MethodPost {
		return fmt.Errorf("apitest: webhook delivered with %s, want POST", req.Method)
	}
	r := req.Clone(context.WithoutCancel(req.Context()))
	setBody(r, body)
	route := &routers.Route{Spec: v.spec.doc, Path: envelope.Type, PathItem: item, Method: http.MethodPost, Operation: item.Post}
	err := openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
		Request: r, Route: route, Options: v.spec.options,
	})
	if err != nil {
		return fmt.Errorf("apitest: webhook %s does not conform to api/openapi.yaml: %s", envelope.Type, redact.Text(err.Error()))
	}
	return nil
}

func readAndRestore(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("apitest: reading the request body: %w", err)
	}
	setBody(req, body)
	return body, nil
}

// check validates one exchange and reports what is wrong with it.
// reportRequest says whether a non-conforming request is itself a failure.
func (v *Validator) check(req *http.Request, reqBody []byte, status int, header http.Header, body []byte, reportRequest bool) {
	s := v.spec
	m := s.match(req, v.base)
	where := fmt.Sprintf("%s %s -> %d (%s)", req.Method, req.URL.RequestURI(), status, m.name())
	reqErr := s.validateRequest(req, reqBody, m)
	switch {
	case reqErr != nil && reportRequest:
		v.t.Errorf("apitest: %s: the request does not conform to api/openapi.yaml: %v", where, reqErr)
	case reqErr != nil && status >= 200 && status < 300:
		v.t.Errorf("apitest: %s: the service accepted a request that api/openapi.yaml forbids (%v); it must answer 4xx", where, reqErr)
	}
	if err := s.validateResponse(req, m, status, header, body); err != nil {
		v.t.Errorf("apitest: %s: the response does not conform to api/openapi.yaml: %v", where, err)
	}
}
