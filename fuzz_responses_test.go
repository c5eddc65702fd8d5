package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go"
)

// credentialShaped finds what looks like a credential in an answer's body:
// neither an error that quotes the body nor a printed result may hold one.
var credentialShaped = regexp.MustCompile(`(ask_live_|dk_live_|whsec_)[A-Za-z0-9_+/=-]{8,}|eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)

const fuzzJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.c2lnbmF0dXJlLWZ1enotMDEyMzQ1Njc4OQ"

// FuzzResponses holds the client to its promise on any answer a server, or
// something between it and the client, can give one of the nine operations:
// it never panics; an error is one of the documented types (*Error,
// *DecodeError, *ResponseInterruptedError, *ResponseTooLargeError, or a
// page that would stall the walk, ErrPaginationStalled); a status outside
// 2xx is never a success; neither the error nor the printed result carries
// the credentials sent or a credential-shaped string of the answer (a
// secret key's value, a webhook's signing secret); and, with retries off,
// one request is sent (two for a walk past an empty page).
//
//	go test -run '^$' -fuzz FuzzResponses -fuzztime 2m .
func FuzzResponses(f *testing.F) {
	for i, op := range operations {
		f.Add(uint8(i), uint16(200), "application/json", op.answer)
		f.Add(uint8(i), uint16(200), "application/json", `null`)
		f.Add(uint8(i), uint16(404), "application/problem+json",
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"gone","code":"not_found","request_id":"req_test"}`)
		if op.list {
			f.Add(uint8(i), uint16(200), "application/json", page(true, 0))                       // walked past once, then stalled
			f.Add(uint8(i), uint16(200), "application/json", page(true, 2, op.answer, op.answer)) // the walk would stall
		}
	}
	for _, seed := range []struct {
		status      uint16
		ctype, body string
	}{
		{429, "application/problem+json", `{"status":429,"code":"rate_limited"}`}, {409, "", ""}, {302, "", ""}, {204, "", ""},
		{200, "application/json; charset=utf-16", userJSON}, {500, "application/json", `{"error":"` + testDevKey + `"}`},
		{400, "application/problem+json", `{"status":400,"code":"invalid_parameter","detail":"bad key ask_live_c2VjcmV0LWtleS1mb3ItZnV6emluZy0wMTIz"}`},
		{502, "text/plain", "upstream said: Bearer " + fuzzJWT},
	} {
		f.Add(uint8(2), seed.status, seed.ctype, seed.body)
	}
	f.Fuzz(func(t *testing.T, opIndex uint8, status uint16, ctype, body string) {
		st := int(status)
		if st < 200 || st > 599 {
			st = 200 + st%400
		}
		op := operations[int(opIndex)%len(operations)]
		fk := newFake(t, respond(st, ctype, body))
		got, err := op.call(context.Background(), fk.client(scribe.WithTokenSource(plainTokens{fuzzJWT}), scribe.WithMaxRetries(0)))
		// One request, but for a list whose answer is an empty page that
		// says more follow: the walk asks again, and stops stalled at the
		// second (retries are off, so nothing else repeats a request).
		want := 1
		if op.list {
			want = 2
		}
		if n := len(fk.requests()); n > want {
			t.Fatalf("%s, answer %d %q: %d requests sent, want at most %d", op.name, st, body, n, want)
		}
		var (
			apiErr  *scribe.Error
			decErr  *scribe.DecodeError
			cutErr  *scribe.ResponseInterruptedError
			sizeErr *scribe.ResponseTooLargeError
		)
		printed := ""
		switch {
		case err == nil && (st < 200 || st > 299):
			t.Fatalf("%s: answer %d %q was taken as a success: %+v", op.name, st, body, got)
		case err == nil:
			printed = fmt.Sprintf("%v %+v %#v", got, got, got)
		case !errors.As(err, &apiErr) && !errors.As(err, &decErr) && !errors.As(err, &cutErr) && !errors.As(err, &sizeErr) &&
			!errors.Is(err, scribe.ErrPaginationStalled):
			t.Fatalf("%s: answer %d %q: error of an undocumented type %T: %v", op.name, st, body, err, err)
		default:
			printed = err.Error() + fmt.Sprintf(" %v %+v", err, err)
		}
		for _, s := range append(credentialShaped.FindAllString(body, -1), testDevKey, fuzzJWT) {
			if len(s) >= 16 && strings.Contains(printed, s) {
				t.Fatalf("%s: answer %d %q: printed %q carries the secret %q", op.name, st, body, printed, s)
			}
		}
	})
}
