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
	ID   string            `json:"id"`   // its webhook-id, for RequireDelivered
	Type webhook.EventType `json:"type"` // such as webhook.EventTranscriptCreated
}

// Trigger makes the server emit an event of type typ to plugin pluginID's
// webhooks, as "stripe trigger" does, with real resources: a new user
// installs the plugin, then uninstalls it, or gets a sample transcript that
// is then edited. It returns the sequence's events. The plugin needs a webhook
// (and transcript permission "read", for transcript events).
func (s *Server) Trigger(pluginID int64, typ webhook.EventType) ([]TriggeredEvent, error) {
	if err := s.triggerable(pluginID, typ); err != nil {
		return nil, err
	}
	if len(s.Webhooks(pluginID)) == 0 {
		return nil, fmt.Errorf("scribetest: Trigger: plugin %d has no webhook to deliver to; create one first (CreateWebhook, or POST %swebhooks): %w", pluginID, AdminPathPrefix, ErrConflict)
	}

	// One transaction: its events are the sequence's, whatever else happens.
	events, err := change(s, "Trigger", func(tx *state.Tx) ([]webhook.Event, error) {
		user, err := tx.AddUser(scribe.User{FirstName: "Test", LastName: "User", EmailAddress: "test.user@example.com"}, "")
		if err != nil {
			return nil, err
		}
		inst, err := tx.Install(scribe.PluginInstallation{PluginID: pluginID, UserID: user.ID})
		if err != nil {
			return nil, err
		}
		switch typ {
		case webhook.EventInstallationDeleted:
			_, err = tx.Uninstall(inst.UUID)
		case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
			var t scribe.Transcript
			t, err = tx.AddTranscript(scribe.Transcript{User: scribe.TranscriptUser{ID: user.ID}, Headline: "Test call", Type: "phone_call",
				Text: "A sample transcript sent by Trigger.", Metadata: map[string]json.RawMessage{"triggered": json.RawMessage("true")}})
			if err == nil && typ == webhook.EventTranscriptUpdated {
				_, err = tx.UpdateTranscript(t.ID, func(t *scribe.Transcript) { t.Headline = "Test call (edited)" })
			}
		}
		return tx.Events(), err
	})
	if err != nil {
		return nil, err
	}
	out := make([]TriggeredEvent, len(events))
	for i, e := range events {
		out[i] = TriggeredEvent{ID: e.ID, Type: e.Type}
	}
	return out, nil
}

// triggerable checks what Trigger needs but a webhook.
func (s *Server) triggerable(pluginID int64, typ webhook.EventType) error {
	plugin, ok := s.st.Plugin(pluginID)
	if !ok {
		return fmt.Errorf("scribetest: Trigger: plugin %d: %w", pluginID, ErrNotFound)
	}
	transcript := typ == webhook.EventTranscriptCreated || typ == webhook.EventTranscriptUpdated
	switch {
	case !typ.Known():
		return fmt.Errorf("scribetest: Trigger: unknown event type %q; use %s, %s, %s or %s", typ,
			webhook.EventInstallationCreated, webhook.EventInstallationDeleted, webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated)
	case transcript && plugin.Permissions.Transcript != scribe.PermissionRead:
		return fmt.Errorf("scribetest: Trigger: plugin %d has transcript permission %q, so transcript events never reach its webhooks: %w",
			pluginID, plugin.Permissions.Transcript, ErrConflict)
	}
	return nil
}
