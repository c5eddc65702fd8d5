package state

import (
	scribe "github.com/scribehq/scribe-go"
)

// The methods of Tx read and change the store under Update's lock, for the
// fixture loader, which checks a whole document against the store before
// it adds anything. The adds emit no events.

// UserTaken reports whether user id exists.
func (tx *Tx) UserTaken(id int64) bool { return tx.st.users.Taken(id) }

// IsDeveloper reports whether user id exists and is a developer.
func (tx *Tx) IsDeveloper(id int64) bool {
	u, ok := tx.st.users.Get(id)
	return ok && u.developer
}

// DeveloperKeyTaken reports whether a developer already has key.
func (tx *Tx) DeveloperKeyTaken(key string) bool {
	_, ok := tx.st.devKeys[KeyHash(key)]
	return ok
}

// PluginTaken reports whether plugin id exists.
func (tx *Tx) PluginTaken(id int64) bool { return tx.st.plugins.Taken(id) }

// SecretKeyTaken reports whether secret key id exists.
func (tx *Tx) SecretKeyTaken(id int64) bool { return tx.st.secretKeys.Taken(id) }

// InstallationTaken reports whether installation id exists.
func (tx *Tx) InstallationTaken(id int64) bool { return tx.st.installs.Taken(id) }

// UUIDTaken reports whether an installation has uuid.
func (tx *Tx) UUIDTaken(uuid string) bool {
	_, ok := tx.st.uuids[uuid]
	return ok
}

// TranscriptTaken reports whether transcript id exists.
func (tx *Tx) TranscriptTaken(id int64) bool {
	_, ok := tx.st.tr.owner[id]
	return ok
}

// WebhookTaken reports whether webhook id exists.
func (tx *Tx) WebhookTaken(id int64) bool { return tx.st.webhooks.Taken(id) }

// ActiveInstallation is Store.ActiveInstallation.
func (tx *Tx) ActiveInstallation(plugin, user int64) bool {
	_, ok := tx.st.ActiveInstallation(plugin, user)
	return ok
}

// Reserve makes the ids assigned from now on follow the given largest ids
// of a document (users, plugins, secret keys, installations, transcripts,
// webhooks), so that generated ids come after every explicit one.
func (tx *Tx) Reserve(users, plugins, secretKeys, installations, transcripts, webhooks int64) {
	st := tx.st
	st.users.Last = max(st.users.Last, users)
	st.plugins.Last = max(st.plugins.Last, plugins)
	st.secretKeys.Last = max(st.secretKeys.Last, secretKeys)
	st.installs.Last = max(st.installs.Last, installations)
	st.tr.last = max(st.tr.last, transcripts)
	st.webhooks.Last = max(st.webhooks.Last, webhooks)
}

// NextUserID is the id the next user without one will get.
func (tx *Tx) NextUserID() int64 { return tx.st.users.Last + 1 }

// AddUser is Store.AddUser.
func (tx *Tx) AddUser(u scribe.User, devKey string) (scribe.User, error) {
	return tx.st.addUser(u, devKey)
}

// AddPlugin is Store.AddPlugin.
func (tx *Tx) AddPlugin(p scribe.Plugin) (scribe.Plugin, error) { return tx.st.addPlugin(p) }

// AddSecretKey is Store.AddSecretKey.
func (tx *Tx) AddSecretKey(k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	return tx.st.addSecretKey(k)
}

// Install is Store.Install, without the event.
func (tx *Tx) Install(in scribe.PluginInstallation) (scribe.PluginInstallation, error) {
	out, _, err := tx.st.install(in)
	return out, err
}

// AddTranscript is Store.AddTranscript, without the event; it returns
// where the encoding is, for Snapshot.
func (tx *Tx) AddTranscript(t NewTranscript) (Ref, error) {
	_, ref, err := tx.st.insertTranscript(t)
	return ref, err
}

// AddWebhook is Store.AddWebhook.
func (tx *Tx) AddWebhook(w scribe.Webhook) (scribe.Webhook, error) { return tx.st.addWebhook(w) }

// Snapshot returns the transcripts' arena as it is now.
func (tx *Tx) Snapshot() Snapshot { return tx.st.tr.arena.Snapshot() }
