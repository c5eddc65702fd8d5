package scribetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// CheckOption configures CheckReceiver; a bad value stops the test with
// t.Fatal. The zero CheckOption does nothing.
type CheckOption struct {
	apply func(*checkConfig) error
}

// checkConfig is the configuration of the check the options set.
type checkConfig = receivercheck.Config

// WithReceiverTimeout sets how long the receiver has to answer a valid
// delivery: by default 15 s, the service's delivery timeout. It must not be
// negative; zero keeps the default.
func WithReceiverTimeout(d time.Duration) CheckOption {
	return CheckOption{func(cfg *checkConfig) error { cfg.Timeout = d; return nil }}
}

// WithProcessedCount makes CheckReceiver also assert exactly-once
// processing: count reports how many times the receiver's function ran for
// an event id (EventCounter.Count does), and each event that should be
// processed must have run once, through redeliveries and concurrent
// deliveries, and each forged, tampered or stale one never. count is read
// once a delivery has been answered, so it suits a receiver that processes
// an event before it answers, such as one built on webhook.NewHandler.
func WithProcessedCount(count func(eventID string) int) CheckOption {
	return CheckOption{checked(refuse(count == nil, "WithProcessedCount: count is nil"), func(cfg *checkConfig) { cfg.Processed = count })}
}

// WithServer makes CheckReceiver's events name resources of s, as
// "scribe-server check-receiver -server" does: for each event it makes on s,
// emitting no event, a user, that user's installation of plugin pluginID and
// a transcript (an uninstalled installation for installation.deleted), and
// the event names them. A receiver that calls s back with the plugin's
// secret key (GET /users/me, GET /transcripts/{id}) then gets real answers,
// and its calls, read from s's request log by installation, show which
// events it processed: the check fails a receiver that processes a
// redelivery or a concurrent duplicate again, or acts on a delivery it
// refused, and a rule where the receiver made no call is "not checked".
// When the check ends, it removes the users it made with their
// installations and transcripts (DeleteUser), so the plugin's
// installations are what they were before. WithProcessedCount, when given
// too, counts exactly instead of by calls. The deliveries are signed on s's
// clock (s.Clock()), so a receiver that verifies with s.WebhookVerifier on a
// FakeClock sees them fresh.
func WithServer(s *Server, pluginID int64) CheckOption {
	return CheckOption{checked(refuse(s == nil, "WithServer: the server is nil"), func(cfg *checkConfig) {
		cfg.Server, cfg.Now = checkScenes{s, pluginID}, s.cfg.clock.Now
	})}
}

// WithEventTypes chooses the event types the redelivery and concurrent
// rules deliver, each in turn, as "check-receiver -event" does: by default
// one the receiver called the server back for (WithServer), else
// transcript.updated and transcript.created. Each must be a type the
// service sends, or CheckReceiver stops the test.
func WithEventTypes(types ...webhook.EventType) CheckOption {
	return CheckOption{func(cfg *checkConfig) error { cfg.EventTypes = append(cfg.EventTypes, types...); return nil }}
}

// WithRequireChecked makes CheckReceiver fail the test on every rule whose
// processing it could not check (a "not checked" rule, such as redelivery
// without WithServer or WithProcessedCount), as
// "check-receiver -require-checked" does.
func WithRequireChecked() CheckOption {
	return CheckOption{func(cfg *checkConfig) error { cfg.RequireChecked = true; return nil }}
}

// checkScenes makes the receiver check's scenes on a Server and reads the
// receiver's calls back.
type checkScenes struct {
	s      *Server
	plugin int64
}

func (c checkScenes) NewScene(_ context.Context, uninstalled bool) (scribe.PluginInstallation, scribe.Transcript, error) {
	return c.s.CreateScene(c.plugin, uninstalled)
}

func (c checkScenes) RemoveScene(_ context.Context, userID int64) error {
	return c.s.DeleteUser(userID)
}

func (c checkScenes) Calls(_ context.Context, uuid string) ([]receivercheck.Call, error) {
	var calls []receivercheck.Call
	for _, r := range c.s.Requests() {
		if r.Installation == uuid {
			calls = append(calls, receivercheck.Call{Method: r.Method, Path: r.Path, Status: r.Status, Code: r.Code})
		}
	}
	return calls, nil
}

// CreateScene makes, emitting no event (so that the plugin's webhooks get
// nothing), what one event of the receiver check names (WithServer, and
// the dev server's POST /_scribetest/scenes): a user, that user's
// installation of plugin pluginID and one transcript of the user; with
// uninstalled, the installation is then uninstalled. DeleteUser with the
// installation's UserID removes it all again.
func (s *Server) CreateScene(pluginID int64, uninstalled bool) (in scribe.PluginInstallation, tr scribe.Transcript, err error) {
	err = s.st.Update(func(tx *state.Tx) (err error) {
		t := receivercheck.SceneTranscript(s.cfg.clock.Now())
		if in, tr, err = scene(tx, pluginID, receivercheck.SceneUser(), &t); err == nil && uninstalled {
			in, err = tx.Uninstall(in.UUID)
		}
		tr = state.CloneTranscript(tr)
		return err
	})
	if err != nil {
		return scribe.PluginInstallation{}, scribe.Transcript{}, fmt.Errorf("scribetest: the receiver check's scene: %w", err)
	}
	return in, tr, nil
}

// CheckReceiver checks the webhook receiver at url against the delivery
// rules the service relies on, as "scribe-server check-receiver" does from
// the command line (docs/webhooks.md, "Check your receiver"). It sends the
// receiver real deliveries of every event type signed with secret, and
// forged, tampered, stale, repeated and concurrent ones, then fails t with
// t.Error once per rule the receiver broke, saying what was sent, what came
// back and why it matters; it logs how processing is checked, the rules kept
// or not checked (see WithServer; WithRequireChecked fails those), and a
// summary. Without WithServer or WithProcessedCount, whether the receiver
// processes a redelivery or a concurrent duplicate twice is not checked. It
// stops t with t.Fatal if url is not an absolute http:// or https:// URL,
// secret is the zero secret, or an option is invalid.
//
// The receiver may run in the test's process (an httptest.Server) or
// anywhere else, in any language; the check never prints secret.
func CheckReceiver(t testing.TB, url string, secret auth.WebhookSecret, opts ...CheckOption) {
	t.Helper()
	cfg := checkConfig{URL: url, Secret: secret}
	for _, opt := range opts {
		if opt.apply == nil {
			continue
		}
		if err := opt.apply(&cfg); err != nil {
			t.Fatalf("scribetest: CheckReceiver: %v", err)
		}
	}
	note := receivercheck.Note(cfg)
	sum, err := receivercheck.Run(t.Context(), cfg, func(r receivercheck.Result) {
		if note != "" { // once the configuration is known to be usable
			t.Logf("scribetest: CheckReceiver: %s", note)
			note = ""
		}
		if r.Passed || r.NotChecked {
			t.Log(r)
		} else {
			t.Error(r)
		}
	})
	if err != nil {
		t.Fatalf("scribetest: CheckReceiver: %v", err)
	}
	t.Logf("scribetest: CheckReceiver: %s", sum)
}

// EventCounter counts how many times a receiver's function ran for each
// event id, for CheckReceiver's exactly-once assertion: wrap the function
// you give webhook.NewHandler with Wrap, and pass Count to
// WithProcessedCount. The zero EventCounter is ready to use; it is safe for
// concurrent use.
type EventCounter struct {
	runs sync.Map // event id: *atomic.Int64
}

// Wrap returns a function that counts a run of the event's id, then calls fn.
func (c *EventCounter) Wrap(fn func(context.Context, *webhook.Event) error) func(context.Context, *webhook.Event) error {
	return func(ctx context.Context, e *webhook.Event) error {
		n, _ := c.runs.LoadOrStore(e.ID, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return fn(ctx, e)
	}
}

// Count returns how many times the wrapped function ran for the event id.
func (c *EventCounter) Count(eventID string) int {
	if n, ok := c.runs.Load(eventID); ok {
		return int(n.(*atomic.Int64).Load())
	}
	return 0
}
