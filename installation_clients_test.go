package scribe_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/internal/keygen"
)

const (
	uuidA = "0b6d2c6e-8f1a-4c3e-9a55-2f0e7c1d9b01"
	uuidB = "5a4f3e2d-1c0b-4a98-8765-43210fedcba9"
)

// countingTransport counts the requests that pass through it.
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

// bearerUUID verifies the request's bearer token with key and returns the
// installation uuid it names.
func bearerUUID(t *testing.T, key auth.SecretKey, h http.Header) string {
	t.Helper()
	tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	if !ok {
		t.Fatalf("Authorization = %q, want a bearer token", h.Get("Authorization"))
	}
	claims, err := jwtverify.New(time.Now, jwtverify.DefaultLeeway).Verify(tok, key)
	if err != nil {
		t.Fatalf("the client sent a token that does not verify: %v", err)
	}
	return claims.InstallationUUID
}

// TestNewInstallationClient protects that the convenience constructor sends a
// valid installation JWT for the installation it was given.
func TestNewInstallationClient(t *testing.T) {
	key, err := keygen.SecretKey()
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, ok(`{"id":8,"first_name":"Grace","last_name":"Hopper","email_address":"grace@example.com"}`))
	c, err := scribe.NewInstallationClient(testBase, key, uuidA,
		scribe.WithHTTPClient(&http.Client{Transport: f.mt}),
		scribe.WithDeveloperKey(testDeveloperKey)) // replaced by the installation's token
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := bearerUUID(t, key, f.requests()[0].Header); got != uuidA {
		t.Errorf("token names installation %q, want %q", got, uuidA)
	}
}

// TestInstallationClientArguments protects that a zero key or a malformed
// uuid is refused up front, by NewInstallationClient and by
// InstallationClients.For, with an *ArgumentError naming the argument, as
// NewClient refuses its own, that still matches auth's sentinel.
func TestInstallationClientArguments(t *testing.T) {
	key := mustSecretKey("ask_live_c2VjcmV0LW1hdGVyaWFsLXRoYXQtbXVzdC1ub3QtbGVhaw")
	cache, err := auth.NewCache(key)
	if err != nil {
		t.Fatal(err)
	}
	ics, err := scribe.NewInstallationClients(testBase, cache)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		err      error
		wantFunc string
		wantArg  string
		sentinel error
	}{
		{"zero key", second(scribe.NewInstallationClient(testBase, auth.SecretKey{}, uuidA)), "NewInstallationClient", "key", auth.ErrInvalidKey},
		{"bad uuid", second(scribe.NewInstallationClient(testBase, key, "not-a-uuid")), "NewInstallationClient", "installationUUID", auth.ErrInvalidInstallationUUID},
		{"For, bad uuid", second(ics.For("not-a-uuid")), "InstallationClients.For", "installationUUID", auth.ErrInvalidInstallationUUID},
	}
	for _, tt := range tests {
		var ae *scribe.ArgumentError
		if !errors.As(tt.err, &ae) || ae.Func != tt.wantFunc || ae.Arg != tt.wantArg || !errors.Is(tt.err, tt.sentinel) {
			t.Errorf("%s: err = %#v, want a %s *ArgumentError for %s matching %v", tt.name, tt.err, tt.wantFunc, tt.wantArg, tt.sentinel)
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

// TestInstallationClientsShareTransport protects the many-installations
// pattern: each client carries its own installation's token, and all of them
// send through the one transport given at construction.
func TestInstallationClientsShareTransport(t *testing.T) {
	key, _ := keygen.SecretKey()
	f := newFake(t, ok(`{"id":8,"first_name":"","last_name":"","email_address":""}`))
	shared := &countingTransport{base: f.mt}
	cache, err := auth.NewCache(key)
	if err != nil {
		t.Fatal(err)
	}
	ic, err := scribe.NewInstallationClients(testBase, cache, scribe.WithHTTPClient(&http.Client{Transport: shared}))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{uuidA, uuidB, uuidA} {
		c, err := ic.For(u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetMe(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.requests()
	if shared.n.Load() != 3 || len(reqs) != 3 {
		t.Fatalf("shared transport saw %d requests, fake %d; want 3 and 3", shared.n.Load(), len(reqs))
	}
	for i, want := range []string{uuidA, uuidB, uuidA} {
		if got := bearerUUID(t, key, reqs[i].Header); got != want {
			t.Errorf("request %d: token names %q, want %q", i, got, want)
		}
	}
	if reqs[0].Header.Get("Authorization") != reqs[2].Header.Get("Authorization") {
		t.Error("the second client for installation A minted a new token; want the cached one")
	}
}

// TestInstallationClientsNilCache protects the typed error for a nil cache.
func TestInstallationClientsNilCache(t *testing.T) {
	_, err := scribe.NewInstallationClients(testBase, nil)
	var ae *scribe.ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *scribe.ArgumentError", err)
	}
}

// TestInstallationClientsForget: Forget drops one installation's cached token
// source (and token) and leaves the others; a later For for it starts afresh.
func TestInstallationClientsForget(t *testing.T) {
	key, _ := keygen.SecretKey()
	cache, err := auth.NewCache(key)
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, ok(`{"id":8,"first_name":"","last_name":"","email_address":""}`))
	ic, err := scribe.NewInstallationClients(testBase, cache, scribe.WithHTTPClient(&http.Client{Transport: f.mt}))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{uuidA, uuidB} {
		c, err := ic.For(u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetMe(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if cache.Len() != 2 {
		t.Fatalf("cache holds %d installations, want 2", cache.Len())
	}
	ic.Forget(uuidA)
	if cache.Len() != 1 {
		t.Errorf("after Forget(A) the cache holds %d installations, want 1 (B)", cache.Len())
	}
	ic.Forget(uuidA)                                             // twice: nothing to do
	ic.Forget("not-a-uuid")                                      // unknown: ignored
	if _, err := ic.For(uuidA); err != nil || cache.Len() != 2 { // a later For starts afresh
		t.Errorf("For(A) after Forget: %v, cache holds %d; want A back", err, cache.Len())
	}
}
