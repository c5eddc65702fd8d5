package state

// The look-ups of a Tx, for changes that depend on what is there: a fixture
// document is checked against them whole before anything is added.

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
func (tx *Tx) TranscriptTaken(id int64) bool { return tx.st.transcripts.Taken(id) }

// WebhookTaken reports whether webhook id exists.
func (tx *Tx) WebhookTaken(id int64) bool { return tx.st.webhooks.Taken(id) }

// ActiveInstallation reports whether user has an active installation of plugin.
func (tx *Tx) ActiveInstallation(plugin, user int64) bool {
	_, ok := tx.st.ActiveInstallation(plugin, user)
	return ok
}

// Reserve makes the ids assigned follow a document's largest explicit ids.
func (tx *Tx) Reserve(users, plugins, secretKeys, installations, transcripts, webhooks int64) {
	st := tx.st
	st.users.Last = max(st.users.Last, users)
	st.plugins.Last = max(st.plugins.Last, plugins)
	st.secretKeys.Last = max(st.secretKeys.Last, secretKeys)
	st.installs.Last = max(st.installs.Last, installations)
	st.transcripts.Last = max(st.transcripts.Last, transcripts)
	st.webhooks.Last = max(st.webhooks.Last, webhooks)
}
