package transport

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestNoRedirectsGuard protects the transport's second line against
// redirects: when net/http follows a redirect anyway (a CheckRedirect put
// back on the client NoRedirects returned), the redirected request is
// refused before it is sent, so its target never sees it.
func TestNoRedirectsGuard(t *testing.T) {
	var reached atomic.Bool
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Store(true) }))
	defer evil.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	hc := NoRedirects(&http.Client{})
	hc.CheckRedirect = nil // net/http's default: follow
	resp, err := hc.Get(origin.URL)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrRedirect) {
		t.Errorf("err = %v, want ErrRedirect", err)
	}
	if reached.Load() {
		t.Error("the redirect target was reached")
	}
}
