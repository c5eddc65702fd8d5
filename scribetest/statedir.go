package scribetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/fixture"
	"github.com/scribehq/scribe-go/internal/persist"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// The state directory (WithStateDir) and the fixture export share one form:
// each resource a row in the fixture format, keys and secrets revealed, in
// a bucket named after its section, under its id. Memory stays the state
// the server reads; each change is written through, in the state's own
// transaction, before it returns.

// answersBucket holds the answers kept for Idempotency-Keys.
const answersBucket = "answers"

// openState opens the state directory of cfg, loads what it holds, and
// writes every change from then on through to it.
func (s *Server) openState(cfg *config) (err error) {
	if s.db, err = persist.Open(cfg.stateDir); err != nil {
		return fmt.Errorf("scribetest: WithStateDir: %w", err)
	}
	s.deliveries.db = s.db
	switch {
	case !s.db.Fresh() && len(cfg.fixtures) > 0:
		return fmt.Errorf("scribetest: WithStateDir: %s already holds a state, which is loaded as it is: fixtures load only into an empty directory (drop WithFixtures, or give another directory)", cfg.stateDir)
	case !s.db.Fresh():
		doc := fixture.Stream(func(section string, yield func([]byte) error) error {
			return s.db.Each(section, func(_, v []byte) error { return yield(v) })
		})
		defer doc.Close()
		if _, err = s.loadFixtures(doc); err == nil {
			err = errors.Join(s.deliveries.restore(), s.db.Each(answersBucket, s.answers.Restore))
		}
		if err != nil {
			return fmt.Errorf("scribetest: WithStateDir: %w", &persist.Error{Path: s.db.Path(), Err: fmt.Errorf("cannot be loaded: %w; it was left as it is", err)})
		}
	}
	s.st.Save = s.saveRows
	s.answers.Keep = func(key, answer []byte, gone [][]byte) {
		if err := s.db.Put(answersBucket, key, answer, gone...); err != nil {
			s.cfg.logger.Error("scribetest: keeping the answer to an Idempotency-Key in the state directory failed", "error", err)
		}
	}
	return nil
}

// saveRows is the state's Save: the rows tx changed, written in one
// transaction, after every row is removed if tx cleared the state (Reset).
// A failure fails this write and every later one: the directory no longer
// holds what the server does.
func (s *Server) saveRows(tx *state.Tx) error {
	if s.saveErr == nil {
		s.saveErr = s.db.Update(func(ptx *persist.Tx) (err error) {
			if tx.Cleared {
				err = ptx.ClearAll()
			}
			for _, ref := range tx.Changed {
				var v []byte // nil: removed
				if ref.Row != nil && err == nil {
					v, err = encodeRow(tx, ref.Row)
				}
				if err == nil {
					err = ptx.Set(ref.Section, persist.Key(uint64(ref.ID)), v)
				}
			}
			return err
		})
	}
	return s.saveErr
}

// encodeRow encodes a resource as a fixture document holds it, with its
// credentials.
func encodeRow(tx *state.Tx, row any) ([]byte, error) {
	switch r := row.(type) {
	case scribe.User:
		u := fixture.User{ID: &r.ID, FirstName: r.FirstName, LastName: r.LastName, EmailAddress: &r.EmailAddress}
		if key := tx.DeveloperKey(r.ID); key != "" {
			u.DeveloperKey = &key
		}
		row = u
	case scribe.PluginInstallation:
		row = fixture.Installation{ID: &r.ID, UUID: r.UUID, PluginID: r.PluginID, UserID: r.UserID,
			CreatedOn: r.CreatedOn, UpdatedOn: r.UpdatedOn, DeletedOn: r.DeletedOn}
	case scribe.Transcript:
		row = fixture.Transcript{ID: &r.ID, UserID: r.User.ID, Headline: r.Headline, Text: r.Text, Type: r.Type, Metadata: r.Metadata,
			Job: fixture.Job{ID: &r.Job.ID, Lines: r.Job.Lines}, Audio: fixture.Audio{ID: &r.Audio.ID, TranscriptAudio: r.Audio}, CreatedOn: r.CreatedOn}
	}
	return apijson.MarshalRevealed(row) // a plugin, secret key or webhook is its own fixture, with its secret
}

// export writes the state tx holds as a fixture document.
func export(w io.Writer, tx *state.Tx) error {
	return fixture.Write(w, func(section string, yield func([]byte) error) error {
		for row := range tx.IDs(section).Rows() {
			v, err := encodeRow(tx, row)
			if err == nil {
				err = yield(v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// ExportFixtures writes the server's resources to w as a fixture document
// (docs/server.md, "Fixtures"; api/fixtures.schema.json), as the admin
// API's GET /_scribetest/fixtures does: every user, plugin, secret key,
// installation, transcript and webhook, with its id, timestamps and
// credentials (developer keys, secret keys and signing secrets in the
// clear). Loaded into an empty server (WithFixtures, LoadFixtures,
// scribe-server -fixtures), it gives the same resources. Events,
// deliveries and requests are not part of it.
func (s *Server) ExportFixtures(w io.Writer) error {
	var b bytes.Buffer
	if err := s.st.View(func(tx *state.Tx) error { return export(&b, tx) }); err != nil {
		return fmt.Errorf("scribetest: ExportFixtures: %w", err)
	}
	_, err := w.Write(b.Bytes()) // out of the lock: a slow reader holds up no change
	return err
}

// keepInitial is the state's Before: the first change once the server has
// started keeps the state it is about to change, for Reset.
func (s *Server) keepInitial(tx *state.Tx) {
	if s.initial == nil && s.started.Load() {
		var b bytes.Buffer
		s.initialErr = export(&b, tx)
		s.initial = b.Bytes()
	}
}

// Reset returns the server to the state it started with: the resources it
// held when Start (or NewServer) returned, or Handler was first called
// (those of WithFixtures, of a state directory, or of LoadFixtures before),
// with their ids, keys and secrets, and the ids it assigns next. It forgets
// every event, delivery, attempt and request, the answers kept for
// Idempotency-Keys, and the faults injected and fired; the rate limit and
// the clock stay as they are. With a state directory, the reset is one
// transaction of it. An attempt in flight finishes unrecorded.
func (s *Server) Reset() error {
	s.started.Store(true) // a server never started returns to the state it holds
	err := s.st.Update(func(tx *state.Tx) error {
		d, err := fixture.Read(bytes.NewReader(s.initial))
		if err = errors.Join(s.initialErr, err); err != nil {
			return err
		}
		tx.Clear()
		s.deliveries.reset()
		s.requests.reset()
		s.faults.clear()
		s.faults.fired.reset()
		s.answers.Forget()
		_, err = load(tx, d)
		return err
	})
	if err != nil {
		return fmt.Errorf("scribetest: Reset: %w", err)
	}
	return nil
}
