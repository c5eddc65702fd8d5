package state

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/webhook"
)

// Transcripts are kept as scribe.Transcript values, each owner's in id
// order. A stored value is never changed in place: an update stores a new
// one. So a value read under the lock may be encoded after it is released,
// and only what a caller may change (the metadata) is copied for it.

// AddTranscript adds t as a transcript of user t.User.ID, with its ids,
// timestamps and owner's names filled in, emits transcript.created, and
// returns the value stored, which shares its metadata with the store.
func (tx *Tx) AddTranscript(t scribe.Transcript) (scribe.Transcript, error) {
	st := tx.st
	u, ok := st.users.Get(t.User.ID)
	if !ok {
		return scribe.Transcript{}, missing("user_id", "user", t.User.ID)
	}
	if err := checkNewID(st.transcripts, "transcript", t.ID); err != nil {
		return scribe.Transcript{}, err
	}
	// The ids are taken only once the transcript is stored.
	t.ID = cmp.Or(t.ID, st.transcripts.Last+1)
	t.Job.ID = cmp.Or(t.Job.ID, st.lastJob+1)
	t.Audio.ID = cmp.Or(t.Audio.ID, st.lastAudio+1)
	if t.CreatedOn.IsZero() {
		t.CreatedOn = st.now()
	}
	if t.Audio.CreatedOn.IsZero() {
		t.Audio.CreatedOn = t.CreatedOn
	}
	t.User = scribe.TranscriptUser{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName}
	data, err := encode(tx, "transcript", t)
	if err != nil {
		return scribe.Transcript{}, err
	}
	insert(tx, st.transcripts, "transcripts", u.ID, &t, &t.ID) // its undo holds the id, not the transcript
	st.lastJob, st.lastAudio = max(st.lastJob, t.Job.ID), max(st.lastAudio, t.Audio.ID)
	tx.emitTranscript(webhook.EventTranscriptCreated, t, data, t.CreatedOn)
	return t, nil
}

// emitTranscript emits an event of t, encoded as data, that happened at at,
// to each plugin that reads its owner's transcripts.
func (tx *Tx) emitTranscript(typ webhook.EventType, t scribe.Transcript, data []byte, at time.Time) {
	for _, in := range tx.st.activeReaders(t.User.ID) {
		tx.emit(typ, in.PluginID, in.UUID, at, data)
	}
}

// UpdateTranscript stores what fn makes of a copy of transcript id, but for
// its id, owner and creation time, and emits transcript.updated.
func (tx *Tx) UpdateTranscript(id int64, fn func(*scribe.Transcript)) (scribe.Transcript, error) {
	st := tx.st
	cur, ok := st.transcripts.Get(id)
	if !ok {
		return scribe.Transcript{}, fmt.Errorf("transcript %d: %w", id, ErrNotFound)
	}
	next := CloneTranscript(cur)
	fn(&next)
	next.ID, next.User, next.CreatedOn = cur.ID, cur.User, cur.CreatedOn
	data, err := encode(tx, "transcript", next)
	if err != nil {
		return scribe.Transcript{}, err
	}
	st.transcripts.Set(next)
	tx.touch("transcripts", id, next)
	tx.emitTranscript(webhook.EventTranscriptUpdated, next, data, st.now())
	return CloneTranscript(next), nil
}

// DeleteTranscript deletes transcript id.
func (tx *Tx) DeleteTranscript(id int64) error {
	return remove(tx, tx.st.transcripts, "transcripts", "transcript", id)
}

// Transcript returns transcript id if owner owns it, to encode: it shares
// its metadata with the store.
func (st *Store) Transcript(owner, id int64) (scribe.Transcript, bool) {
	t, ok := get(st, st.transcripts, id)
	return t, ok && t.User.ID == owner
}

// TranscriptPage is PagePlugins for owner's transcripts, to encode: they
// share their metadata with the store.
func (st *Store) TranscriptPage(owner, afterID int64, limit int) ([]scribe.Transcript, bool, int) {
	return page(st, st.transcripts, owner, afterID, limit)
}

// TranscriptsOf returns copies of owner's transcripts by ascending id.
func (st *Store) TranscriptsOf(owner int64) []scribe.Transcript {
	ts := ownedBy(st, st.transcripts, owner)
	for i := range ts {
		ts[i] = CloneTranscript(ts[i])
	}
	return ts
}

// CloneTranscript returns t with a copy of its metadata, which is empty
// rather than nil, as a client decodes it.
func CloneTranscript(t scribe.Transcript) scribe.Transcript {
	m := make(map[string]json.RawMessage, len(t.Metadata))
	for k, v := range t.Metadata {
		m[k] = slices.Clone(v)
	}
	t.Metadata = m
	return t
}
