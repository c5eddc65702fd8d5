package scribe_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/scribehq/scribe-go"
)

// TestErrorDecoding protects how any non-2xx answer becomes an *Error: the
// problem fields from problem+json, a bounded excerpt of anything else.
func TestErrorDecoding(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 5<<20)
	tests := []struct {
		name     string
		answer   httpmock.Responder
		want     scribe.Error
		wantText []string // parts of Error()
	}{{
		name:   "problem+json",
		answer: problem(404, scribe.CodeNotFound, "transcript 42 does not exist"),
		want: scribe.Error{StatusCode: 404, Type: "about:blank", Title: "Not Found", Detail: "transcript 42 does not exist",
			Code: scribe.CodeNotFound, RequestID: "req_test", Method: "GET", Path: "/transcripts/42"},
		wantText: []string{"scribe: GET /transcripts/42: 404 Not Found (not_found): transcript 42 does not exist [request id req_test]"},
	}, {
		name:   "request id from the body when the header is missing",
		answer: respond(403, "application/problem+json", `{"title":"Forbidden","status":403,"code":"permission_denied","request_id":"req_body"}`, "Request-Id", ""),
		want: scribe.Error{StatusCode: 403, Title: "Forbidden", Code: scribe.CodePermissionDenied, RequestID: "req_body",
			Method: "GET", Path: "/transcripts/42"},
		wantText: []string{"403 Forbidden (permission_denied): Forbidden [request id req_body]", "permissions do not allow"},
	}, {
		name:     "plain text",
		answer:   respond(502, "text/plain", "upstream connect error\n"),
		want:     scribe.Error{StatusCode: 502, RequestID: "req_test", Method: "GET", Path: "/transcripts/42", Body: "upstream connect error"},
		wantText: []string{`502 Bad Gateway: body "upstream connect error"`, "retry later"},
	}, {
		name:     "empty body",
		answer:   respond(500, "", ""),
		want:     scribe.Error{StatusCode: 500, RequestID: "req_test", Method: "GET", Path: "/transcripts/42"},
		wantText: []string{"500 Internal Server Error [request id req_test]"},
	}, {
		name:   "huge body",
		answer: respond(400, "text/html", huge),
		want: scribe.Error{StatusCode: 400, RequestID: "req_test", Method: "GET", Path: "/transcripts/42",
			Body: strings.Repeat("x", 512)},
	}, {
		name:   "JSON that is not a problem document",
		answer: respond(400, "application/json", `[1,2,3]`),
		want:   scribe.Error{StatusCode: 400, RequestID: "req_test", Method: "GET", Path: "/transcripts/42", Body: "[1,2,3]"},
	}, {
		name:   "rate limited with Retry-After beyond the cap",
		answer: problem(429, scribe.CodeRateLimited, "100 requests per minute", "Retry-After", "90"),
		want: scribe.Error{StatusCode: 429, Type: "about:blank", Title: "Too Many Requests", Detail: "100 requests per minute",
			Code: scribe.CodeRateLimited, RequestID: "req_test", RetryAfter: 90 * time.Second, Method: "GET", Path: "/transcripts/42"},
		wantText: []string{"retry after 1m30s"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.answer)
			_, err := f.client(scribe.WithMaxRetries(0)).GetTranscript(context.Background(), 42)
			var e *scribe.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *scribe.Error", err, err)
			}
			if diff := cmp.Diff(&tt.want, e); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			for _, part := range tt.wantText {
				if !strings.Contains(e.Error(), part) {
					t.Errorf("Error() = %q\nwant it to contain %q", e.Error(), part)
				}
			}
		})
	}
}

// TestErrorIs protects the sentinels: each matches its status only.
func TestErrorIs(t *testing.T) {
	t.Parallel()
	sentinels := map[error]int{scribe.ErrUnauthorized: 401, scribe.ErrForbidden: 403, scribe.ErrNotFound: 404, scribe.ErrRateLimited: 429}
	for _, status := range []int{400, 401, 403, 404, 429, 500} {
		e := &scribe.Error{StatusCode: status}
		for sentinel, want := range sentinels {
			if got := errors.Is(e, sentinel); got != (status == want) {
				t.Errorf("errors.Is(%d, %v) = %v", status, sentinel, got)
			}
		}
	}
}

// TestErrorNeverLeaksCredentials protects that a credential the service (or
// a proxy) echoes back never reaches an error message.
func TestErrorNeverLeaksCredentials(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJwbHVnaW5faW5zdGFsbGF0aW9uX3V1aWQiOiJ4In0.c2lnbmF0dXJl"
	echo := func(status int, ct string) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			auth := req.Header.Get("Authorization")
			body := "refused: " + auth + " (also ask_live_abcdefghijklmnop and whsec_abcdefghij)"
			if ct == "application/problem+json" {
				body = `{"title":"Unauthorized","detail":"refused ` + auth + `","code":"invalid_token"}`
			}
			return respond(status, ct, body)(req)
		}
	}
	for _, ct := range []string{"text/plain", "application/problem+json"} {
		for name, opt := range map[string]scribe.Option{
			"developer key": scribe.WithDeveloperKey(testDeveloperKey),
			"jwt":           scribe.WithTokenSource(plainTokens{jwt}),
		} {
			f := newFake(t, echo(401, ct))
			_, err := f.client(opt).GetMe(context.Background())
			if err == nil {
				t.Fatal("err = nil")
			}
			msg := err.Error()
			for _, secret := range []string{testDevKey, jwt, "abcdefghijklmnop", "whsec_abcdefghij"} {
				if strings.Contains(msg, secret) {
					t.Errorf("%s, %s: error %q leaks %q", name, ct, msg, secret)
				}
			}
			if !strings.Contains(msg, "[REDACTED]") {
				t.Errorf("%s, %s: error %q: want the redaction marker in place of the secret", name, ct, msg)
			}
		}
	}
}

// TestDecodeError protects that a malformed 2xx body is a *DecodeError that
// names the operation and carries no part of the body.
func TestDecodeError(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(`{"id":"ask_live_notanumberSECRET"`))
	_, err := f.client().CreatePluginSecretKey(context.Background(), 100, nil)
	var de *scribe.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want *scribe.DecodeError", err, err)
	}
	if de.Method != "POST" || de.Path != "/plugins/100/secret_keys" || de.StatusCode != 200 || de.RequestID != "req_test" {
		t.Errorf("DecodeError = %+v", de)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("err = %q leaks the body", err)
	}
}

// TestErrorHints protects that the message adds what to do, once: not when
// the service's detail says it already.
func TestErrorHints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    scribe.Error
		want string
	}{
		{scribe.Error{StatusCode: 403, Code: scribe.CodeWrongTokenKind, Method: "GET", Path: "/plugins", Detail: "wrong kind"},
			"scribe: GET /plugins: 403 Forbidden (wrong_token_kind): wrong kind; this operation takes a developer key"},
		{scribe.Error{StatusCode: 403, Code: scribe.CodeWrongTokenKind, Method: "GET", Path: "/users/me", Detail: "this operation takes an installation JWT"},
			"scribe: GET /users/me: 403 Forbidden (wrong_token_kind): this operation takes an installation JWT"},
		{scribe.Error{StatusCode: 401, Code: scribe.CodeTokenExpired, Method: "GET", Path: "/transcripts", RequestID: "r1"},
			"scribe: GET /transcripts: 401 Unauthorized (token_expired) [request id r1]; mint a new installation token (package auth's token sources refresh ahead of expiry)"},
		{scribe.Error{StatusCode: 400, Code: scribe.CodeInvalidParameter, Method: "GET", Path: "/plugins", Detail: "limit must be 1 to 100"},
			"scribe: GET /plugins: 400 Bad Request (invalid_parameter): limit must be 1 to 100"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q\nwant      %q", got, tt.want)
		}
	}
}

// TestCodesCoverTheContract protects that a caller can compare every code
// the service sends (api/openapi.yaml lists them in the problem document's
// code) with a Code constant, and that no constant names a code the
// contract does not have. The reference server answers with the constants.
func TestCodesCoverTheContract(t *testing.T) {
	t.Parallel()
	spec, err := os.ReadFile("api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(spec), "A stable snake_case machine name:")
	list, _, _ = strings.Cut(list, ". New codes may be added")
	var want []string
	for _, code := range strings.Split(list, ",") {
		want = append(want, strings.TrimSpace(code))
	}
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if strings.HasPrefix(vs.Names[0].Name, "Code") {
				got = append(got, strings.Trim(vs.Values[0].(*ast.BasicLit).Value, `"`))
			}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) < 20 || !slices.Equal(want, got) {
		t.Errorf("Code constants %v,\nthe contract's codes %v", got, want)
	}
}
