package scribetest

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// TestRouterAnswersAsTheMux protects the router's fast path (routes.go):
// every request, of the usual form or not, is answered exactly as the
// ServeMux behind canonicalPaths answers it (status, headers, body, request
// ids aside), with and without a base path, and the requests of the usual
// form do take the fast path.
func TestRouterAnswersAsTheMux(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"", "/v1"} {
		t.Run("base="+base, func(t *testing.T) {
			t.Parallel()
			clock := NewFakeClock(time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC))
			s, err := NewUnstartedServer(WithClock(clock), WithBasePath(base))
			if err != nil {
				t.Fatal(err)
			}
			dev, _ := s.CreateDeveloper(UserParams{FirstName: "Ada"})
			p, _ := s.CreatePlugin(dev.User.ID, PluginParams{Name: "p", Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
			key, _ := s.CreateSecretKey(p.ID, "")
			u, _ := s.CreateUser(UserParams{FirstName: "Grace"})
			in, _ := s.Install(p.ID, u.ID)
			tr, err := s.CreateTranscript(u.ID, TranscriptParams{Headline: "h"})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := auth.Mint(key.Key, in.UUID, clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			devAuth, instAuth := "Bearer "+dev.Key.Reveal(), "Bearer "+tok
			fast := s.Handler()
			rt := s.routes().(*router)
			slow := s.chain(rt.fallback)
			pid, tid := itoa(p.ID), itoa(tr.ID)

			type req struct {
				method, path, auth, body string
				fast                     bool // the router answers it itself
			}
			reqs := []req{
				{"GET", "/transcripts", instAuth, "", true},
				{"GET", "/transcripts?limit=1&after_id=0", instAuth, "", true},
				{"GET", "/transcripts?limit=0", instAuth, "", true},
				{"GET", "/transcripts/" + tid, instAuth, "", true},
				{"GET", "/transcripts/0" + tid, instAuth, "", true},
				{"GET", "/transcripts/0", instAuth, "", true},
				{"GET", "/transcripts/99999999999999999999", instAuth, "", true},
				{"GET", "/transcripts/12345", instAuth, "", true},
				{"GET", "/transcripts/" + tid, devAuth, "", true},
				{"GET", "/transcripts/" + tid, "", "", true},
				{"GET", "/users/me", instAuth, "", true},
				{"GET", "/plugins", devAuth, "", true},
				{"GET", "/plugins/" + pid, devAuth, "", true},
				{"GET", "/plugins/" + pid + "/installations", devAuth, "", true},
				{"GET", "/plugins/" + pid + "/webhooks", devAuth, "", true},
				{"POST", "/plugins", devAuth, `{"name":""}`, true},
				{"POST", "/plugins", devAuth, `{"nam":"x"}`, true},
				{"POST", "/plugins/" + pid + "/secret_keys", instAuth, `{}`, true},
				// not the usual form: the mux's answers
				{"HEAD", "/transcripts/" + tid, instAuth, "", false},
				{"PUT", "/plugins", devAuth, "", false},
				{"DELETE", "/plugins/" + pid, devAuth, "", false},
				{"POST", "/plugins/" + pid, devAuth, "", false},
				{"GET", "/plugins/" + pid + "/secret_keys", devAuth, "", false},
				{"GET", "/transcripts/", instAuth, "", false},
				{"GET", "/transcripts/abc", instAuth, "", false},
				{"GET", "/transcripts/-1", instAuth, "", false},
				{"GET", "/transcripts/%31", instAuth, "", false},
				{"GET", "/transcripts/1/", instAuth, "", false},
				{"GET", "/transcripts/./1", instAuth, "", false},
				{"GET", "//transcripts", instAuth, "", false},
				{"GET", "/plugins/" + pid + "/installations/", devAuth, "", false},
				{"GET", "/plugins/" + pid + "x/installations", devAuth, "", false},
				{"GET", "/plugins//installations", devAuth, "", false},
				{"GET", "/plugin", devAuth, "", false},
				{"GET", "/pluginsx", devAuth, "", false},
				{"GET", "/", devAuth, "", false},
			}
			ids := regexp.MustCompile(`req_[A-Z2-7]{26}`)
			for _, rq := range reqs {
				target := base + rq.path
				if rq.path == "/" || strings.HasPrefix(rq.path, "//") {
					target = rq.path
				}
				answer := func(h http.Handler) (int, http.Header, string) {
					r := httptest.NewRequest(rq.method, target, strings.NewReader(rq.body))
					if rq.body != "" {
						r.Header.Set("Content-Type", "application/json")
					}
					if rq.auth != "" {
						r.Header.Set("Authorization", rq.auth)
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					hdr := w.Result().Header
					hdr.Del("Request-Id")
					return w.Code, hdr, ids.ReplaceAllString(w.Body.String(), "req_X")
				}
				fs, fh, fb := answer(fast)
				ss, sh, sb := answer(slow)
				if fs != ss || fb != sb || !equalHeaders(fh, sh) {
					t.Errorf("%s %s: router answered %d %v %s\nthe mux answers %d %v %s", rq.method, target, fs, fh, fb, ss, sh, sb)
				}
				r := httptest.NewRequest(rq.method, target, nil)
				taken := false
				if r.Method == http.MethodGet || r.Method == http.MethodPost {
					for _, route := range rt.routes {
						if _, ok := route.match(r.URL.Path); ok && route.op.method == r.Method && r.URL.RawPath == "" {
							taken = true
						}
					}
				}
				if taken != rq.fast {
					t.Errorf("%s %s: fast path taken = %v, want %v", rq.method, target, taken, rq.fast)
				}
			}
		})
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, "\x00") != strings.Join(b[k], "\x00") {
			return false
		}
	}
	return true
}
