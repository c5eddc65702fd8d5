package scribetest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	scribe "github.com/scribehq/scribe-go"
)

// Server benchmarks, each beside its baseline; docs/performance.md records
// the figures and the command. The index alone is BenchmarkPage
// (internal_test.go); these measure whole requests.

// BenchmarkAuthenticateJWTCached is the per-request cost of an installation
// JWT the server has verified before: hash the token, look it up, re-check
// time, keys, installation and plugin against the store.
func BenchmarkAuthenticateJWTCached(b *testing.B) {
	f := newJWTFixture(b)
	if _, p := f.s.authenticateJWT(f.token); p != nil {
		b.Fatal(p)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, p := f.s.authenticateJWT(f.token); p != nil {
			b.Fatal(p)
		}
	}
}

// BenchmarkAuthenticateJWTFull is the baseline: what every request cost
// before the cache, and what a token's first request costs still (the full
// verification by package auth, the store lookup, parsing the plugin's
// keys).
func BenchmarkAuthenticateJWTFull(b *testing.B) {
	f := newJWTFixture(b)
	h := tokenHash(f.token)
	b.ReportAllocs()
	for b.Loop() {
		c, p := f.s.verifyJWT(f.token, h)
		if p == nil {
			_, p = installationPrincipal(c)
		}
		if p != nil {
			b.Fatal(p)
		}
	}
}

// pageServer is a server whose installation's user owns n transcripts,
// seeded straight into the store (the seeding calls would emit an event
// each), and a request for a page of 20 from the middle of them.
func pageServer(b *testing.B, n int) (*Server, *http.Request) {
	b.Helper()
	f := newJWTFixture(b)
	user := f.s.Installations(1)[0].UserID
	now := f.clock.Now()
	st := f.s.st
	st.mu.Lock()
	for id := int64(1); id <= int64(n); id++ {
		st.transcripts.add(id, user, &scribe.Transcript{
			ID: id, Headline: "Weekly sync", Text: "Line one.", Type: "meeting", CreatedOn: now,
			Metadata: map[string]json.RawMessage{},
			User:     scribe.TranscriptUser{ID: user, FirstName: "Grace"},
			Job:      scribe.TranscriptJob{ID: id, Lines: 1},
			Audio:    scribe.TranscriptAudio{ID: id, LengthInSeconds: 42, CreatedOn: now},
		})
	}
	// The plugin of newJWTFixture may read users only; let it read transcripts.
	for _, p := range st.plugins.rows {
		p.Permissions.Transcript = scribe.PermissionRead
	}
	st.mu.Unlock()
	r := httptest.NewRequest(http.MethodGet, "/transcripts?limit=20&after_id="+strconv.Itoa(n/2), nil)
	r.Header.Set("Authorization", "Bearer "+f.token)
	return f.s, r
}

// BenchmarkListPage is one GET /transcripts request through the server's
// handler (middleware, cached JWT, page, JSON) for a page of 20 from the
// middle of 10^3 and of 10^6 transcripts in scope: the two must cost about
// the same (target: within 1.5x).
func BenchmarkListPage(b *testing.B) {
	for _, n := range []struct {
		name  string
		items int
	}{{"items=1e3", 1_000}, {"items=1e6", 1_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			s, r := pageServer(b, n.items)
			h := s.Handler()
			check := httptest.NewRecorder()
			h.ServeHTTP(check, r)
			var page struct {
				Data       []json.RawMessage `json:"data"`
				TotalCount int               `json:"total_count"`
			}
			if err := json.Unmarshal(check.Body.Bytes(), &page); check.Code != 200 || err != nil || len(page.Data) != 20 || page.TotalCount != n.items {
				b.Fatalf("status %d, %d items of %d (%v): %.200s", check.Code, len(page.Data), page.TotalCount, err, check.Body.String())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// loopbackClient is an HTTP client that keeps enough idle connections for
// b.RunParallel's goroutines.
func loopbackClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	return &http.Client{Transport: tr}
}

// runLoopback sends GET url with auth from parallel goroutines over
// keep-alive connections and reports requests per second.
func runLoopback(b *testing.B, url, auth string) {
	hc := loopbackClient()
	defer hc.CloseIdleConnections()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
			r.Header.Set("Authorization", auth)
			resp, err := hc.Do(r)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// loopbackTarget is a started server with one transcript, the URL to get it
// and the installation's Authorization header.
func loopbackTarget(b *testing.B) (s *Server, url, auth string) {
	f := newJWTFixture(b)
	user := f.s.Installations(1)[0].UserID
	if _, err := f.s.CreateTranscript(user, TranscriptParams{Headline: "Weekly sync", Text: "Line one.", Type: "meeting"}); err != nil {
		b.Fatal(err)
	}
	f.s.st.mu.Lock()
	for _, p := range f.s.st.plugins.rows {
		p.Permissions.Transcript = scribe.PermissionRead
	}
	f.s.st.mu.Unlock()
	if err := f.s.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(f.s.Close)
	return f.s, f.s.URL() + "/transcripts/1", "Bearer " + f.token
}

// BenchmarkServerLoopback is GET /transcripts/{id} against the started
// server over real TCP on loopback, keep-alive, from parallel clients: the
// whole request (middleware, request log, cached JWT, store, JSON).
func BenchmarkServerLoopback(b *testing.B) {
	_, url, auth := loopbackTarget(b)
	runLoopback(b, url, auth)
}

// BenchmarkBaselineLoopback is the floor of BenchmarkServerLoopback: a
// minimal net/http handler answering the same bytes and headers the server
// answers, over the same kind of connection and client.
func BenchmarkBaselineLoopback(b *testing.B) {
	_, url, auth := loopbackTarget(b)
	resp, err := loopbackClient().Do(func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, url, nil)
		r.Header.Set("Authorization", auth)
		return r
	}())
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	header := resp.Header.Clone()
	header.Del("Date")
	header.Del("Content-Length")
	floor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}))
	defer floor.Close()
	runLoopback(b, floor.URL+"/transcripts/1", auth)
}
