package scribe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// testBase carries a path prefix, so that a request built from an absolute
// path instead of the base URL fails the tests.
const testBase = "https://api.example.test/v1"

// testDevKey is the developer key of the tests, and testDeveloperKey the
// same parsed, for WithDeveloperKey.
const testDevKey = "dk_live_0123456789abcdefTESTKEY"

var testDeveloperKey = mustDeveloperKey(testDevKey)

func mustDeveloperKey(s string) auth.DeveloperKey {
	k, err := auth.ParseDeveloperKey(s)
	if err != nil {
		panic(err) // a test's own constant
	}
	return k
}

// recorded is what the fake service saw of one request.
type recorded struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

// fake is a scripted service behind an httpmock transport: it records every
// request and answers with the next responder of its script, repeating the
// last one when the script runs out.
type fake struct {
	t      *testing.T
	mt     http.RoundTripper // the transport to send through: records, then mock answers
	mock   *httpmock.MockTransport
	mu     sync.Mutex
	reqs   []recorded
	script []httpmock.Responder
}

func newFake(t *testing.T, script ...httpmock.Responder) *fake {
	t.Helper()
	f := &fake{t: t, mock: httpmock.NewMockTransport(), script: script}
	f.mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		return req.Context().Value(responderKey{}).(httpmock.Responder)(req)
	})
	f.mt = recordFirst{f}
	return f
}

// responderKey carries the responder recordFirst chose to the mock.
type responderKey struct{}

// recordFirst records each request on the sender's goroutine before the mock
// sees it. httpmock runs the responder on a goroutine of its own and, when
// the request's context ends first (an attempt timeout, a cancellation),
// returns at once without waiting for it: a request recorded by the
// responder could be recorded only after the call that sent it had
// returned, and a test would count too few attempts.
type recordFirst struct{ f *fake }

func (rf recordFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		_ = req.Body.Close()
	}
	r := rf.f.record(req, body)
	out := req.Clone(context.WithValue(req.Context(), responderKey{}, r))
	if req.Body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
	}
	return rf.f.mock.RoundTrip(out)
}

// record appends req to the log and returns the responder that answers it.
func (f *fake) record(req *http.Request, body []byte) httpmock.Responder {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, recorded{
		Method: req.Method,
		Path:   req.URL.Path,
		Query:  req.URL.RawQuery,
		Header: req.Header.Clone(),
		Body:   string(body),
	})
	var r httpmock.Responder
	switch {
	case len(f.script) == 0:
		r = respond(500, "text/plain", "fake: no script")
	case n < len(f.script):
		r = f.script[n]
	default:
		r = f.script[len(f.script)-1]
	}
	f.mu.Unlock()
	return r
}

// requests returns a copy of what was recorded so far.
func (f *fake) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// client returns a client wired to the fake, with a developer key and
// immediate retries; opts come after (and so override) those.
func (f *fake) client(opts ...scribe.Option) *scribe.Client {
	f.t.Helper()
	base := []scribe.Option{
		scribe.WithHTTPClient(&http.Client{Transport: f.mt}),
		scribe.WithDeveloperKey(testDeveloperKey),
		scribe.WithRetryWait(0, 0),
	}
	c, err := scribe.NewClient(testBase, append(base, opts...)...)
	if err != nil {
		f.t.Fatalf("NewClient: %v", err)
	}
	return c
}

// respond answers with status, Content-Type ct (if not empty), a Request-Id
// and body; extra holds more header name/value pairs.
func respond(status int, ct, body string, extra ...string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		if ct != "" {
			resp.Header.Set("Content-Type", ct)
		}
		resp.Header.Set("Request-Id", "req_test")
		for i := 0; i+1 < len(extra); i += 2 {
			resp.Header.Set(extra[i], extra[i+1])
		}
		resp.Request = req
		return resp, nil
	}
}

// ok answers 200 with a JSON body.
func ok(body string) httpmock.Responder { return respond(200, "application/json", body) }

// problem answers status with a problem document of the given code.
func problem(status int, code, detail string, extra ...string) httpmock.Responder {
	return respond(status, "application/problem+json",
		`{"type":"about:blank","title":"`+http.StatusText(status)+`","status":`+itoa(status)+
			`,"detail":"`+detail+`","code":"`+code+`","request_id":"req_body"}`, extra...)
}

// connReset fails the attempt as a dropped connection would.
func connReset(*http.Request) (*http.Response, error) {
	return nil, errors.New("read tcp 127.0.0.1:1234: connection reset by peer")
}

func itoa(n int) string { return strconv.Itoa(n) }

// page renders a list envelope around the JSON items.
func page(hasMore bool, total int, items ...string) string {
	hm := "false"
	if hasMore {
		hm = "true"
	}
	return `{"has_more":` + hm + `,"total_count":` + itoa(total) + `,"data":[` + strings.Join(items, ",") + `]}`
}

// tokens is a TokenSource handing out its tokens in order (repeating the
// last) and recording what was invalidated.
type tokens struct {
	mu          sync.Mutex
	list        []string
	n           int
	invalidated []string
	err         error
}

func (s *tokens) Token(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return "", s.err
	}
	t := s.list[min(s.n, len(s.list)-1)]
	s.n++
	return t, nil
}

func (s *tokens) Invalidate(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.invalidated = append(s.invalidated, tok)
}

// plainTokens is a TokenSource that cannot invalidate.
type plainTokens struct{ tok string }

func (p plainTokens) Token(context.Context) (string, error) { return p.tok, nil }
