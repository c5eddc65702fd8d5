package scribetest

import (
	"encoding/json"
	"fmt"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// TriggeredEvent is an event Trigger made the server emit.
type TriggeredEvent struct {
	// ID is the event's id, its webhook-id: pass it to RequireDelivered.
	ID string
	// Type is the event's type.
	Type webhook.EventType
}

// Trigger makes the server emit an event of type typ to the webhooks of plugin
// pluginID, as "stripe trigger" does: it creates real resources with the
// seeding calls, so the event's data is a resource the API serves. A new user
// "Test User" installs the plugin (installation.created); for
// installation.deleted the installation is made without an event and then
// uninstalled, so that installation.deleted is the only event (an
// installation.created delivered beside it could arrive after it); for
// transcript.created the user gets a sample transcript, which
// transcript.updated then edits. Every event of the sequence is delivered,
// signed and retried like any other, and returned, in order; events that other
// calls emit meanwhile are not among them. The plugin needs a webhook, and for
// transcript events transcript permission "read"; the error says what is
// missing.
func (s *Server) Trigger(pluginID int64, typ webhook.EventType) ([]TriggeredEvent, error) {
	if err := s.CanTrigger(pluginID, typ); err != nil {
		return nil, err
	}
	if len(s.Webhooks(pluginID)) == 0 {
		return nil, fmt.Errorf("scribetest: Trigger: plugin %d has no webhook to deliver to; create one first (CreateWebhook, or POST /_scribetest/webhooks): %w", pluginID, ErrConflict)
	}

	// One transaction: its events are the sequence's, whatever else happens.
	return change(s, "Trigger", func(tx *state.Tx) ([]TriggeredEvent, error) {
		var t *scribe.Transcript
		if typ == webhook.EventTranscriptCreated || typ == webhook.EventTranscriptUpdated {
			t = &scribe.Transcript{Headline: "Test call", Type: "phone_call",
				Text: "A sample transcript sent by Trigger.", Metadata: map[string]json.RawMessage{"triggered": json.RawMessage("true")}}
		}
		inst, tr, err := scene(tx, pluginID, scribe.User{FirstName: "Test", LastName: "User", EmailAddress: "test.user@example.com"}, t)
		switch {
		case err != nil:
		case typ == webhook.EventInstallationDeleted:
			// Installed quietly: an installation.created delivered beside
			// the installation.deleted could reach the receiver after it.
			tx.DropEvents()
			_, err = tx.Uninstall(inst.UUID)
		case typ == webhook.EventTranscriptUpdated:
			_, err = tx.UpdateTranscript(tr.ID, func(t *scribe.Transcript) { t.Headline = "Test call (edited)" })
		}
		out := make([]TriggeredEvent, len(tx.Events()))
		for i, e := range tx.Events() {
			out[i] = TriggeredEvent{ID: e.ID, Type: e.Type}
		}
		return out, err
	})
}

// CanTrigger returns the error Trigger would return for pluginID and typ
// if the plugin had a webhook, or nil: it checks the plugin and the type
// before a webhook is made for Trigger, as the dev server's POST
// /_scribetest/trigger does with a uri.
func (s *Server) CanTrigger(pluginID int64, typ webhook.EventType) error {
	plugin, ok := s.st.Plugin(pluginID)
	transcript := typ == webhook.EventTranscriptCreated || typ == webhook.EventTranscriptUpdated
	switch {
	case !ok:
		return fmt.Errorf("scribetest: Trigger: plugin %d: %w", pluginID, ErrNotFound)
	case !typ.Known():
		return fmt.Errorf("scribetest: Trigger: unknown event type %q; use %s, %s, %s or %s", typ,
			webhook.EventInstallationCreated, webhook.EventInstallationDeleted, webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated)
	case transcript && plugin.Permissions.Transcript != scribe.PermissionRead:
		return fmt.Errorf("scribetest: Trigger: plugin %d has transcript permission %q, so transcript events never reach its webhooks: %w",
			pluginID, plugin.Permissions.Transcript, ErrConflict)
	}
	return nil
}

// scene adds in tx a user u, their installation of plugin pluginID and, if
// t is not nil, t as their transcript: what an event of Trigger or of the
// receiver check (CreateScene) names.
func scene(tx *state.Tx, pluginID int64, u scribe.User, t *scribe.Transcript) (in scribe.PluginInstallation, tr scribe.Transcript, err error) {
	if u, err = tx.AddUser(u, ""); err == nil {
		in, err = tx.Install(scribe.PluginInstallation{PluginID: pluginID, UserID: u.ID})
	}
	if err == nil && t != nil {
		t.User.ID = u.ID
		tr, err = tx.AddTranscript(*t)
	}
	return in, tr, err
}
