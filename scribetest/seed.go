package scribetest

import (
	"encoding/json"
	"fmt"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Developer is a user with a developer key, as CreateDeveloper returns it.
type Developer struct {
	// User is the developer as a platform user; its ID is the developerID that
	// CreatePlugin takes.
	User scribe.User
	// Key is the developer's key, for DeveloperClient or an Authorization
	// header. It prints redacted.
	Key auth.DeveloperKey
}

// SecretKey is a plugin secret key as CreateSecretKey returns it: the
// resource, and the key itself ready for auth.Mint or InstallationClient.
type SecretKey struct {
	// PluginSecretKey is the resource as POST /plugins/{id}/secret_keys
	// answers it; its Value prints redacted.
	scribe.PluginSecretKey
	// Key is the same key parsed for package auth, ready for
	// InstallationClient or scribe.NewInstallationClient. It prints redacted.
	Key auth.SecretKey
}

// TranscriptParams describes a transcript to create. Zero ids (of the job, the
// audio) are generated; a zero CreatedOn means now, and a zero Audio.CreatedOn
// means CreatedOn. Metadata values are encoded as JSON.
type TranscriptParams struct {
	// ID is the transcript's id; zero asks for the next free one, and an id
	// already taken is an error wrapping ErrConflict.
	ID int64
	// Headline is the transcript's title; "" is allowed.
	Headline string
	// Text is the transcribed text; "" is allowed.
	Text string
	// Type is stored as given, such as "dictation", "meeting" or "phone_call";
	// the service does not restrict it.
	Type string
	// Metadata is encoded value by value as JSON (a value that cannot be is an
	// error); nil means {}.
	Metadata map[string]any
	// Job is the transcription job; a zero Job.ID gets a fresh id.
	Job scribe.TranscriptJob
	// Audio is the recording; a zero Audio.ID gets a fresh id, and
	// Audio.CreatedOn defaults to CreatedOn.
	Audio scribe.TranscriptAudio
	// CreatedOn is when the transcript was created, in any zone (it is stored
	// in UTC); zero means now by the server's clock.
	CreatedOn time.Time
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

// CreateUser creates a platform user (one who installs plugins and owns
// transcripts) from u. A zero ID asks for the next free one; a chosen one is
// at most 2^53-1 (docs/server.md, "Identifiers"), and one already taken is an
// error wrapping ErrConflict. FirstName and LastName may be "". A given
// EmailAddress must be a bare e-mail address (such as ada@example.com), as
// the document's format: email says; an empty one is generated from the id
// ("user<id>@example.com").
func (s *Server) CreateUser(u scribe.User) (scribe.User, error) {
	return s.addUser("CreateUser", u, "")
}

// addUser checks u and adds the user, a developer when devKey is not empty.
func (s *Server) addUser(call string, u scribe.User, devKey string) (scribe.User, error) {
	if err := chosenID(call, "ID", u.ID); err != nil {
		return scribe.User{}, err
	}
	if u.EmailAddress != "" {
		if err := state.ValidateEmail(u.EmailAddress); err != nil {
			return scribe.User{}, fmt.Errorf("scribetest: %s: EmailAddress %w", call, err)
		}
	}
	return change(s, call, func(tx *state.Tx) (scribe.User, error) { return tx.AddUser(u, devKey) })
}

// CreateDeveloper creates a user with a fresh developer key; u is checked as
// by CreateUser.
func (s *Server) CreateDeveloper(u scribe.User) (Developer, error) {
	key, err := keygen.DeveloperKey()
	if err != nil {
		return Developer{}, err
	}
	dev, err := s.addUser("CreateDeveloper", u, key.Reveal())
	if err != nil {
		return Developer{}, err
	}
	return Developer{User: dev, Key: key}, nil
}

// DeleteUser removes user id with their installations, uninstalled or not,
// and their transcripts, emitting no event: their installations' JWTs are
// refused from then on (401 invalid_token). It undoes a user the seeding
// made, such as a receiver check's scene (CreateScene). A developer who
// owns a plugin cannot be removed: an error wrapping ErrConflict.
func (s *Server) DeleteUser(id int64) error {
	_, err := change(s, "DeleteUser", func(tx *state.Tx) (struct{}, error) { return struct{}{}, tx.DeleteUser(id) })
	return err
}

// Users returns every user, developers included, by ascending id.
func (s *Server) Users() []scribe.User { return s.st.Users() }

// CreatePlugin creates the plugin p, owned by developer developerID (p's
// UserID is set to it). Unlike POST /plugins, it can create a plugin already
// published (Published) or disabled (Disabled: its installation tokens answer
// 403 plugin_disabled until EnablePlugin). It checks what POST /plugins
// checks: a Name of 1 to 100 characters, permissions "none" or "read" (a
// zero level means scribe.PermissionNone), a CRMIntegrationID nil or
// positive, a LogoURI that is an absolute http(s) URL or "". A zero ID asks
// for the next free one, and an id already taken is an error wrapping
// ErrConflict; zero CreatedOn and UpdatedOn are the server clock's now.
func (s *Server) CreatePlugin(developerID int64, p scribe.Plugin) (scribe.Plugin, error) {
	if err := chosenID("CreatePlugin", "ID", p.ID); err != nil {
		return scribe.Plugin{}, err
	}
	p.UserID, p.Permissions = developerID, state.OrNone(p.Permissions)
	return change(s, "CreatePlugin", func(tx *state.Tx) (scribe.Plugin, error) { return tx.AddPlugin(p) })
}

// DisablePlugin disables a plugin: its installation JWTs then answer 403
// plugin_disabled, while its developer still manages it.
func (s *Server) DisablePlugin(pluginID int64) (scribe.Plugin, error) {
	return change(s, "DisablePlugin", func(tx *state.Tx) (scribe.Plugin, error) { return tx.SetPluginDisabled(pluginID, true) })
}

// EnablePlugin enables a disabled plugin again.
func (s *Server) EnablePlugin(pluginID int64) (scribe.Plugin, error) {
	return change(s, "EnablePlugin", func(tx *state.Tx) (scribe.Plugin, error) { return tx.SetPluginDisabled(pluginID, false) })
}

// Plugins returns every plugin, of every developer, by ascending id.
func (s *Server) Plugins() []scribe.Plugin { return s.st.Plugins() }

// CreateSecretKey creates a fresh ask_live_ secret key for a plugin, as POST
// /plugins/{id}/secret_keys does.
func (s *Server) CreateSecretKey(pluginID int64, description string) (SecretKey, error) {
	k, err := httpapi.NewSecretKey(s.st, pluginID, description)
	if err != nil {
		return SecretKey{}, fmt.Errorf("scribetest: CreateSecretKey: %w", err)
	}
	return SecretKey{PluginSecretKey: k, Key: k.Value}, nil
}

// DeleteSecretKey revokes a secret key: JWTs signed with it are refused from
// then on (401 invalid_token), while the plugin's other keys go on working.
func (s *Server) DeleteSecretKey(id int64) error {
	_, err := change(s, "DeleteSecretKey", func(tx *state.Tx) (struct{}, error) { return struct{}{}, tx.DeleteSecretKey(id) })
	return err
}

// SecretKeys returns a plugin's current secret keys by ascending id. Their
// Value prints redacted; Reveal gives the key.
func (s *Server) SecretKeys(pluginID int64) []scribe.PluginSecretKey {
	return s.st.SecretKeysOf(pluginID)
}

// Install installs a plugin for a user, with a fresh uuid, and emits
// installation.created. A user has at most one active installation of a
// plugin; install again after Uninstall.
func (s *Server) Install(pluginID, userID int64) (scribe.PluginInstallation, error) {
	return change(s, "Install", func(tx *state.Tx) (scribe.PluginInstallation, error) {
		return tx.Install(scribe.PluginInstallation{PluginID: pluginID, UserID: userID})
	})
}

// Uninstall uninstalls the installation with uuid: its deleted_on is set, its
// JWTs answer 401 installation_deleted, and installation.deleted is emitted.
// It stays in the plugin's installation list.
func (s *Server) Uninstall(uuid string) (scribe.PluginInstallation, error) {
	return change(s, "Uninstall", func(tx *state.Tx) (scribe.PluginInstallation, error) { return tx.Uninstall(uuid) })
}

// Installations returns a plugin's installations, uninstalled ones included,
// by ascending id.
func (s *Server) Installations(pluginID int64) []scribe.PluginInstallation {
	return s.st.InstallationsOf(pluginID)
}

// CreateTranscript creates a transcript of user userID and emits
// transcript.created to the plugins with transcript permission the user has
// installed.
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

// UpdateTranscript changes transcript id with update, which receives a copy to
// modify, and emits transcript.updated. The id, the owner and the creation
// time stay as they were whatever update does.
func (s *Server) UpdateTranscript(id int64, update func(*scribe.Transcript)) (scribe.Transcript, error) {
	if update == nil {
		return scribe.Transcript{}, fmt.Errorf("scribetest: UpdateTranscript: update is nil")
	}
	return change(s, "UpdateTranscript", func(tx *state.Tx) (scribe.Transcript, error) { return tx.UpdateTranscript(id, update) })
}

// DeleteTranscript deletes a transcript; it disappears from its user's list
// and answers 404 from then on.
func (s *Server) DeleteTranscript(id int64) error {
	_, err := change(s, "DeleteTranscript", func(tx *state.Tx) (struct{}, error) { return struct{}{}, tx.DeleteTranscript(id) })
	return err
}

// Transcripts returns a user's transcripts by ascending id.
func (s *Server) Transcripts(userID int64) []scribe.Transcript { return s.st.TranscriptsOf(userID) }

// CreateWebhook registers uri (an absolute http or https URL without
// user:password@) to receive the events of a plugin, with a fresh whsec_
// signing secret.
func (s *Server) CreateWebhook(pluginID int64, uri string) (scribe.Webhook, error) {
	return s.CreateWebhookWithSecret(pluginID, uri, auth.WebhookSecret{})
}

// CreateWebhookWithSecret is CreateWebhook with a signing secret of your
// choice, such as the one the receivers (replicas behind one URL, say)
// already verify with; the zero secret asks for a fresh one.
func (s *Server) CreateWebhookWithSecret(pluginID int64, uri string, secret auth.WebhookSecret) (scribe.Webhook, error) {
	var err error
	if secret.IsZero() {
		if secret, err = keygen.WebhookSecret(); err != nil {
			return scribe.Webhook{}, err
		}
	}
	return change(s, "CreateWebhook", func(tx *state.Tx) (scribe.Webhook, error) {
		return tx.AddWebhook(scribe.Webhook{PluginID: pluginID, URI: uri, SigningSecret: secret})
	})
}

// Webhooks returns a plugin's webhooks by ascending id.
func (s *Server) Webhooks(pluginID int64) []scribe.Webhook { return s.st.WebhooksOf(pluginID) }
