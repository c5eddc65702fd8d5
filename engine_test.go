package scribe_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
)

// TestRetryTakesAFreshToken protects that every retry asks the token source
// again: a token that expires during the backoff is not sent again.
func TestRetryTakesAFreshToken(t *testing.T) {
	t.Parallel()
	ts := &tokens{list: []string{"token.one.x", "token.two.x", "token.three.x"}}
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down"), connReset, ok(userJSON))
	if _, err := f.client(scribe.WithTokenSource(ts)).GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	var auths []string
	for _, r := range f.requests() {
		auths = append(auths, r.Header.Get("Authorization"))
	}
	want := []string{"Bearer token.one.x", "Bearer token.two.x", "Bearer token.three.x"}
	if diff := cmp.Diff(want, auths); diff != "" {
		t.Errorf("tokens sent (-want +got):\n%s", diff)
	}
}

// TestRetryBudgetSpansTokenRecovery protects that the 401 recovery, which
// sends the request once more, neither uses up a retry nor gives the call a
// second retry budget: with WithMaxRetries(2), 503, 401, 503, 503 is four
// attempts and the last 503 comes back.
func TestRetryBudgetSpansTokenRecovery(t *testing.T) {
	t.Parallel()
	ts := &tokens{list: []string{"token.one.x", "token.two.x"}}
	unavailable := problem(503, scribe.CodeServiceUnavailable, "down")
	f := newFake(t, unavailable, problem(401, scribe.CodeTokenExpired, "expired"), unavailable, unavailable, ok(userJSON))
	var resp scribe.Response
	_, err := f.client(scribe.WithTokenSource(ts), scribe.WithMaxRetries(2)).GetMe(context.Background(), scribe.WithResponseInto(&resp))
	var e *scribe.Error
	if !errors.As(err, &e) || e.StatusCode != 503 {
		t.Fatalf("err = %v, want the last 503", err)
	}
	if n := len(f.requests()); n != 4 {
		t.Errorf("sent %d requests, want 4", n)
	}
	if resp.Attempts != 4 {
		t.Errorf("Response.Attempts = %d, want 4", resp.Attempts)
	}
}

// idleCounter is a transport that counts CloseIdleConnections calls and
// fails every request as a dropped connection would.
type idleCounter struct{ closed atomic.Int32 }

func (c *idleCounter) RoundTrip(req *http.Request) (*http.Response, error) { return connReset(req) }
func (c *idleCounter) CloseIdleConnections()                               { c.closed.Add(1) }

// TestFailedCallKeepsSharedPool protects the connection pool that many
// scoped clients share: nothing the client does after a failed call closes
// the idle connections of the caller's transport (retry libraries such as
// go-retryablehttp do, on the HTTP client they are given).
func TestFailedCallKeepsSharedPool(t *testing.T) {
	t.Parallel()
	tr := &idleCounter{}
	c, err := scribe.NewClient(testBase, scribe.WithHTTPClient(&http.Client{Transport: tr}),
		scribe.WithDeveloperKey(testDeveloperKey), scribe.WithRetryWait(0, 0), scribe.WithMaxRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetMe(context.Background()); err == nil {
		t.Fatal("err = nil, want the connection error")
	}
	if n := tr.closed.Load(); n != 0 {
		t.Errorf("CloseIdleConnections reached the caller's transport %d times, want 0", n)
	}
}
