package state

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// CredentialsFor returns what verifying an installation JWT needs: the
// installation with uuid, deleted or not, its plugin and the plugin's
// current secret keys; no keys if there is no such installation.
func (st *Store) CredentialsFor(uuid string) (in scribe.PluginInstallation, p scribe.Plugin, keys []auth.SecretKey) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	id, ok := st.uuids[uuid]
	if !ok {
		return in, p, nil
	}
	in, _ = st.installs.Get(id)
	p, _ = st.plugins.Get(in.PluginID)
	for _, k := range st.secretKeys.rows[p.ID] {
		keys = append(keys, k.Value)
	}
	return in, p, keys
}

// cloneInstallation copies what in points to.
func cloneInstallation(in scribe.PluginInstallation) scribe.PluginInstallation {
	if in.DeletedOn != nil {
		v := *in.DeletedOn
		in.DeletedOn = &v
	}
	return in
}

// Install adds in (an empty UUID: a fresh one) and emits installation.created.
func (tx *Tx) Install(in scribe.PluginInstallation) (scribe.PluginInstallation, error) {
	st := tx.st
	if !st.plugins.Taken(in.PluginID) {
		return scribe.PluginInstallation{}, missing("plugin_id", "plugin", in.PluginID)
	}
	u, ok := st.users.Get(in.UserID)
	if !ok {
		return scribe.PluginInstallation{}, missing("user_id", "user", in.UserID)
	}
	err := checkNewID(st.installs, "installation", in.ID)
	if err != nil {
		return scribe.PluginInstallation{}, err
	}
	switch _, dup := st.uuids[in.UUID]; {
	case in.UUID == "":
		in.UUID = uuid.NewString() // a random (version 4) RFC 4122 uuid, lower-case
	case !ValidUUID(in.UUID):
		return scribe.PluginInstallation{}, &FieldError{"uuid", Excerpt(in.UUID) + " is not a lower-case RFC 4122 uuid (8-4-4-4-12 hex digits)", nil}
	case dup:
		return scribe.PluginInstallation{}, &FieldError{"uuid", "uuid " + in.UUID + " appears twice", fmt.Errorf("installation uuid %s is already taken: %w", in.UUID, ErrConflict)}
	}
	if cur, ok := tx.ActiveInstallation(in.PluginID, in.UserID); ok && in.DeletedOn == nil { // to the loader: the installation as a whole
		return scribe.PluginInstallation{}, &FieldError{"", fmt.Sprintf("user %d already has plugin %d installed; set deleted_on on all but one", in.UserID, in.PluginID),
			fmt.Errorf("user %d already has plugin %d installed (installation %s): %w", in.UserID, in.PluginID, cur.UUID, ErrConflict)}
	}
	if in.ID == 0 { // the event's data carries it
		in.ID = st.installs.NextID()
	}
	in.FirstName, in.LastName, in.EmailAddress = u.FirstName, u.LastName, u.EmailAddress
	stamp(&in.CreatedOn, &in.UpdatedOn, st.now())
	data, err := encode(tx, "installation", in)
	if err != nil {
		return scribe.PluginInstallation{}, err
	}
	insert(tx, st.installs, "installations", in.PluginID, &in, &in.ID)
	st.installsBy[in.UserID] = append(st.installsBy[in.UserID], in.ID)
	st.uuids[in.UUID] = in.ID
	tx.onUndo(func() {
		st.installsBy[in.UserID] = slices.DeleteFunc(st.installsBy[in.UserID], func(id int64) bool { return id == in.ID })
		delete(st.uuids, in.UUID)
	})
	tx.emit(webhook.EventInstallationCreated, in.PluginID, in.UUID, in.CreatedOn, data)
	return in, nil
}

// ActiveInstallation returns user's active installation of plugin.
func (tx *Tx) ActiveInstallation(plugin, userID int64) (scribe.PluginInstallation, bool) {
	for _, id := range tx.st.installsBy[userID] {
		if in, _ := tx.st.installs.Get(id); in.PluginID == plugin && in.DeletedOn == nil {
			return in, true
		}
	}
	return scribe.PluginInstallation{}, false
}

// Uninstall sets the deleted_on of installation uuid and emits installation.deleted.
func (tx *Tx) Uninstall(uuid string) (scribe.PluginInstallation, error) {
	st := tx.st
	id, ok := st.uuids[uuid]
	if !ok {
		return scribe.PluginInstallation{}, fmt.Errorf("installation %s: %w", Excerpt(uuid), ErrNotFound)
	}
	in, _ := st.installs.Get(id)
	if in.DeletedOn != nil {
		return scribe.PluginInstallation{}, fmt.Errorf("installation %s was already uninstalled: %w", uuid, ErrConflict)
	}
	now := st.now()
	in.DeletedOn, in.UpdatedOn = &now, now
	data, err := encode(tx, "installation", in)
	if err != nil { // a timestamp of a fixture outside what JSON holds
		return scribe.PluginInstallation{}, err
	}
	st.installs.Set(in)
	tx.touch("installations", in.ID, in)
	tx.emit(webhook.EventInstallationDeleted, in.PluginID, uuid, now, data)
	return in, nil
}

// PageInstallations is PagePlugins for plugin's installations.
func (st *Store) PageInstallations(plugin, afterID int64, limit int) ([]scribe.PluginInstallation, bool, int) {
	return page(st, st.installs, plugin, afterID, limit)
}

// InstallationsOf returns plugin's installations by ascending id.
func (st *Store) InstallationsOf(plugin int64) []scribe.PluginInstallation {
	return ownedBy(st, st.installs, plugin)
}

// activeReaders returns userID's active installations that read transcripts.
func (st *Store) activeReaders(userID int64) []scribe.PluginInstallation {
	var out []scribe.PluginInstallation
	for _, id := range st.installsBy[userID] {
		in, _ := st.installs.Get(id)
		if p, _ := st.plugins.Get(in.PluginID); in.DeletedOn == nil && p.Permissions.Transcript == scribe.PermissionRead {
			out = append(out, in)
		}
	}
	return out
}
