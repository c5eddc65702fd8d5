package redisdedupe_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/scribehq/scribe-go/webhook"
)

// TestRestart protects what the package doc says of persistence: with the
// append-only file (appendonly yes, appendfsync always), a redis-server
// killed with SIGKILL and started again remembers every processed id, and
// no completed event delivered again runs again; without persistence it
// forgets them all, and every one runs again.
func TestRestart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		runAgain bool
	}{
		{"appendonly", []string{"--appendonly", "yes", "--appendfsync", "always"}, false},
		{"no persistence", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRedis(t, tc.args...)
			var runs atomic.Int32
			r := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return nil })
			const events = 50
			for i := range events {
				if c := r.deliver(fmt.Sprintf("evt_%d", i)).Code; c != http.StatusOK {
					t.Fatalf("event %d: status %d", i, c)
				}
			}
			if n, err := srv.client().DBSize(context.Background()).Result(); n != events || err != nil {
				t.Fatalf("%d keys (%v) before the restart, want %d", n, err, events)
			}

			srv.kill()
			srv.start()
			for i := range events {
				if c := r.deliver(fmt.Sprintf("evt_%d", i)).Code; c != http.StatusOK {
					t.Fatalf("event %d delivered again: status %d", i, c)
				}
			}
			want := int32(events)
			if tc.runAgain {
				want = 2 * events
			}
			if runs.Load() != want {
				t.Errorf("%d runs of %d events delivered twice around a restart, want %d", runs.Load(), events, want)
			}
		})
	}
}
