// Package state is the reference server's domain: the resources, the root
// package's values under one lock, the contract's rules that do not depend
// on HTTP, and the events every change emits, as webhook.Event values.
//
// The scribetest tree is layered: state imports no other package of the
// tree, httpapi imports only state, and nothing under internal/ imports the
// face, package scribetest (docs/design/layering.md).
package state

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/webhook"
)

// ErrNotFound is wrapped by every error about an id or uuid that names nothing.
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped by every error about a clash, such as an id taken.
var ErrConflict = errors.New("conflict")

// Store is the server's state under one RWMutex; the events of a change are
// published after the lock is released.
type Store struct {
	mu    sync.RWMutex
	clock func() time.Time // the server's clock
	emit  func(webhook.Event)

	users       *Collection[scribe.User]               // all of owner 0
	devKeys     map[[32]byte]int64                     // sha256(developer key) -> user id
	developers  map[int64]string                       // user id -> developer key, for the fixture export
	plugins     *Collection[scribe.Plugin]             // by developer
	secretKeys  *Collection[scribe.PluginSecretKey]    // by plugin
	installs    *Collection[scribe.PluginInstallation] // by plugin
	installsBy  map[int64][]int64                      // installation ids by user
	uuids       map[string]int64                       // installation uuid -> id
	webhooks    *Collection[scribe.Webhook]            // by plugin
	transcripts *Collection[scribe.Transcript]         // by user
	lastJob     int64                                  // the largest transcript job id so far
	lastAudio   int64                                  // the largest transcript audio id so far

	// Set before the store is shared, each called by every Write with the
	// lock held: Before ahead of fn, Save after it, if it changed rows.
	// Save's error is the Write's.
	Before func(tx *Tx)
	Save   func(tx *Tx) error
}

// New returns an empty store that reads the time from now and hands every
// event to emit.
func New(now func() time.Time, emit func(webhook.Event)) *Store {
	return &Store{
		clock: now, emit: emit,
		users:       NewCollection(func(u scribe.User) int64 { return u.ID }, nil),
		devKeys:     map[[32]byte]int64{},
		developers:  map[int64]string{},
		plugins:     NewCollection(func(p scribe.Plugin) int64 { return p.ID }, clonePlugin),
		secretKeys:  NewCollection(func(k scribe.PluginSecretKey) int64 { return k.ID }, nil),
		installs:    NewCollection(func(in scribe.PluginInstallation) int64 { return in.ID }, cloneInstallation),
		installsBy:  map[int64][]int64{},
		uuids:       map[string]int64{},
		webhooks:    NewCollection(func(w scribe.Webhook) int64 { return w.ID }, nil),
		transcripts: NewCollection(func(t scribe.Transcript) int64 { return t.ID }, nil),
	}
}

// now is the time stamped on resources: UTC, to the second.
func (st *Store) now() time.Time { return st.clock().UTC().Truncate(time.Second) }

// Tx is the store with its write lock held (Write, Update).
type Tx struct {
	st     *Store
	quiet  bool // fixtures: the state a server starts from emits nothing
	events []webhook.Event
	undo   []func() // an Update's: what undoes each of its changes

	Changed []Ref // the rows changed, in order, some more than once (for Save)
	Cleared bool  // Clear was called
}

// Ref is a row of a fixture section ("users", "plugins", ...) as a change
// left it: Row is the resource, such as a scribe.User, or nil if removed.
type Ref struct {
	Section string
	ID      int64
	Row     any
}

// touch records, for Save if there is one, that a change left row id of
// section as row.
func (tx *Tx) touch(section string, id int64, row any) {
	if tx.st.Save != nil {
		tx.Changed = append(tx.Changed, Ref{section, id, row})
	}
}

// Clear empties the store: every resource, and the ids assigned so far. It
// empties the collections and maps in place: a Store's fields never change
// after New, so a reader may pick its collection before it takes the lock.
func (tx *Tx) Clear() {
	st := tx.st
	for _, c := range []interface{ clear() }{st.users, st.plugins, st.secretKeys, st.installs, st.webhooks, st.transcripts} {
		c.clear()
	}
	clear(st.devKeys)
	clear(st.developers)
	clear(st.installsBy)
	clear(st.uuids)
	st.lastJob, st.lastAudio = 0, 0
	tx.Changed, tx.Cleared = nil, true
}

// onUndo records how to undo a change of an Update.
func (tx *Tx) onUndo(f func()) {
	if tx.quiet {
		tx.undo = append(tx.undo, f)
	}
}

// emit records an event of the change about installation uuid of plugin,
// with a fresh id; a quiet Tx emits none.
func (tx *Tx) emit(typ webhook.EventType, plugin int64, uuid string, at time.Time, data []byte) {
	if !tx.quiet {
		tx.events = append(tx.events, webhook.Event{ID: "evt_" + rand.Text(), Type: typ, CreatedOn: at.UTC(),
			PluginID: plugin, PluginInstallationUUID: uuid, Data: data})
	}
}

// Events returns the events the change has emitted so far, in order.
func (tx *Tx) Events() []webhook.Event { return tx.events }

// DropEvents forgets the events the change has emitted so far: they are
// not published.
func (tx *Tx) DropEvents() { tx.events = nil }

// Update runs fn in a Tx whose changes emit no events and are all undone if
// fn fails: a fixture load, whose documents the JSON decoder has already
// checked to be what the wire can carry, so that nothing it adds is encoded
// until it is asked for, or the receiver check's scene. Only adding is
// undone: fn adds, and reads (and may uninstall what it added).
func (st *Store) Update(fn func(tx *Tx) error) error {
	_, err := Write(st, func(tx *Tx) (struct{}, error) {
		tx.quiet = true
		for _, last := range []*int64{&st.users.Last, &st.plugins.Last, &st.secretKeys.Last, &st.installs.Last,
			&st.transcripts.Last, &st.webhooks.Last, &st.lastJob, &st.lastAudio} {
			was := *last
			tx.onUndo(func() { *last = was }) // the id counters are restored last
		}
		err := fn(tx)
		if err != nil {
			for _, undo := range slices.Backward(tx.undo) {
				undo()
			}
			tx.Changed = nil
		}
		return struct{}{}, err
	})
	return err
}

// Write runs fn in a Tx, then publishes its events.
func Write[T any](st *Store, fn func(tx *Tx) (T, error)) (T, error) {
	tx := &Tx{st: st}
	st.mu.Lock()
	if st.Before != nil {
		st.Before(tx)
	}
	out, err := fn(tx)
	if st.Save != nil && (len(tx.Changed) > 0 || tx.Cleared) {
		err = errors.Join(err, st.Save(tx))
	}
	st.mu.Unlock()
	if st.emit != nil {
		for _, e := range tx.events {
			st.emit(e)
		}
	}
	return out, err
}

// View runs fn, which only looks, with the read lock held.
func (st *Store) View(fn func(tx *Tx) error) error {
	return read(st, func() error { return fn(&Tx{st: st}) })
}

// read runs fn under the read lock and returns its result.
func read[T any](st *Store, fn func() T) T {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return fn()
}

// page returns c.Page(owner, afterID, limit), read under the read lock.
func page[T any](st *Store, c *Collection[T], owner, afterID int64, limit int) ([]T, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return c.Page(owner, afterID, limit)
}

// get returns c.Get(id), read under the read lock.
func get[T any](st *Store, c *Collection[T], id int64) (T, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return c.Get(id)
}

// ownedBy returns c.OwnedBy(owner), read under the read lock.
func ownedBy[T any](st *Store, c *Collection[T], owner int64) []T {
	return read(st, func() []T { return c.OwnedBy(owner) })
}

// encode encodes a resource as the wire carries it, for an event's data; a
// quiet Tx emits no event, so it encodes nothing. v is a T rather than an
// any so that a quiet Tx does not copy it to the heap either: a fixture load
// of a million transcripts would pay for a million copies.
func encode[T any](tx *Tx, what string, v T) ([]byte, error) {
	if tx.quiet {
		return nil, nil
	}
	b, err := apijson.Marshal(v)
	if err != nil {
		return nil, &FieldError{what, "cannot be encoded as JSON (a timestamp outside the years 0 to 9999, text that is not UTF-8, or metadata that is not JSON?)", nil}
	}
	return b, nil
}

// insert stores *row as owner's in c, after giving it a fresh id if its id
// field, *id, is 0, records the change for Save as a row of section, and has
// an Update that fails remove it.
func insert[T any](tx *Tx, c *Collection[T], section string, owner int64, row *T, id *int64) {
	if *id == 0 {
		*id = c.NextID()
	}
	c.Add(owner, *row)
	tx.touch(section, *id, *row)
	rowID := *id
	tx.onUndo(func() { c.Remove(rowID) })
}

// remove deletes row id of c, a kind of resource, and records the change for
// Save as a row of section; an id that names nothing is ErrNotFound.
func remove[T any](tx *Tx, c *Collection[T], section, kind string, id int64) error {
	if !c.Taken(id) {
		return fmt.Errorf("%s %d: %w", kind, id, ErrNotFound)
	}
	c.Remove(id)
	tx.touch(section, id, nil)
	return nil
}

// checkNewID checks an id chosen for a new row of c (0: one is assigned).
func checkNewID[T any](c *Collection[T], kind string, id int64) error {
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

// KeyHash is the SHA-256 of a developer key, by which a key is looked up.
func KeyHash(key string) [32]byte { return sha256.Sum256([]byte(key)) }
