package scribetest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// TestEvents: Events pages the kept events newest first, each with one
// delivery per webhook in the webhooks' order, its attempts oldest first
// and whether it is pending, with the next attempt's time while it waits
// for a retry; an event too large to send shows its one attempt numbered
// 0, settled; an event of a plugin without webhooks has no delivery.
func TestEvents(t *testing.T) {
	t.Parallel()
	e := newHookEnvWith(t, scribetest.WithWebhookSchedule(0, time.Hour))
	ok, down := newReceiver(t, nil), newReceiver(t, status(http.StatusServiceUnavailable))
	okHook, downHook := e.hook(t, e.plugin.ID, ok.url()), e.hook(t, e.plugin.ID, down.url())
	lonely := e.newPlugin(t, scribe.PermissionNone) // no webhook
	if _, err := e.s.Install(lonely.ID, e.user.ID); err != nil {
		t.Fatal(err)
	}
	inst, err := e.s.Install(e.plugin.ID, e.user.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Text: strings.Repeat("x", scribetest.MaxEventBytes)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first attempts", func() bool { return len(e.s.Deliveries()) == 4 }, attemptsSeen(e.s))

	page, kept := e.s.Events(0, 2)
	if kept != 3 || len(page) != 2 {
		t.Fatalf("Events(0, 2) = %d events of %d kept; want 2 of 3", len(page), kept)
	}
	large, installed := page[0], page[1]
	if installed.InstallationUUID != inst.UUID || len(installed.Deliveries) != 2 {
		t.Fatalf("the second newest event = %+v; want the installation's, with two deliveries", installed)
	}
	delivered, retrying := installed.Deliveries[0], installed.Deliveries[1]
	if delivered.WebhookID != okHook.ID || delivered.Pending || len(delivered.Attempts) != 1 || !delivered.Attempts[0].Delivered {
		t.Errorf("the delivery to the receiver that answers = %+v; want settled, one attempt delivered", delivered)
	}
	if retrying.WebhookID != downHook.ID || !retrying.Pending || !retrying.NextAttempt.After(e.clock.Now()) ||
		len(retrying.Attempts) != 1 || retrying.Attempts[0].StatusCode != http.StatusServiceUnavailable {
		t.Errorf("the delivery to the receiver that is down = %+v; want pending, its retry due, one 503", retrying)
	}
	if len(large.Deliveries) != 2 || large.Deliveries[0].Pending || len(large.Deliveries[0].Attempts) != 1 ||
		large.Deliveries[0].Attempts[0].Attempt != 0 || !strings.Contains(large.Deliveries[0].Attempts[0].Error, "MaxEventBytes") {
		t.Errorf("the event too large to send = %+v; want each webhook's one attempt 0, settled", large)
	}
	if older, _ := e.s.Events(2, 20); len(older) != 1 || older[0].Deliveries != nil {
		t.Errorf("Events(2, 20) = %+v; want the oldest event, of the plugin without webhooks, with no delivery", older)
	}
	if none, kept := e.s.Events(0, 0); none != nil || kept != 3 {
		t.Errorf("Events(0, 0) = %v, %d; want none of 3", none, kept)
	}
}
