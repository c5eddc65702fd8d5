package scribetest_test

import (
	"testing"

	"github.com/scribehq/scribe-go/webhook"
)

// Trigger of installation.deleted makes its installation quietly: the one
// event is the installation.deleted, so no installation.created for that
// installation can reach the receiver after it, as one delivered beside it
// could (deliveries run in parallel).
func TestTriggerInstallationDeletedSendsNoCreated(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	rc := newReceiver(t, nil)
	e.hook(t, e.plugin.ID, rc.url())
	events, err := e.s.Trigger(e.plugin.ID, webhook.EventInstallationDeleted)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Type != webhook.EventInstallationDeleted {
		t.Fatalf("Trigger(installation.deleted) = %+v, want the installation.deleted alone", events)
	}
	e.s.RequireDelivered(t)
	got := rc.got()
	if len(got) != 1 || got[0].event.Type != webhook.EventInstallationDeleted {
		t.Fatalf("the receiver got %d deliveries, want the installation.deleted alone: %+v", len(got), got)
	}
	inst, err := got[0].event.Installation()
	if err != nil || inst.DeletedOn == nil || len(e.s.Installations(e.plugin.ID)) != 1 {
		t.Errorf("the event's installation = %+v, %v; want the one made, uninstalled", inst, err)
	}
}
