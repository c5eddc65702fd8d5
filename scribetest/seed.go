package scribetest

import (
	"encoding/json"
	"fmt"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// UserParams describes a user to create.
type UserParams struct {
	ID                  int64  // zero: the next free id; a chosen one is free and at most 2^53-1
	FirstName, LastName string // "" allowed
	EmailAddress        string // a bare address; "": "user<id>@example.com"
}

// Developer is a user with a developer key, as CreateDeveloper returns it.
type Developer struct {
	User scribe.User       // its ID is the developerID CreatePlugin takes
	Key  auth.DeveloperKey // for DeveloperClient; it prints redacted
}

// SecretKey is a plugin secret key as CreateSecretKey returns it.
type SecretKey struct {
	scribe.PluginSecretKey                // as POST /plugins/{id}/secret_keys answers it
	Key                    auth.SecretKey // the same key for package auth; it prints redacted
}

// PluginParams describes a plugin to create.
type PluginParams struct {
	ID               int64              // zero: the next free id; as UserParams.ID
	Name             string             // required: 1 to 100 characters
	Description      string             // free text, at most 1000 characters
	Permissions      scribe.Permissions // a zero level is scribe.PermissionNone
	Published        bool               // already published, which POST /plugins cannot do
	Disabled         bool               // its JWTs answer 403 plugin_disabled until EnablePlugin
	CRMIntegrationID *int64             // nil for none, otherwise positive
	LogoURI          string             // an absolute http or https URL, or "" for none
}

// TranscriptParams describes a transcript to create.
type TranscriptParams struct {
	ID                   int64                  // zero: the next free id, as UserParams.ID
	Headline, Text, Type string                 // Type is free text, such as "dictation"
	Metadata             map[string]any         // each value encoded as JSON; nil means {}
	Job                  scribe.TranscriptJob   // a zero Job.ID is generated
	Audio                scribe.TranscriptAudio // a zero ID is generated; a zero CreatedOn is CreatedOn
	CreatedOn            time.Time              // zero: now by the server's clock; stored in UTC
}

// change makes a seeding call's change in one state transaction.
func change[T any](s *Server, call string, fn func(tx *state.Tx) (T, error)) (T, error) {
	out, err := state.Write(s.st, fn)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("scribetest: %s: %w", call, err)
	}
	return out, nil
}

// chosenID checks an id a seeding call was given (0: assign one).
func chosenID(call, field string, id int64) error {
	if err := state.CheckChosenID(id); err != nil {
		return fmt.Errorf("scribetest: %s: %s %w", call, field, err)
	}
	return nil
}

// CreateUser creates a platform user, who installs plugins and owns transcripts.
func (s *Server) CreateUser(p UserParams) (scribe.User, error) {
	return s.addUser("CreateUser", p, "")
}

// addUser checks p and adds the user, a developer when devKey is not empty.
func (s *Server) addUser(call string, p UserParams, devKey string) (scribe.User, error) {
	if err := chosenID(call, "ID", p.ID); err != nil {
		return scribe.User{}, err
	}
	if p.EmailAddress != "" {
		if err := state.ValidateEmail(p.EmailAddress); err != nil {
			return scribe.User{}, fmt.Errorf("scribetest: %s: EmailAddress %w", call, err)
		}
	}
	return change(s, call, func(tx *state.Tx) (scribe.User, error) {
		return tx.AddUser(scribe.User{ID: p.ID, FirstName: p.FirstName, LastName: p.LastName, EmailAddress: p.EmailAddress}, devKey)
	})
}

// CreateDeveloper creates a user with a fresh developer key.
func (s *Server) CreateDeveloper(p UserParams) (Developer, error) {
	key, err := auth.NewDeveloperKey()
	if err != nil {
		return Developer{}, err
	}
	u, err := s.addUser("CreateDeveloper", p, key.Reveal())
	if err != nil {
		return Developer{}, err
	}
	return Developer{User: u, Key: key}, nil
}

// Users returns every user, developers included, by ascending id.
func (s *Server) Users() []scribe.User { return s.st.Users() }

// CreatePlugin creates a plugin of developer developerID, checked as POST /plugins does.
func (s *Server) CreatePlugin(developerID int64, p PluginParams) (scribe.Plugin, error) {
	if err := chosenID("CreatePlugin", "ID", p.ID); err != nil {
		return scribe.Plugin{}, err
	}
	return change(s, "CreatePlugin", func(tx *state.Tx) (scribe.Plugin, error) {
		return tx.AddPlugin(scribe.Plugin{ID: p.ID, Name: p.Name, Description: p.Description, Permissions: state.OrNone(p.Permissions), Published: p.Published,
			Disabled: p.Disabled, CRMIntegrationID: p.CRMIntegrationID, LogoURI: p.LogoURI, UserID: developerID})
	})
}

// DisablePlugin disables a plugin: its installation JWTs answer 403 plugin_disabled.
func (s *Server) DisablePlugin(pluginID int64) (scribe.Plugin, error) {
	return change(s, "DisablePlugin", func(tx *state.Tx) (scribe.Plugin, error) { return tx.SetPluginDisabled(pluginID, true) })
}

// EnablePlugin enables a disabled plugin again.
func (s *Server) EnablePlugin(pluginID int64) (scribe.Plugin, error) {
	return change(s, "EnablePlugin", func(tx *state.Tx) (scribe.Plugin, error) { return tx.SetPluginDisabled(pluginID, false) })
}

// Plugins returns every plugin, of every developer, by ascending id.
func (s *Server) Plugins() []scribe.Plugin { return s.st.Plugins() }

// CreateSecretKey creates a fresh ask_live_ key for a plugin.
func (s *Server) CreateSecretKey(pluginID int64, description string) (SecretKey, error) {
	k, err := httpapi.NewSecretKey(s.st, pluginID, description)
	if err != nil {
		return SecretKey{}, fmt.Errorf("scribetest: CreateSecretKey: %w", err)
	}
	return SecretKey{PluginSecretKey: k, Key: k.Value}, nil
}

// DeleteSecretKey revokes a secret key: its JWTs answer 401 invalid_token.
func (s *Server) DeleteSecretKey(id int64) error {
	_, err := change(s, "DeleteSecretKey", func(tx *state.Tx) (struct{}, error) { return struct{}{}, tx.DeleteSecretKey(id) })
	return err
}

// SecretKeys returns a plugin's secret keys by ascending id.
func (s *Server) SecretKeys(pluginID int64) []scribe.PluginSecretKey {
	return s.st.SecretKeysOf(pluginID)
}

// Install installs a plugin for a user, who has one active installation of
// it at most, with a fresh uuid, and emits installation.created.
func (s *Server) Install(pluginID, userID int64) (scribe.PluginInstallation, error) {
	return change(s, "Install", func(tx *state.Tx) (scribe.PluginInstallation, error) {
		return tx.Install(scribe.PluginInstallation{PluginID: pluginID, UserID: userID})
	})
}

// Uninstall sets the deleted_on of the installation with uuid (its JWTs
// answer 401 installation_deleted) and emits installation.deleted.
func (s *Server) Uninstall(uuid string) (scribe.PluginInstallation, error) {
	return change(s, "Uninstall", func(tx *state.Tx) (scribe.PluginInstallation, error) { return tx.Uninstall(uuid) })
}

// Installations returns a plugin's installations, uninstalled included, by id.
func (s *Server) Installations(pluginID int64) []scribe.PluginInstallation {
	return s.st.InstallationsOf(pluginID)
}

// CreateTranscript creates a transcript of user userID and emits transcript.created.
func (s *Server) CreateTranscript(userID int64, p TranscriptParams) (scribe.Transcript, error) {
	for field, id := range map[string]int64{"ID": p.ID, "Job.ID": p.Job.ID, "Audio.ID": p.Audio.ID} {
		if err := chosenID("CreateTranscript", field, id); err != nil {
			return scribe.Transcript{}, err
		}
	}
	meta := make(map[string]json.RawMessage, len(p.Metadata))
	for k, v := range p.Metadata {
		b, err := apijson.Marshal(v)
		if err != nil {
			return scribe.Transcript{}, fmt.Errorf("scribetest: CreateTranscript: metadata %q cannot be encoded as JSON: %w", k, err)
		}
		meta[k] = b
	}
	t := scribe.Transcript{ID: p.ID, Headline: p.Headline, Text: p.Text, Type: p.Type, CreatedOn: p.CreatedOn.UTC(), Metadata: meta,
		User: scribe.TranscriptUser{ID: userID}, Job: p.Job, Audio: p.Audio}
	t.Audio.CreatedOn = t.Audio.CreatedOn.UTC()
	return change(s, "CreateTranscript", func(tx *state.Tx) (scribe.Transcript, error) {
		t, err := tx.AddTranscript(t)
		return state.CloneTranscript(t), err
	})
}

// UpdateTranscript lets update change a copy of transcript id, stores it
// (but for its id, owner and creation time) and emits transcript.updated.
func (s *Server) UpdateTranscript(id int64, update func(*scribe.Transcript)) (scribe.Transcript, error) {
	if update == nil {
		return scribe.Transcript{}, fmt.Errorf("scribetest: UpdateTranscript: update is nil")
	}
	return change(s, "UpdateTranscript", func(tx *state.Tx) (scribe.Transcript, error) { return tx.UpdateTranscript(id, update) })
}

// DeleteTranscript deletes a transcript; it answers 404 from then on.
func (s *Server) DeleteTranscript(id int64) error {
	_, err := change(s, "DeleteTranscript", func(tx *state.Tx) (struct{}, error) { return struct{}{}, tx.DeleteTranscript(id) })
	return err
}

// Transcripts returns a user's transcripts by ascending id.
func (s *Server) Transcripts(userID int64) []scribe.Transcript { return s.st.TranscriptsOf(userID) }

// CreateWebhook registers uri (an absolute http or https URL without
// user:password@) for a plugin's events, with a fresh whsec_ secret.
func (s *Server) CreateWebhook(pluginID int64, uri string) (scribe.Webhook, error) {
	hook, _, err := s.webhookOf(pluginID, uri, false)
	return hook, err
}

// webhookOf creates a webhook of uri or, with reuse, returns the plugin's
// (created false), in one transaction: concurrent calls create one.
func (s *Server) webhookOf(pluginID int64, uri string, reuse bool) (hook scribe.Webhook, created bool, err error) {
	secret, err := webhook.NewSecret()
	if err != nil {
		return scribe.Webhook{}, false, err
	}
	hook, err = change(s, "CreateWebhook", func(tx *state.Tx) (scribe.Webhook, error) {
		if reuse {
			if h, ok := tx.WebhookByURI(pluginID, uri); ok {
				return h, nil
			}
		}
		created = true
		return tx.AddWebhook(scribe.Webhook{PluginID: pluginID, URI: uri, SigningSecret: secret})
	})
	return hook, created, err
}

// Webhooks returns a plugin's webhooks by ascending id.
func (s *Server) Webhooks(pluginID int64) []scribe.Webhook { return s.st.WebhooksOf(pluginID) }
