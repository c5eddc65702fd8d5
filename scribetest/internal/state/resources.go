package state

import (
	"fmt"
	"maps"
	"slices"

	scribe "github.com/scribehq/scribe-go"
)

// AddUser adds u, a developer if devKey is not empty.
func (tx *Tx) AddUser(u scribe.User, devKey string) (scribe.User, error) {
	st := tx.st
	if err := checkNewID(st.users, "user", u.ID); err != nil {
		return scribe.User{}, err
	}
	h := KeyHash(devKey)
	if _, dup := st.devKeys[h]; devKey != "" && dup {
		return scribe.User{}, &FieldError{"developer_key", "this key already belongs to another developer", fmt.Errorf("that developer key already belongs to another user: %w", ErrConflict)}
	}
	if u.ID == 0 {
		u.ID = st.users.NextID()
	}
	if u.EmailAddress == "" {
		u.EmailAddress = fmt.Sprintf("user%d@example.com", u.ID)
	}
	insert(tx, st.users, "users", 0, &u, &u.ID)
	if devKey != "" {
		st.devKeys[h], st.developers[u.ID] = u.ID, devKey
		tx.onUndo(func() { delete(st.devKeys, h); delete(st.developers, u.ID) })
	}
	return u, nil
}

// DeleteUser removes user id with their installations and transcripts,
// emitting no event; a developer who owns a plugin is refused.
func (tx *Tx) DeleteUser(id int64) error {
	st := tx.st
	switch {
	case !st.users.Taken(id):
		return fmt.Errorf("user %d: %w", id, ErrNotFound)
	case len(st.plugins.rows[id]) > 0:
		return fmt.Errorf("user %d is a developer who owns plugins, which would be left without one: %w", id, ErrConflict)
	}
	for _, in := range st.installsBy[id] {
		inst, _ := st.installs.Get(in)
		delete(st.uuids, inst.UUID)
		st.installs.Remove(in)
		tx.touch("installations", in, nil)
	}
	for _, t := range slices.Backward(st.transcripts.OwnedBy(id)) { // the last row first: no row moves
		st.transcripts.Remove(t.ID)
		tx.touch("transcripts", t.ID, nil)
	}
	delete(st.installsBy, id)
	maps.DeleteFunc(st.devKeys, func(_ [32]byte, user int64) bool { return user == id })
	delete(st.developers, id)
	st.users.Remove(id)
	tx.touch("users", id, nil)
	return nil
}

// DeveloperByKey returns the developer whose key is key.
func (st *Store) DeveloperByKey(key string) (scribe.User, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.users.Get(st.devKeys[KeyHash(key)]) // no key: id 0, which names no user
}

// User returns user id.
func (st *Store) User(id int64) (scribe.User, bool) { return get(st, st.users, id) }

// Users returns every user by ascending id.
func (st *Store) Users() []scribe.User { return ownedBy(st, st.users, 0) }

// AddPlugin adds p after ValidatePlugin; its owner must be a developer.
func (tx *Tx) AddPlugin(p scribe.Plugin) (scribe.Plugin, error) {
	st := tx.st
	switch {
	case !st.users.Taken(p.UserID):
		return scribe.Plugin{}, &FieldError{"user_id", fmt.Sprintf("no user with id %d", p.UserID), fmt.Errorf("developer %d: %w", p.UserID, ErrNotFound)}
	case st.developers[p.UserID] == "":
		return scribe.Plugin{}, &FieldError{"user_id", fmt.Sprintf("user %d is not a developer: give them a developer_key", p.UserID),
			fmt.Errorf("user %d is not a developer (has no developer key): %w", p.UserID, ErrNotFound)}
	}
	if err := checkNewID(st.plugins, "plugin", p.ID); err != nil {
		return scribe.Plugin{}, err
	}
	if err := ValidatePlugin(p); err != nil {
		return scribe.Plugin{}, err
	}
	stamp(&p.CreatedOn, &p.UpdatedOn, st.now())
	insert(tx, st.plugins, "plugins", p.UserID, &p, &p.ID)
	return p, nil
}

// clonePlugin copies what p points to.
func clonePlugin(p scribe.Plugin) scribe.Plugin {
	if p.CRMIntegrationID != nil {
		v := *p.CRMIntegrationID
		p.CRMIntegrationID = &v
	}
	return p
}

// Plugin returns plugin id.
func (st *Store) Plugin(id int64) (scribe.Plugin, bool) { return get(st, st.plugins, id) }

// SetPluginDisabled disables or enables plugin id.
func (tx *Tx) SetPluginDisabled(id int64, disabled bool) (scribe.Plugin, error) {
	p, ok := tx.st.plugins.Get(id)
	if !ok {
		return scribe.Plugin{}, fmt.Errorf("plugin %d: %w", id, ErrNotFound)
	}
	if p.Disabled != disabled {
		p.Disabled, p.UpdatedOn = disabled, tx.st.now()
		tx.st.plugins.Set(p)
		tx.touch("plugins", id, p)
	}
	return p, nil
}

// PagePlugins returns developer's plugins after afterID, whether more follow, and the total.
func (st *Store) PagePlugins(developer, afterID int64, limit int) ([]scribe.Plugin, bool, int) {
	return page(st, st.plugins, developer, afterID, limit)
}

// Plugins returns every plugin by ascending id.
func (st *Store) Plugins() []scribe.Plugin { return read(st, st.plugins.All) }

// AddSecretKey adds k to its plugin.
func (tx *Tx) AddSecretKey(k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	st := tx.st
	if !st.plugins.Taken(k.PluginID) {
		return scribe.PluginSecretKey{}, missing("plugin_id", "plugin", k.PluginID)
	}
	if err := checkNewID(st.secretKeys, "secret key", k.ID); err != nil {
		return scribe.PluginSecretKey{}, err
	}
	stamp(&k.CreatedOn, &k.UpdatedOn, st.now())
	insert(tx, st.secretKeys, "secret_keys", k.PluginID, &k, &k.ID)
	return k, nil
}

// DeleteSecretKey revokes secret key id.
func (tx *Tx) DeleteSecretKey(id int64) error {
	return remove(tx, tx.st.secretKeys, "secret_keys", "secret key", id)
}

// SecretKeysOf returns plugin's secret keys by ascending id.
func (st *Store) SecretKeysOf(plugin int64) []scribe.PluginSecretKey {
	return ownedBy(st, st.secretKeys, plugin)
}

// AddWebhook adds w to its plugin; its URI must pass ValidateHTTPURL.
func (tx *Tx) AddWebhook(w scribe.Webhook) (scribe.Webhook, error) {
	st := tx.st
	if !st.plugins.Taken(w.PluginID) {
		return scribe.Webhook{}, missing("plugin_id", "plugin", w.PluginID)
	}
	if err := ValidateHTTPURL(w.URI); err != nil {
		return scribe.Webhook{}, &FieldError{"uri", err.Error(), nil}
	}
	if err := checkNewID(st.webhooks, "webhook", w.ID); err != nil {
		return scribe.Webhook{}, err
	}
	stamp(&w.CreatedOn, &w.UpdatedOn, st.now())
	insert(tx, st.webhooks, "webhooks", w.PluginID, &w, &w.ID)
	return w, nil
}

// PageWebhooks returns a page of plugin's webhooks, as PagePlugins does.
func (st *Store) PageWebhooks(plugin, afterID int64, limit int) ([]scribe.Webhook, bool, int) {
	return page(st, st.webhooks, plugin, afterID, limit)
}

// WebhooksOf returns plugin's webhooks by ascending id.
func (st *Store) WebhooksOf(plugin int64) []scribe.Webhook { return ownedBy(st, st.webhooks, plugin) }
