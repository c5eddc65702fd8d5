package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go"
)

// answer is a RoundTripper that gives every request the same answer.
type answer struct {
	status       int
	contentType  string
	body         string
	requestCount int
}

func (a *answer) RoundTrip(r *http.Request) (*http.Response, error) {
	a.requestCount++
	h := http.Header{"Request-Id": {"req_fuzz"}}
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	return &http.Response{StatusCode: a.status, Status: fmt.Sprint(a.status), Header: h, ContentLength: -1,
		Body: io.NopCloser(strings.NewReader(a.body)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// credentialShaped finds what looks like a credential in an answer's body:
// an error that quotes the body must not quote one.
var credentialShaped = regexp.MustCompile(`(ask_live_|dk_live_|whsec_)[A-Za-z0-9_+/=-]{8,}|eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)

const fuzzJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.c2lnbmF0dXJlLWZ1enotMDEyMzQ1Njc4OQ"

// FuzzResponses holds the client to its promise on any answer a server, or
// something between it and the client, can give an operation: it never
// panics; an error is one of the documented types (*Error, *DecodeError,
// *ResponseInterruptedError, *ResponseTooLargeError, or a page that would
// stall the walk, ErrPaginationStalled); a status outside 2xx
// is never a success; neither the error nor the printed result carries the
// developer key, the installation token, or a secret the answer held (a
// secret key's value, a webhook's signing secret); and one request is sent
// (retries are off, so a retry would be a second).
//
//	go test -run '^$' -fuzz FuzzResponses -fuzztime 2m .
func FuzzResponses(f *testing.F) {
	plugin := `{"id":1,"name":"P","description":"","permissions":{"user":"read","transcript":"none"},"published":false,"disabled":false,"crm_integration_id":null,"logo_uri":"","user_id":7,"created_on":"2026-11-01T09:00:00Z","updated_on":"2026-11-01T09:00:00Z"}`
	key := `{"id":1,"description":"","value":"ask_live_c2VjcmV0LWtleS1mb3ItZnV6emluZy0wMTIz","plugin_id":1,"created_on":"2026-11-01T09:00:00Z","updated_on":"2026-11-01T09:00:00Z"}`
	hook := `{"id":1,"plugin_id":1,"uri":"https://e.com/h","signing_secret":"whsec_c2lnbmluZy1zZWNyZXQtZnV6emluZy0wMTI=","created_on":"2026-11-01T09:00:00Z","updated_on":"2026-11-01T09:00:00Z"}`
	problem := `{"type":"about:blank","title":"Not Found","status":404,"detail":"there is no transcript 1","code":"not_found","request_id":"req_fuzz"}`
	for _, seed := range []struct {
		op          uint8
		status      uint16
		ctype, body string
	}{
		{0, 200, "application/json", userJSON}, {0, 200, "application/json", `null`}, {0, 200, "application/json", `{}`},
		{1, 404, "application/problem+json", problem}, {1, 404, "text/html", "<html>"}, {2, 200, "application/json", plugin},
		{3, 201, "application/json", plugin}, {4, 200, "application/json", key}, {4, 200, "application/json", `{"value":"ask_live_` + strings.Repeat("x", 40)},
		{5, 200, "application/json", `{"has_more":false,"total_count":0,"data":[]}`}, {6, 200, "application/json", `{"has_more":true,"total_count":1,"data":[` + plugin + `]}`},
		{7, 200, "application/json", `{"has_more":false,"total_count":1,"data":[` + hook + `]}`},
		{6, 200, "application/json", `{"has_more":true,"total_count":2,"data":[` + plugin + `,` + plugin + `]}`}, {8, 200, "application/json", `{"has_more":false,"total_count":1,"data":[{}]}`},
		{0, 429, "application/problem+json", `{"status":429,"code":"rate_limited"}`}, {3, 409, "", ""}, {0, 302, "", ""}, {0, 204, "", ""},
		{0, 200, "application/json; charset=utf-16", userJSON}, {0, 500, "application/json", `{"error":"` + testDevKey + `"}`},
		{2, 400, "application/problem+json", `{"status":400,"code":"invalid_parameter","detail":"bad key ask_live_c2VjcmV0LWtleS1mb3ItZnV6emluZy0wMTIz"}`},
		{0, 502, "text/plain", "upstream said: Bearer " + fuzzJWT},
	} {
		f.Add(seed.op, seed.status, seed.ctype, seed.body)
	}
	f.Fuzz(func(t *testing.T, op uint8, status uint16, ctype, body string) {
		st := int(status)
		if st < 200 || st > 599 {
			st = 200 + st%400
		}
		a := &answer{status: st, contentType: ctype, body: body}
		hc := &http.Client{Transport: a}
		dev, err := scribe.NewClient("https://scribe.test/v1", scribe.WithDeveloperKey(testDevKey), scribe.WithHTTPClient(hc), scribe.WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		inst := dev.WithOptions(scribe.WithTokenSource(plainTokens{fuzzJWT}))
		ctx := context.Background()
		var got any
		var secrets []string
		switch op % 9 {
		case 0:
			got, err = inst.GetMe(ctx)
		case 1:
			got, err = inst.GetTranscript(ctx, 1)
		case 2:
			got, err = dev.GetPlugin(ctx, 1)
		case 3:
			got, err = dev.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "P"})
		case 4:
			var k *scribe.PluginSecretKey
			k, err = dev.CreatePluginSecretKey(ctx, 1, nil)
			if err == nil {
				got, secrets = k, append(secrets, k.Value.Reveal())
			}
		case 5:
			got, err = inst.ListTranscripts(ctx, nil).Next()
		case 6:
			got, err = dev.ListPlugins(ctx, nil).Next()
		case 7:
			var p *scribe.Page[scribe.Webhook]
			p, err = dev.ListWebhooks(ctx, 1, nil).Next()
			if err == nil {
				got = p
				for _, h := range p.Data {
					secrets = append(secrets, h.SigningSecret.Reveal())
				}
			}
		case 8:
			got, err = dev.ListPluginInstallations(ctx, 1, nil).Next()
		}
		if a.requestCount != 1 {
			t.Fatalf("op %d, answer %d %q: %d requests sent, want 1", op%9, a.status, body, a.requestCount)
		}
		var (
			apiErr  *scribe.Error
			decErr  *scribe.DecodeError
			cutErr  *scribe.ResponseInterruptedError
			sizeErr *scribe.ResponseTooLargeError
		)
		printed := ""
		switch {
		case err == nil && (a.status < 200 || a.status > 299):
			t.Fatalf("op %d: answer %d %q was taken as a success: %+v", op%9, a.status, body, got)
		case err == nil:
			printed = fmt.Sprintf("%v %+v %#v", got, got, got)
		case !errors.As(err, &apiErr) && !errors.As(err, &decErr) && !errors.As(err, &cutErr) && !errors.As(err, &sizeErr) &&
			!errors.Is(err, scribe.ErrPaginationStalled):
			t.Fatalf("op %d: answer %d %q: error of an undocumented type %T: %v", op%9, a.status, body, err, err)
		default:
			printed = err.Error() + fmt.Sprintf(" %v %+v", err, err)
		}
		secrets = append(secrets, credentialShaped.FindAllString(body, -1)...)
		for _, s := range append(secrets, testDevKey, fuzzJWT) {
			if len(s) >= 16 && strings.Contains(printed, s) {
				t.Fatalf("op %d: answer %d %q: printed %q carries the secret %q", op%9, a.status, body, printed, s)
			}
		}
	})
}
