package scribe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/scribehq/scribe-go"
)

// TestAuthorizationFollowsToken protects that every request carries the
// token its credential gave for it, when tokens rotate; that a client
// derived by WithOptions sends its own credential's token, not that of the
// client it was derived from; and that a call refuses a credential of its
// own, sending nothing, and leaves the client's in place.
func TestAuthorizationFollowsToken(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(transcriptJSON))
	}))
	defer srv.Close()

	ts := &tokens{list: []string{"tok-a", "tok-a", "tok-b", "tok-a", "tok-b"}}
	c, err := scribe.NewClient(srv.URL+"/v1", scribe.WithHTTPClient(srv.Client()), scribe.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 4 {
		if _, err := c.GetTranscript(ctx, 42); err != nil {
			t.Fatal(err)
		}
	}
	other, err := c.WithOptions(scribe.WithTokenSource(&tokens{list: []string{"tok-c"}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetTranscript(ctx, 42); err != nil {
		t.Fatal(err)
	}
	// A per-call credential is refused, then the client's own is sent.
	var ae *scribe.ArgumentError
	if _, err := c.GetTranscript(ctx, 42, scribe.WithDeveloperKey(testDeveloperKey)); !errors.As(err, &ae) || ae.Func != "WithDeveloperKey" {
		t.Fatalf("a per-call WithDeveloperKey: err = %v, want its *ArgumentError", err)
	}
	if _, err := c.GetTranscript(ctx, 42); err != nil {
		t.Fatal(err)
	}
	want := []string{"Bearer tok-a", "Bearer tok-a", "Bearer tok-b", "Bearer tok-a", "Bearer tok-c", "Bearer tok-b"}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("server saw %d requests, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: Authorization %q, want %q", i, got[i], want[i])
		}
	}
}
