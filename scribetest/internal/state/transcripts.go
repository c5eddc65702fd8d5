package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/scribetest/internal/index"
)

// transcripts holds every transcript's encoding by owner: each owner's ids
// in order and beside them where each encoding is, so that a page is a
// binary search and a run, with no look-up (a cache miss) per item.
type transcripts struct {
	last               int64
	lastJob, lastAudio int64
	owner              map[int64]int64 // transcript id -> owner
	owned              map[int64]*owned
	arena              Arena
	buf                bytes.Buffer // where a transcript is encoded before the arena takes it
}

type owned struct {
	ids  index.IDs
	refs []Ref
}

func newTranscripts() transcripts {
	return transcripts{owner: map[int64]int64{}, owned: map[int64]*owned{}}
}

// wireTranscript is a transcript as answered, metadata encoded.
type wireTranscript struct {
	ID        int64                  `json:"id"`
	Headline  string                 `json:"headline"`
	Text      string                 `json:"text"`
	Type      string                 `json:"type"`
	CreatedOn time.Time              `json:"created_on"`
	Metadata  jsontext.Value         `json:"metadata"`
	User      scribe.TranscriptUser  `json:"user"`
	Job       scribe.TranscriptJob   `json:"job"`
	Audio     scribe.TranscriptAudio `json:"audio"`
}

// EncodeMetadata encodes a transcript's metadata (nil: {}), keys sorted.
func EncodeMetadata(m map[string]json.RawMessage) (jsontext.Value, error) {
	if len(m) == 0 {
		return jsontext.Value("{}"), nil
	}
	b, err := apijson.Marshal(m)
	if err != nil {
		return nil, &FieldError{"metadata", "each value must be valid JSON"}
	}
	return b, nil
}

// storedJSON reads what the library wrote: no strictness needed.
var storedJSON = apijson.Lenient()

// DecodeTranscript decodes a stored encoding.
func DecodeTranscript(b []byte) scribe.Transcript {
	var t scribe.Transcript
	if err := apijson.Unmarshal(b, &t, storedJSON); err != nil {
		panic("state: a stored transcript does not decode: " + err.Error()) // encoded by the library a moment before
	}
	if t.Metadata == nil {
		t.Metadata = map[string]json.RawMessage{}
	}
	return t
}

// NewTranscript is a transcript to add: its members, metadata encoded.
type NewTranscript struct {
	ID, UserID           int64
	Headline, Text, Type string
	CreatedOn            time.Time
	Metadata             jsontext.Value // nil: {}
	Job                  scribe.TranscriptJob
	Audio                scribe.TranscriptAudio
}

// AddTranscript adds t, emits transcript.created and says where its encoding is.
func (tx *Tx) AddTranscript(t NewTranscript) (scribe.Transcript, Ref, error) {
	b, ref, err := tx.st.insertTranscript(t)
	if err != nil {
		return scribe.Transcript{}, Ref{}, err
	}
	if tx.quiet { // a fixture load: the caller decodes what it needs
		return scribe.Transcript{}, ref, nil
	}
	out := DecodeTranscript(b)
	tx.emitTranscript(TranscriptCreated, out.User.ID, b, out.CreatedOn)
	return out, ref, nil
}

// insertTranscript completes, encodes and stores t, or changes nothing.
func (st *Store) insertTranscript(t NewTranscript) ([]byte, Ref, error) {
	tr := &st.tr
	u, ok := st.users.Get(t.UserID)
	if !ok {
		return nil, Ref{}, fmt.Errorf("user %d: %w", t.UserID, ErrNotFound)
	}
	if err := CheckChosenID(t.ID); err != nil {
		return nil, Ref{}, fmt.Errorf("transcript id: %w", err)
	}
	if _, taken := tr.owner[t.ID]; taken {
		return nil, Ref{}, fmt.Errorf("transcript id %d is already taken: %w", t.ID, ErrConflict)
	}
	w := wireTranscript{ID: t.ID, Headline: t.Headline, Text: t.Text, Type: t.Type, CreatedOn: t.CreatedOn, Metadata: t.Metadata,
		User: scribe.TranscriptUser{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName}, Job: t.Job, Audio: t.Audio}
	job, audio := tr.lastJob, tr.lastAudio // taken only once the transcript encodes
	if w.Job.ID == 0 {
		job++
		w.Job.ID = job
	}
	if w.Audio.ID == 0 {
		audio++
		w.Audio.ID = audio
	}
	if w.CreatedOn.IsZero() {
		w.CreatedOn = st.now()
	}
	if w.Audio.CreatedOn.IsZero() {
		w.Audio.CreatedOn = w.CreatedOn
	}
	if w.Metadata == nil {
		w.Metadata = jsontext.Value("{}")
	}
	if w.ID == 0 {
		w.ID = tr.last + 1
	}
	b, err := tr.encode(&w)
	if err != nil {
		return nil, Ref{}, err
	}
	tr.lastJob, tr.lastAudio, tr.last = max(job, w.Job.ID), max(audio, w.Audio.ID), max(tr.last, w.ID)
	ref := tr.arena.Put(b)
	tr.owner[w.ID] = u.ID
	o := tr.owned[u.ID]
	if o == nil {
		o = &owned{}
		tr.owned[u.ID] = o
	}
	i := len(o.ids)
	if i > 0 && o.ids[i-1] > w.ID { // an id chosen below the owner's largest
		o.ids.Insert(w.ID)
		i = indexOf(o.ids, w.ID)
		o.refs = append(o.refs[:i], append([]Ref{ref}, o.refs[i:]...)...)
	} else {
		o.ids = append(o.ids, w.ID)
		o.refs = append(o.refs, ref)
	}
	return tr.arena.Get(ref), ref, nil
}

func indexOf(ids index.IDs, id int64) int {
	start, _ := ids.Bounds(id-1, 1)
	return start
}

// encode encodes w into tr.buf, valid until the next encode.
func (tr *transcripts) encode(w *wireTranscript) ([]byte, error) {
	if w.Metadata.Kind() != jsontext.BeginObject.Kind() {
		return nil, &FieldError{"metadata", "must be a JSON object"}
	}
	tr.buf.Reset()
	if err := apijson.MarshalWrite(&tr.buf, w); err != nil {
		return nil, &FieldError{"transcript", "cannot be encoded as JSON (a timestamp outside the years 0 to 9999?)"}
	}
	return bytes.TrimSuffix(tr.buf.Bytes(), []byte("\n")), nil
}

// emitTranscript emits an event per plugin that reads owner's transcripts.
func (tx *Tx) emitTranscript(typ string, owner int64, b []byte, at time.Time) {
	for _, in := range tx.st.activeReaders(owner) {
		tx.emit(Event{Type: typ, PluginID: in.PluginID, InstallationUUID: in.UUID, CreatedOn: at, Data: b})
	}
}

// locate returns where transcript id is among its owner's.
func (st *Store) locate(id int64) (owner int64, o *owned, i int, ok bool) {
	owner, ok = st.tr.owner[id]
	if !ok {
		return 0, nil, 0, false
	}
	o = st.tr.owned[owner]
	return owner, o, indexOf(o.ids, id), true
}

// UpdateTranscript stores what fn makes of transcript id and emits transcript.updated.
func (tx *Tx) UpdateTranscript(id int64, fn func(*scribe.Transcript)) (scribe.Transcript, error) {
	st := tx.st
	owner, o, i, ok := st.locate(id)
	if !ok {
		return scribe.Transcript{}, fmt.Errorf("transcript %d: %w", id, ErrNotFound)
	}
	cur := DecodeTranscript(st.tr.arena.Get(o.refs[i]))
	next := cur
	next.Metadata = maps.Clone(cur.Metadata)
	fn(&next)
	meta, err := EncodeMetadata(next.Metadata)
	if err != nil {
		return scribe.Transcript{}, err
	}
	w := wireTranscript{ID: cur.ID, Headline: next.Headline, Text: next.Text, Type: next.Type, CreatedOn: cur.CreatedOn,
		Metadata: meta, User: cur.User, Job: next.Job, Audio: next.Audio}
	b, err := st.tr.encode(&w)
	if err != nil {
		return scribe.Transcript{}, err
	}
	st.tr.arena.Free(o.refs[i])
	o.refs[i] = st.tr.arena.Put(b)
	b = st.tr.arena.Get(o.refs[i])
	st.compact()
	tx.emitTranscript(TranscriptUpdated, owner, b, st.now())
	return DecodeTranscript(b), nil
}

// DeleteTranscript deletes transcript id.
func (tx *Tx) DeleteTranscript(id int64) error {
	st := tx.st
	owner, o, i, ok := st.locate(id)
	if !ok {
		return fmt.Errorf("transcript %d: %w", id, ErrNotFound)
	}
	st.tr.arena.Free(o.refs[i])
	o.ids.Remove(id)
	o.refs = append(o.refs[:i], o.refs[i+1:]...)
	if len(o.ids) == 0 {
		delete(st.tr.owned, owner)
	}
	delete(st.tr.owner, id)
	st.compact()
	return nil
}

// compact copies the live encodings into a fresh arena once dead ones outweigh them.
func (st *Store) compact() {
	if !st.tr.arena.wasteful() {
		return
	}
	var fresh Arena
	for _, o := range st.tr.owned {
		for i, r := range o.refs {
			o.refs[i] = fresh.Put(st.tr.arena.Get(r))
		}
	}
	st.tr.arena = fresh
}

// Transcript returns the encoding of transcript id if owner owns it.
func (st *Store) Transcript(owner, id int64) ([]byte, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	who, o, i, ok := st.locate(id)
	if !ok || who != owner {
		return nil, false
	}
	return st.tr.arena.Get(o.refs[i]), true
}

// TranscriptPage is PagePlugins for owner's transcripts, encoded.
func (st *Store) TranscriptPage(owner, afterID int64, limit int) (items [][]byte, hasMore bool, total int) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	o := st.tr.owned[owner]
	if o == nil {
		return nil, false, 0
	}
	start, end := o.ids.Bounds(afterID, limit)
	items = make([][]byte, end-start)
	for i, r := range o.refs[start:end] {
		items[i] = st.tr.arena.Get(r)
	}
	return items, end < len(o.ids), len(o.ids)
}

// TranscriptsOf returns owner's transcripts, decoded, by ascending id.
func (st *Store) TranscriptsOf(owner int64) []scribe.Transcript {
	items, _, _ := st.TranscriptPage(owner, 0, 1<<62)
	out := make([]scribe.Transcript, len(items))
	for i, b := range items {
		out[i] = DecodeTranscript(b)
	}
	return out
}
