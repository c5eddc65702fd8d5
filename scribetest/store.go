package scribetest

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// ErrNotFound is returned (wrapped) by the seeding calls when an id or uuid
// names nothing, such as CreatePlugin for a developer that does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned (wrapped) by the seeding calls when the change
// clashes with the server's state, such as an id already taken or a second
// active installation of a plugin for the same user.
var ErrConflict = errors.New("conflict")

// Event types of CONTRACT §7.
const (
	eventInstallationCreated = "installation.created"
	eventInstallationDeleted = "installation.deleted"
	eventTranscriptCreated   = "transcript.created"
	eventTranscriptUpdated   = "transcript.updated"
)

// event is one state change a plugin's webhooks hear about. Every change the
// server makes, through HTTP or a seeding call, is published through
// store.publish, the single place webhook delivery hooks into.
type event struct {
	Type             string
	PluginID         int64
	InstallationUUID string
	CreatedOn        time.Time
	Data             any // scribe.PluginInstallation or scribe.Transcript
}

// userRec is a user and, for a developer, the fact that a developer key
// exists. The key itself is not kept, only its SHA-256 (in store.devKeys), so
// looking a key up does not compare secret bytes with an early exit.
type userRec struct {
	scribe.User
	developer bool
}

// store is the server's state. One RWMutex guards it all: reads (every GET)
// share it, writes take it alone. No method calls out while holding it.
type store struct {
	mu    sync.RWMutex
	clock Clock

	users       collection[userRec]   // owner: none (0)
	devKeys     map[[32]byte]int64    // sha256(developer key) -> user id
	plugins     collection[pluginRow] // pluginrow.go
	secretKeys  collection[scribe.PluginSecretKey]
	installs    collection[scribe.PluginInstallation]
	installsBy  scopes                    // installation ids by user id
	uuids       map[string]int64          // installation uuid -> id
	transcripts collection[transcriptRow] // wire forms in tjson (wirecache.go)
	tjson       jsonArena
	// twire holds, per owner, where the wire form of each of the owner's
	// transcripts is, in the order of transcripts.owned[owner]: a page is
	// a binary search and a run of adjacent entries, with no look-up per
	// item in the rows (a cache miss each at 10^6 transcripts).
	twire map[int64][]jsonRef
	// scratch is the buffer transcripts are encoded into before they are
	// copied into tjson (see encodeTranscriptLocked).
	scratch   []byte
	webhooks  collection[scribe.Webhook]
	lastJob   int64
	lastAudio int64

	// authGen counts changes to what authenticating an installation JWT
	// reads: installations, plugins and secret keys. The verification cache
	// keeps a principal per token while it is unchanged (verifycache.go).
	// It is written under mu, read without it.
	authGen atomic.Uint64
	// userGen counts changes to what authenticating a developer key reads:
	// users and developer keys. The developer cache keeps a principal per
	// key while it is unchanged (verifycache.go). It is written under mu,
	// read without it; every write of users or devKeys must add to it.
	userGen atomic.Uint64

	// onEvent receives every event after the lock is released. It is set once,
	// before the server serves.
	onEvent func(event)
}

func newStore(c Clock) *store {
	return &store{
		clock:       c,
		users:       newCollection[userRec](),
		devKeys:     map[[32]byte]int64{},
		plugins:     newCollection[pluginRow](),
		secretKeys:  newCollection[scribe.PluginSecretKey](),
		installs:    newCollection[scribe.PluginInstallation](),
		installsBy:  scopes{},
		uuids:       map[string]int64{},
		transcripts: newCollection[transcriptRow](),
		twire:       map[int64][]jsonRef{},
		webhooks:    newCollection[scribe.Webhook](),
	}
}

// now is the time stamped on new and changed resources: the clock's time in
// UTC, to the second, as the contract's examples show it.
func (st *store) now() time.Time {
	return st.clock.Now().UTC().Truncate(time.Second)
}

// publish hands events to the delivery hook. Call it without holding mu.
func (st *store) publish(evs []event) {
	if st.onEvent == nil {
		return
	}
	for _, e := range evs {
		st.onEvent(e)
	}
}

// hashKey is the SHA-256 of a credential: a developer key, or an
// installation JWT (the verification cache's key). A credential of up to
// 512 bytes (every developer key, a JWT as auth.Mint makes it) is copied
// into a buffer on the stack rather than converted with []byte(key), which
// allocates beyond 32 bytes.
func hashKey(key string) [32]byte {
	var buf [512]byte
	if len(key) <= len(buf) {
		return sha256.Sum256(append(buf[:0], key...))
	}
	return sha256.Sum256([]byte(key))
}

// Copies handed out of the store share nothing mutable with it.

func clonePlugin(p *scribe.Plugin) scribe.Plugin {
	c := *p
	if p.CRMIntegrationID != nil {
		v := *p.CRMIntegrationID
		c.CRMIntegrationID = &v
	}
	return c
}

func cloneInstallation(in *scribe.PluginInstallation) scribe.PluginInstallation {
	c := *in
	if in.DeletedOn != nil {
		v := *in.DeletedOn
		c.DeletedOn = &v
	}
	return c
}

func cloneTranscript(t *scribe.Transcript) scribe.Transcript {
	c := *t
	c.Metadata = maps.Clone(t.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]json.RawMessage{}
	}
	return c
}

func cloneAll[T, U any](rows []T, clone func(*T) U) []U {
	out := make([]U, len(rows))
	for i := range rows {
		out[i] = clone(&rows[i])
	}
	return out
}

func deref[T any](p *T) T { return *p }

// ---- users and developers

// addUserLocked adds u (id 0: a fresh id). devKey, when not empty, makes the
// user a developer with that key.
func (st *store) addUserLocked(u scribe.User, devKey string) (scribe.User, error) {
	if err := st.users.checkNewID("user", u.ID); err != nil {
		return scribe.User{}, err
	}
	var h [32]byte
	if devKey != "" {
		h = hashKey(devKey)
		if _, dup := st.devKeys[h]; dup {
			return scribe.User{}, fmt.Errorf("scribetest: that developer key already belongs to another user: %w", ErrConflict)
		}
	}
	if u.ID == 0 {
		u.ID = st.users.nextID()
	}
	st.users.add(u.ID, 0, userRec{User: u, developer: devKey != ""})
	if devKey != "" {
		st.devKeys[h] = u.ID
	}
	st.userGen.Add(1)
	return u, nil
}

func (st *store) addUser(u scribe.User, devKey string) (scribe.User, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.addUserLocked(u, devKey)
}

// developerByKeyHash returns the developer whose key's SHA-256 is h.
func (st *store) developerByKeyHash(h [32]byte) (scribe.User, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	id, ok := st.devKeys[h]
	if !ok {
		return scribe.User{}, false
	}
	return st.users.rows.at(id).User, true
}

func (st *store) user(id int64) (scribe.User, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	u, ok := st.users.rows.get(id)
	if !ok {
		return scribe.User{}, false
	}
	return u.User, true
}

func (st *store) allUsers() []scribe.User {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return cloneAll(st.users.every(), func(u *userRec) scribe.User { return u.User })
}

// ---- plugins

func (st *store) addPluginLocked(p scribe.Plugin) (scribe.Plugin, error) {
	owner, ok := st.users.rows.get(p.UserID)
	switch {
	case !ok:
		return scribe.Plugin{}, fmt.Errorf("scribetest: developer %d: %w", p.UserID, ErrNotFound)
	case !owner.developer:
		return scribe.Plugin{}, fmt.Errorf("scribetest: user %d is not a developer (has no developer key): %w", p.UserID, ErrNotFound)
	}
	if err := st.plugins.checkNewID("plugin", p.ID); err != nil {
		return scribe.Plugin{}, err
	}
	if err := validatePlugin(p); err != nil {
		return scribe.Plugin{}, fmt.Errorf("scribetest: %w", err)
	}
	if p.ID == 0 {
		p.ID = st.plugins.nextID()
	}
	stampCreated(&p.CreatedOn, &p.UpdatedOn, st.now())
	st.plugins.add(p.ID, p.UserID, newPluginRow(&p))
	st.authGen.Add(1)
	return clonePlugin(&p), nil
}

func (st *store) addPlugin(p scribe.Plugin) (scribe.Plugin, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.addPluginLocked(p)
}

// stampCreated fills zero timestamps: created defaults to now, updated to
// created.
func stampCreated(created, updated *time.Time, now time.Time) {
	if created.IsZero() {
		*created = now
	}
	if updated.IsZero() {
		*updated = *created
	}
}

func (st *store) plugin(id int64) (scribe.Plugin, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	r, ok := st.plugins.rows.get(id)
	if !ok {
		return scribe.Plugin{}, false
	}
	return r.plugin(), true
}

func (st *store) setPluginDisabled(id int64, disabled bool) (scribe.Plugin, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.plugins.rows.get(id)
	if !ok {
		return scribe.Plugin{}, fmt.Errorf("scribetest: plugin %d: %w", id, ErrNotFound)
	}
	if r.disabled != disabled {
		r.disabled = disabled
		r.updatedOn = st.now()
		st.plugins.set(id, r)
		st.authGen.Add(1)
	}
	return r.plugin(), nil
}

func (st *store) pagePlugins(developerID, afterID int64, limit int) ([]scribe.Plugin, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows, more, total := st.plugins.page(developerID, afterID, limit)
	return cloneAll(rows, (*pluginRow).plugin), more, total
}

func (st *store) allPlugins() []scribe.Plugin {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return cloneAll(st.plugins.every(), (*pluginRow).plugin)
}

// ---- secret keys

func (st *store) addSecretKeyLocked(k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	switch {
	case !st.plugins.taken(k.PluginID):
		return scribe.PluginSecretKey{}, fmt.Errorf("scribetest: plugin %d: %w", k.PluginID, ErrNotFound)
	}
	if err := st.secretKeys.checkNewID("secret key", k.ID); err != nil {
		return scribe.PluginSecretKey{}, err
	}
	if k.ID == 0 {
		k.ID = st.secretKeys.nextID()
	}
	stampCreated(&k.CreatedOn, &k.UpdatedOn, st.now())
	st.secretKeys.add(k.ID, k.PluginID, k)
	st.authGen.Add(1)
	return k, nil
}

func (st *store) addSecretKey(k scribe.PluginSecretKey) (scribe.PluginSecretKey, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.addSecretKeyLocked(k)
}

func (st *store) deleteSecretKey(id int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	k, ok := st.secretKeys.rows.get(id)
	if !ok {
		return fmt.Errorf("scribetest: secret key %d: %w", id, ErrNotFound)
	}
	st.secretKeys.remove(id, k.PluginID)
	st.authGen.Add(1)
	return nil
}

func (st *store) secretKeysOf(pluginID int64) []scribe.PluginSecretKey {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return cloneAll(st.secretKeys.ownedBy(pluginID), deref)
}

// ---- installations

// credentials is what verifying an installation JWT needs to know about the
// installation it names.
type credentials struct {
	installation scribe.PluginInstallation
	plugin       scribe.Plugin
	keys         []string // the plugin's current secret key values
}

// credentialsFor returns the installation with uuid, its plugin and the
// plugin's keys, deleted or disabled or not: the caller decides, after the
// signature verifies, so that nothing is revealed to a forged token.
func (st *store) credentialsFor(uuid string) (credentials, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	id, ok := st.uuids[uuid]
	if !ok {
		return credentials{}, false
	}
	in := st.installs.rows.at(id)
	pr := st.plugins.rows.at(in.PluginID)
	p := pr.plugin()
	c := credentials{installation: cloneInstallation(&in), plugin: p}
	kids := st.secretKeys.owned[p.ID]
	c.keys = make([]string, len(kids))
	for i, kid := range kids {
		c.keys[i] = st.secretKeys.rows.at(kid).Value.Reveal()
	}
	return c, true
}

func (st *store) installLocked(in scribe.PluginInstallation) (scribe.PluginInstallation, []event, error) {
	p, ok := st.plugins.rows.get(in.PluginID)
	if !ok {
		return scribe.PluginInstallation{}, nil, fmt.Errorf("scribetest: plugin %d: %w", in.PluginID, ErrNotFound)
	}
	u, ok := st.users.rows.get(in.UserID)
	if !ok {
		return scribe.PluginInstallation{}, nil, fmt.Errorf("scribetest: user %d: %w", in.UserID, ErrNotFound)
	}
	if err := st.installs.checkNewID("installation", in.ID); err != nil {
		return scribe.PluginInstallation{}, nil, err
	}
	if in.UUID == "" {
		in.UUID = newUUID()
	} else if !validUUID(in.UUID) {
		return scribe.PluginInstallation{}, nil, fmt.Errorf("scribetest: installation uuid %q is not in the RFC 4122 text form", in.UUID)
	}
	if _, dup := st.uuids[in.UUID]; dup {
		return scribe.PluginInstallation{}, nil, fmt.Errorf("scribetest: installation uuid %s is already taken: %w", in.UUID, ErrConflict)
	}
	if in.DeletedOn == nil {
		if cur, ok := st.activeInstallationLocked(in.PluginID, in.UserID); ok {
			return scribe.PluginInstallation{}, nil, fmt.Errorf("scribetest: user %d already has plugin %d installed (installation %s): %w", in.UserID, in.PluginID, cur.UUID, ErrConflict)
		}
	}
	if in.ID == 0 {
		in.ID = st.installs.nextID()
	}
	in.FirstName, in.LastName, in.EmailAddress = u.FirstName, u.LastName, u.EmailAddress
	stampCreated(&in.CreatedOn, &in.UpdatedOn, st.now())
	st.installs.add(in.ID, in.PluginID, in)
	st.authGen.Add(1)
	st.installsBy.insert(in.UserID, in.ID)
	st.uuids[in.UUID] = in.ID
	out := cloneInstallation(&in)
	return out, []event{{Type: eventInstallationCreated, PluginID: p.id, InstallationUUID: in.UUID, CreatedOn: in.CreatedOn, Data: out}}, nil
}

func (st *store) activeInstallationLocked(pluginID, userID int64) (scribe.PluginInstallation, bool) {
	for _, id := range st.installsBy[userID] {
		if in := st.installs.rows.at(id); in.PluginID == pluginID && in.DeletedOn == nil {
			return in, true
		}
	}
	return scribe.PluginInstallation{}, false
}

func (st *store) install(in scribe.PluginInstallation) (scribe.PluginInstallation, error) {
	st.mu.Lock()
	out, evs, err := st.installLocked(in)
	st.mu.Unlock()
	st.publish(evs)
	return out, err
}

func (st *store) uninstall(uuid string) (scribe.PluginInstallation, error) {
	st.mu.Lock()
	id, ok := st.uuids[uuid]
	if !ok {
		st.mu.Unlock()
		return scribe.PluginInstallation{}, fmt.Errorf("scribetest: installation %s: %w", uuid, ErrNotFound)
	}
	in := st.installs.rows.at(id)
	if in.DeletedOn != nil {
		st.mu.Unlock()
		return scribe.PluginInstallation{}, fmt.Errorf("scribetest: installation %s was already uninstalled: %w", uuid, ErrConflict)
	}
	now := st.now()
	in.DeletedOn, in.UpdatedOn = &now, now
	st.installs.set(id, in)
	st.authGen.Add(1)
	out := cloneInstallation(&in)
	st.mu.Unlock()
	st.publish([]event{{Type: eventInstallationDeleted, PluginID: in.PluginID, InstallationUUID: uuid, CreatedOn: now, Data: out}})
	return out, nil
}

func (st *store) pageInstallations(pluginID, afterID int64, limit int) ([]scribe.PluginInstallation, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows, more, total := st.installs.page(pluginID, afterID, limit)
	return cloneAll(rows, cloneInstallation), more, total
}

func (st *store) installationsOf(pluginID int64) []scribe.PluginInstallation {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return cloneAll(st.installs.ownedBy(pluginID), cloneInstallation)
}

// ---- transcripts
//
// A transcript is stored as its wire form (wirecache.go): encoded once here,
// when it is created or changed; answered from those bytes; decoded for the
// Go reads and the events.

// transcriptEventsLocked returns one event per plugin that hears about t: a
// plugin with transcript permission, installed (now) by t's user.
func (st *store) transcriptEventsLocked(typ string, t *scribe.Transcript, at time.Time) []event {
	var evs []event
	for _, id := range st.installsBy[t.User.ID] {
		in := st.installs.rows.at(id)
		if in.DeletedOn != nil || !st.plugins.rows.at(in.PluginID).transcriptRead {
			continue
		}
		evs = append(evs, event{Type: typ, PluginID: in.PluginID, InstallationUUID: in.UUID, CreatedOn: at, Data: cloneTranscript(t)})
	}
	return evs
}

func (st *store) addTranscriptLocked(t scribe.Transcript) (scribe.Transcript, []event, error) {
	if _, err := st.insertTranscriptLocked(&t, nil); err != nil {
		return scribe.Transcript{}, nil, err
	}
	// The store keeps bytes, so the metadata is cloned only for what is
	// returned: the caller's map stays the caller's.
	t.Metadata = maps.Clone(t.Metadata)
	if t.Metadata == nil {
		t.Metadata = map[string]json.RawMessage{}
	}
	return t, st.transcriptEventsLocked(eventTranscriptCreated, &t, t.CreatedOn), nil
}

// insertTranscriptLocked completes the new transcript t in place (its id,
// job and audio ids and timestamps where they are zero, its owner's names)
// and stores its encoding, returning where it is. meta, when not nil, is
// t's metadata already encoded (appendTranscriptMeta); t.Metadata is then
// not read. t.Metadata is never kept: the store holds bytes. The store
// is unchanged when it fails.
func (st *store) insertTranscriptLocked(t *scribe.Transcript, meta []byte) (jsonRef, error) {
	u, ok := st.users.rows.get(t.User.ID)
	if !ok {
		return jsonRef{}, fmt.Errorf("scribetest: user %d: %w", t.User.ID, ErrNotFound)
	}
	if err := st.transcripts.checkNewID("transcript", t.ID); err != nil {
		return jsonRef{}, err
	}
	// Ids are taken from the counters only once the transcript encodes.
	job, audio := st.lastJob, st.lastAudio
	if t.Job.ID == 0 {
		job++
		t.Job.ID = job
	}
	if t.Audio.ID == 0 {
		audio++
		t.Audio.ID = audio
	}
	if t.CreatedOn.IsZero() {
		t.CreatedOn = st.now()
	}
	if t.Audio.CreatedOn.IsZero() {
		t.Audio.CreatedOn = t.CreatedOn
	}
	t.User = scribe.TranscriptUser{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName}
	if t.ID == 0 {
		t.ID = st.transcripts.last + 1
	}
	b, err := st.encodeTranscriptLocked(t, meta)
	if err != nil {
		return jsonRef{}, err
	}
	st.lastJob, st.lastAudio = max(job, t.Job.ID), max(audio, t.Audio.ID)
	return st.putTranscriptLocked(t.ID, t.User.ID, b), nil
}

// reserveTranscriptsLocked makes room for n more transcripts, perOwner[u]
// of them owned by user u, before a fixture load inserts them: the rows'
// map of large ids, if in use, is built at its final size once rather than
// rehashed as it doubles (rowTable), and the indexes are grown once rather
// than reallocated along the way.
func (st *store) reserveTranscriptsLocked(n int, perOwner map[int64]int) {
	c := &st.transcripts
	if n >= 1024 {
		c.rows.reserve(n)
	}
	c.all = slices.Grow(c.all, n)
	for owner, k := range perOwner {
		c.owned[owner] = slices.Grow(c.owned[owner], k)
		st.twire[owner] = slices.Grow(st.twire[owner], k)
	}
}

func (st *store) addTranscript(t scribe.Transcript) (scribe.Transcript, error) {
	st.mu.Lock()
	out, evs, err := st.addTranscriptLocked(t)
	st.mu.Unlock()
	st.publish(evs)
	return out, err
}

// updateTranscript lets fn change a copy of transcript id, then stores it,
// keeping what fn may not change: the id, the owner and the creation time.
// A change that cannot be encoded is refused, and the transcript stays as
// it was.
func (st *store) updateTranscript(id int64, fn func(*scribe.Transcript)) (scribe.Transcript, error) {
	st.mu.Lock()
	row, ok := st.transcripts.rows.get(id)
	if !ok {
		st.mu.Unlock()
		return scribe.Transcript{}, fmt.Errorf("scribetest: transcript %d: %w", id, ErrNotFound)
	}
	cur := decodeTranscript(st.tjson.get(row.wire))
	next := cloneTranscript(&cur)
	fn(&next)
	next.ID, next.User, next.CreatedOn = cur.ID, cur.User, cur.CreatedOn
	next.Metadata = maps.Clone(next.Metadata)
	if next.Metadata == nil {
		next.Metadata = map[string]json.RawMessage{}
	}
	b, err := st.encodeTranscriptLocked(&next, nil)
	if err != nil {
		st.mu.Unlock()
		return scribe.Transcript{}, err
	}
	st.tjson.free(row.wire)
	row.wire = st.tjson.put(b)
	st.transcripts.set(id, row)
	i, _ := slices.BinarySearch(st.transcripts.owned[row.owner], id)
	st.twire[row.owner][i] = row.wire
	st.compactTranscriptsLocked()
	evs := st.transcriptEventsLocked(eventTranscriptUpdated, &next, st.now())
	st.mu.Unlock()
	st.publish(evs)
	return next, nil
}

func (st *store) deleteTranscript(id int64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	row, ok := st.transcripts.rows.get(id)
	if !ok {
		return fmt.Errorf("scribetest: transcript %d: %w", id, ErrNotFound)
	}
	i, _ := slices.BinarySearch(st.transcripts.owned[row.owner], id)
	if refs := slices.Delete(st.twire[row.owner], i, i+1); len(refs) > 0 {
		st.twire[row.owner] = refs
	} else {
		delete(st.twire, row.owner)
	}
	st.transcripts.remove(id, row.owner)
	st.tjson.free(row.wire)
	st.compactTranscriptsLocked()
	return nil
}

// encodeTranscriptLocked encodes t into the store's scratch buffer: the
// bytes are valid until the next call, and are to be copied into tjson.
// meta, when not nil, is t's metadata already encoded
// (appendTranscriptMeta).
func (st *store) encodeTranscriptLocked(t *scribe.Transcript, meta []byte) ([]byte, error) {
	b, err := appendTranscriptMeta(st.scratch[:0], t, meta)
	if err != nil {
		return nil, err
	}
	if cap(b) <= arenaChunk {
		st.scratch = b[:0]
	}
	return b, nil
}

// putTranscriptLocked stores a new transcript's encoding b and returns
// where it is.
func (st *store) putTranscriptLocked(id, owner int64, b []byte) jsonRef {
	row := transcriptRow{owner: owner, wire: st.tjson.put(b)}
	st.transcripts.add(id, owner, row)
	i, _ := slices.BinarySearch(st.transcripts.owned[owner], id)
	st.twire[owner] = slices.Insert(st.twire[owner], i, row.wire)
	return row.wire
}

// compactTranscriptsLocked copies the live encodings into a fresh arena once
// replaced and deleted ones outweigh them. Slices handed out of the old
// arena stay valid: its chunks are left to the collector.
func (st *store) compactTranscriptsLocked() {
	if !st.tjson.wasteful() {
		return
	}
	var fresh jsonArena
	for owner, ids := range st.transcripts.owned {
		refs := st.twire[owner]
		for i, id := range ids {
			row := st.transcripts.rows.at(id)
			row.wire = fresh.put(st.tjson.get(row.wire))
			st.transcripts.rows.set(id, row)
			refs[i] = row.wire
		}
	}
	st.tjson = fresh
}

// appendTranscript appends transcript id, if userID owns it, as the service
// answers it (with a trailing newline) to dst.
func (st *store) appendTranscript(dst []byte, userID, id int64) ([]byte, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	row, ok := st.transcripts.rows.get(id)
	if !ok || row.owner != userID {
		return dst, false
	}
	dst = append(dst, st.tjson.get(row.wire)...)
	return append(dst, '\n'), true
}

// appendTranscriptPage appends to dst the answer to a page of userID's
// transcripts after afterID: the list envelope of wire.List around the
// stored encodings, with a trailing newline, byte for byte what
// encoding/json makes of the page.
func (st *store) appendTranscriptPage(dst []byte, userID, afterID int64, limit int) []byte {
	st.mu.RLock()
	defer st.mu.RUnlock()
	ix := st.transcripts.owned[userID]
	start, end := ix.bounds(afterID, limit)
	dst = append(dst, listHead...)
	dst = strconv.AppendBool(dst, end < len(ix))
	dst = append(dst, listTotal...)
	dst = strconv.AppendInt(dst, int64(len(ix)), 10)
	dst = append(dst, listData...)
	for i, ref := range st.twire[userID][start:end] {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, st.tjson.get(ref)...)
	}
	return append(dst, listTail...)
}

// transcriptsOf returns userID's transcripts, decoded, by ascending id.
func (st *store) transcriptsOf(userID int64) []scribe.Transcript {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows := st.transcripts.ownedBy(userID)
	out := make([]scribe.Transcript, len(rows))
	for i, row := range rows {
		out[i] = decodeTranscript(st.tjson.get(row.wire))
	}
	return out
}

// ---- webhooks

func (st *store) addWebhookLocked(w scribe.Webhook) (scribe.Webhook, error) {
	switch {
	case !st.plugins.taken(w.PluginID):
		return scribe.Webhook{}, fmt.Errorf("scribetest: plugin %d: %w", w.PluginID, ErrNotFound)
	}
	if err := st.webhooks.checkNewID("webhook", w.ID); err != nil {
		return scribe.Webhook{}, err
	}
	if w.ID == 0 {
		w.ID = st.webhooks.nextID()
	}
	stampCreated(&w.CreatedOn, &w.UpdatedOn, st.now())
	st.webhooks.add(w.ID, w.PluginID, w)
	return w, nil
}

func (st *store) addWebhook(w scribe.Webhook) (scribe.Webhook, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.addWebhookLocked(w)
}

func (st *store) pageWebhooks(pluginID, afterID int64, limit int) ([]scribe.Webhook, bool, int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows, more, total := st.webhooks.page(pluginID, afterID, limit)
	return cloneAll(rows, deref), more, total
}

func (st *store) webhooksOf(pluginID int64) []scribe.Webhook {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return cloneAll(st.webhooks.ownedBy(pluginID), deref)
}
