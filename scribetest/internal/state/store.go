// Package state is the reference server's domain under one lock: the resources,
// the contract's rules that do not depend on HTTP, and the events every change
// emits. Every write moves one generation counter on (Gen), so that a cache above
// (authn's) keeps what it derived while the generation is unchanged.
package state

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/clock"
	"github.com/scribehq/scribe-go/scribetest/internal/index"
)

// ErrNotFound is wrapped by every error about an id or uuid that names nothing.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped by every error about a clash, such as an id taken.
var ErrConflict = errors.New("conflict")

// Event types (docs/contract.md, "Events and webhooks").
const (
	InstallationCreated = "installation.created"
	InstallationDeleted = "installation.deleted"
	TranscriptCreated   = "transcript.created"
	TranscriptUpdated   = "transcript.updated"
)

// Event is one change a plugin's webhooks hear about.
type Event struct {
	ID               string // its webhook-id: "evt_" and random text, URL-safe, without "."
	Type             string
	PluginID         int64
	InstallationUUID string
	CreatedOn        time.Time
	Data             any // a scribe.PluginInstallation, or a transcript's encoding ([]byte)
}

// user is a user and whether it is a developer (has a developer key).
type user struct {
	scribe.User
	developer bool
}

// Store is the server's state under one RWMutex, events published after release.
type Store struct {
	mu    sync.RWMutex
	clock clock.Clock
	gen   atomic.Uint64
	emit  func(Event)

	users      *index.Collection[user]
	devKeys    map[[32]byte]int64 // sha256(developer key) -> user id
	plugins    *index.Collection[scribe.Plugin]
	secretKeys *index.Collection[scribe.PluginSecretKey]
	installs   *index.Collection[scribe.PluginInstallation]
	installsBy map[int64]index.IDs // installation ids by user
	uuids      map[string]int64    // installation uuid -> id
	webhooks   *index.Collection[scribe.Webhook]
	tr         transcripts
}

// New returns an empty store on clock c that hands every event to emit.
func New(c clock.Clock, emit func(Event)) *Store {
	return &Store{
		clock: c, emit: emit,
		users:      index.NewCollection[user](),
		devKeys:    map[[32]byte]int64{},
		plugins:    index.NewCollection[scribe.Plugin](),
		secretKeys: index.NewCollection[scribe.PluginSecretKey](),
		installs:   index.NewCollection[scribe.PluginInstallation](),
		installsBy: map[int64]index.IDs{},
		uuids:      map[string]int64{},
		webhooks:   index.NewCollection[scribe.Webhook](),
		tr:         newTranscripts(),
	}
}

// Gen is the state's generation: it changes with every write.
func (st *Store) Gen() uint64 { return st.gen.Load() }

// now is the time stamped on resources: UTC, to the second.
func (st *Store) now() time.Time { return st.clock.Now().UTC().Truncate(time.Second) }

// Tx is the store with its write lock held (Update, Write).
type Tx struct {
	st     *Store
	quiet  bool // fixtures: the state a server starts from emits nothing
	events []Event
}

// emit records an event of the change, with a fresh id; a quiet Tx emits none.
func (tx *Tx) emit(e Event) {
	if !tx.quiet {
		e.ID = "evt_" + rand.Text()
		tx.events = append(tx.events, e)
	}
}

// Events returns the events the change has emitted so far, in order.
func (tx *Tx) Events() []Event { return tx.events }

// Update runs fn in a Tx whose changes emit no events (fixtures).
func (st *Store) Update(fn func(tx *Tx) error) error {
	_, err := Write(st, func(tx *Tx) (struct{}, error) {
		tx.quiet = true
		return struct{}{}, fn(tx)
	})
	return err
}

// Write runs fn in a Tx, then publishes its events.
func Write[T any](st *Store, fn func(tx *Tx) (T, error)) (T, error) {
	tx := &Tx{st: st}
	st.mu.Lock()
	out, err := fn(tx)
	st.gen.Add(1)
	st.mu.Unlock()
	if st.emit != nil {
		for _, e := range tx.events {
			st.emit(e)
		}
	}
	return out, err
}

// read runs fn under the read lock and returns its result.
func read[T any](st *Store, fn func() T) T {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return fn()
}

// checkNewID checks an id chosen for a new row of c (0: one is assigned).
func checkNewID[T any](c *index.Collection[T], kind string, id int64) error {
	if err := CheckChosenID(id); err != nil {
		return fmt.Errorf("%s id: %w", kind, err)
	}
	if id != 0 && c.Taken(id) {
		return fmt.Errorf("%s id %d is already taken: %w", kind, id, ErrConflict)
	}
	return nil
}

// stamp fills zero timestamps: created defaults to now, updated to created.
func stamp(created, updated *time.Time, now time.Time) {
	if created.IsZero() {
		*created = now
	}
	if updated.IsZero() {
		*updated = *created
	}
}

// KeyHash is the SHA-256 of a developer key: the store keeps no key.
func KeyHash(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// AddUser adds u, a developer if devKey is not empty.
func (tx *Tx) AddUser(u scribe.User, devKey string) (scribe.User, error) {
	st := tx.st
	if err := checkNewID(st.users, "user", u.ID); err != nil {
		return scribe.User{}, err
	}
	h := KeyHash(devKey)
	if _, dup := st.devKeys[h]; devKey != "" && dup {
		return scribe.User{}, fmt.Errorf("that developer key already belongs to another user: %w", ErrConflict)
	}
	if u.ID == 0 {
		u.ID = st.users.NextID()
	}
	if u.EmailAddress == "" {
		u.EmailAddress = GeneratedEmail(u.ID)
	}
	st.users.Add(u.ID, 0, user{User: u, developer: devKey != ""})
	if devKey != "" {
		st.devKeys[h] = u.ID
	}
	return u, nil
}

// DeveloperByKey returns the developer whose key is key.
func (st *Store) DeveloperByKey(key string) (scribe.User, bool) {
	h := KeyHash(key)
	st.mu.RLock()
	defer st.mu.RUnlock()
	id, ok := st.devKeys[h]
	if !ok {
		return scribe.User{}, false
	}
	u, _ := st.users.Get(id)
	return u.User, true
}

// User returns user id.
func (st *Store) User(id int64) (scribe.User, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	u, ok := st.users.Get(id)
	return u.User, ok
}

// Users returns every user by ascending id.
func (st *Store) Users() []scribe.User {
	return read(st, func() []scribe.User {
		all := st.users.All()
		out := make([]scribe.User, len(all))
		for i, u := range all {
			out[i] = u.User
		}
		return out
	})
}

// AddPlugin adds p after ValidatePlugin; its owner must be a developer.
func (tx *Tx) AddPlugin(p scribe.Plugin) (scribe.Plugin, error) {
	st := tx.st
	owner, ok := st.users.Get(p.UserID)
	switch {
	case !ok:
		return scribe.Plugin{}, fmt.Errorf("developer %d: %w", p.UserID, ErrNotFound)
	case !owner.developer:
		return scribe.Plugin{}, fmt.Errorf("user %d is not a developer (has no developer key): %w", p.UserID, ErrNotFound)
	}
	if err := checkNewID(st.plugins, "plugin", p.ID); err != nil {
		return scribe.Plugin{}, err
	}
	if err := ValidatePlugin(p); err != nil {
		return scribe.Plugin{}, err
	}
	if p.ID == 0 {
		p.ID = st.plugins.NextID()
	}
	stamp(&p.CreatedOn, &p.UpdatedOn, st.now())
	st.plugins.Add(p.ID, p.UserID, clonePlugin(p))
	return clonePlugin(p), nil
}

func clonePlugin(p scribe.Plugin) scribe.Plugin {
	if p.CRMIntegrationID != nil {
		v := *p.CRMIntegrationID
		p.CRMIntegrationID = &v
	}
	return p
}

// Plugin returns plugin id.
func (st *Store) Plugin(id int64) (scribe.Plugin, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	p, ok := st.plugins.Get(id)
	return clonePlugin(p), ok
}

// SetPluginDisabled disables or enables plugin id.
func (tx *Tx) SetPluginDisabled(id int64, disabled bool) (scribe.Plugin, error) {
	p, ok := tx.st.plugins.Get(id)
	if !ok {
		return scribe.Plugin{}, fmt.Errorf("plugin %d: %w", id, ErrNotFound)
	}
	if p.Disabled != disabled {
		p.Disabled, p.UpdatedOn = disabled, tx.st.now()
		tx.st.plugins.Set(id, p)
	}
	return clonePlugin(p), nil
}

// PagePlugins returns developer's plugins after afterID, whether more follow, and the total.
func (st *Store) PagePlugins(developer, afterID int64, limit int) ([]scribe.Plugin, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows, more, total := st.plugins.Page(developer, afterID, limit)
	for i := range rows {
		rows[i] = clonePlugin(rows[i])
	}
	return rows, more, total
}

// Plugins returns every plugin by ascending id.
func (st *Store) Plugins() []scribe.Plugin {
	return read(st, func() []scribe.Plugin {
		all := st.plugins.All()
		for i := range all {
			all[i] = clonePlugin(all[i])
		}
		return all
	})
}

// AddSecretKey adds k to its plugin.
func (tx *Tx) AddSecretKey(k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	st := tx.st
	if !st.plugins.Taken(k.PluginID) {
		return scribe.PluginSecretKey{}, fmt.Errorf("plugin %d: %w", k.PluginID, ErrNotFound)
	}
	if err := checkNewID(st.secretKeys, "secret key", k.ID); err != nil {
		return scribe.PluginSecretKey{}, err
	}
	if k.ID == 0 {
		k.ID = st.secretKeys.NextID()
	}
	stamp(&k.CreatedOn, &k.UpdatedOn, st.now())
	st.secretKeys.Add(k.ID, k.PluginID, k)
	return k, nil
}

// DeleteSecretKey revokes secret key id.
func (tx *Tx) DeleteSecretKey(id int64) error {
	k, ok := tx.st.secretKeys.Get(id)
	if !ok {
		return fmt.Errorf("secret key %d: %w", id, ErrNotFound)
	}
	tx.st.secretKeys.Remove(id, k.PluginID)
	return nil
}

// SecretKeysOf returns plugin's secret keys by ascending id.
func (st *Store) SecretKeysOf(plugin int64) []scribe.PluginSecretKey {
	return read(st, func() []scribe.PluginSecretKey { return st.secretKeys.OwnedBy(plugin) })
}

// AddWebhook adds w to its plugin; its URI must pass ValidateHTTPURL.
func (tx *Tx) AddWebhook(w scribe.Webhook) (scribe.Webhook, error) {
	st := tx.st
	if !st.plugins.Taken(w.PluginID) {
		return scribe.Webhook{}, fmt.Errorf("plugin %d: %w", w.PluginID, ErrNotFound)
	}
	if err := ValidateHTTPURL(w.URI); err != nil {
		return scribe.Webhook{}, &FieldError{"uri", err.Error()}
	}
	if err := checkNewID(st.webhooks, "webhook", w.ID); err != nil {
		return scribe.Webhook{}, err
	}
	if w.ID == 0 {
		w.ID = st.webhooks.NextID()
	}
	stamp(&w.CreatedOn, &w.UpdatedOn, st.now())
	st.webhooks.Add(w.ID, w.PluginID, w)
	return w, nil
}

// PageWebhooks returns a page of plugin's webhooks, as PagePlugins does.
func (st *Store) PageWebhooks(plugin, afterID int64, limit int) ([]scribe.Webhook, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.webhooks.Page(plugin, afterID, limit)
}

// WebhooksOf returns plugin's webhooks by ascending id.
func (st *Store) WebhooksOf(plugin int64) []scribe.Webhook {
	return read(st, func() []scribe.Webhook { return st.webhooks.OwnedBy(plugin) })
}
