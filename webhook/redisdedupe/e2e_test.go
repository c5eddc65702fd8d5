package redisdedupe_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// TestReplicasBehindOneURL: the reference server delivers to three receiver
// replicas behind one URL (a round-robin reverse proxy), sharing one Redis.
// One replica is slower than the server's delivery timeout, so the server
// retries, and the retries land on the other replicas. Every event is
// handled exactly once, and RequireDelivered passes.
func TestReplicasBehindOneURL(t *testing.T) {
	rds := startRedis(t)
	const timeout = 300 * time.Millisecond
	srv := scribetest.NewTestServer(t, scribetest.WithWebhookTimeout(timeout),
		scribetest.WithWebhookSchedule(0, 100*time.Millisecond, 400*time.Millisecond, 800*time.Millisecond, 1600*time.Millisecond, 3200*time.Millisecond),
		scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	dev, err := srv.CreateDeveloper(scribe.User{FirstName: "Ada"})
	must(t, err)
	plugin, err := srv.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	must(t, err)

	var mu sync.Mutex
	handled := map[string]int{}
	fn := func(slow bool) func(context.Context, *webhook.Event) error {
		return func(_ context.Context, e *webhook.Event) error {
			if slow {
				time.Sleep(3 * timeout) // the server gives up on this attempt
			}
			mu.Lock()
			defer mu.Unlock()
			handled[e.ID]++
			return nil
		}
	}
	var targets []*url.URL
	var proxied sync.Mutex
	lb := &httputil.ReverseProxy{ErrorLog: log.New(io.Discard, "", 0)} // the slow replica's cut attempts
	var next atomic.Int64
	lb.Rewrite = func(r *httputil.ProxyRequest) {
		proxied.Lock()
		u := targets[next.Add(1)%int64(len(targets))]
		proxied.Unlock()
		r.SetURL(u)
	}
	front := httptest.NewServer(lb)
	t.Cleanup(front.Close)
	hook, err := srv.CreateWebhook(plugin.ID, front.URL+"/hook")
	must(t, err)
	v, err := srv.WebhookVerifier(hook)
	must(t, err)
	for i := range 3 {
		h := mustHandler(t, v, fn(i == 0), webhook.WithLogger(nil),
			webhook.WithDedupeStore(newStore(t, rds.client(), redisdedupe.WithKeyPrefix(prefix(t)))))
		replica := httptest.NewServer(h)
		t.Cleanup(replica.Close)
		u, _ := url.Parse(replica.URL)
		proxied.Lock()
		targets = append(targets, u)
		proxied.Unlock()
	}

	for i := range 4 {
		user, err := srv.CreateUser(scribe.User{FirstName: "Grace"})
		must(t, err)
		_, err = srv.Install(plugin.ID, user.ID)
		must(t, err)
		_, err = srv.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Standup " + string(rune('A'+i)), Type: "meeting", Text: "Hello."})
		must(t, err)
	}
	attempts := srv.RequireDelivered(t)
	time.Sleep(3 * timeout) // let a slow run that the server gave up on finish
	events := map[string]bool{}
	retried := false
	for _, a := range attempts {
		events[a.EventID] = true
		retried = retried || a.Attempt > 1
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 8 || len(handled) != len(events) {
		t.Errorf("%d events emitted, %d handled, want 8 and 8", len(events), len(handled))
	}
	for id, n := range handled {
		if n != 1 {
			t.Errorf("event %s handled %d times, want once", id, n)
		}
	}
	if !retried {
		t.Error("no delivery was retried: the slow replica did not slow anything down")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
