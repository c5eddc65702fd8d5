package scribetest

import (
	"errors"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/persist"
)

// In a state directory (WithStateDir), each event is a row of the events
// bucket, with its deliveries as they stand, written again at each change of
// one; each attempt is a row of the attempts bucket. Both keep the last
// maxRecords, as the engine does, but an event stays while one of its
// deliveries is pending.

// The engine's buckets.
const (
	eventsBucket   = "events"
	attemptsBucket = "attempts"
)

// savedEvent is an event's row.
type savedEvent struct {
	sentEvent  `json:",inline"`
	Body       []byte
	Deliveries []savedDelivery
}

// savedDelivery is a delivery in its event's row: as PendingDelivery
// reports it (its NextAttempt zero when the attempt is due now), with what
// makes its next attempt.
type savedDelivery struct {
	PendingDelivery `json:",inline"`
	Seq             uint64
	Secret          string
	Pending, Once   bool
}

// savedAttempt is an attempt's row: the attempt, with its Duration in
// nanoseconds (a time.Duration has no JSON form of its own).
type savedAttempt struct {
	DeliveryAttempt
	Duration int64
}

// saveLocked writes the attempts recs and the rows of evs (nil ones
// skipped), as their deliveries stand, to the state directory in one
// transaction; an event's row goes once the event has left the ring and
// none of its deliveries is pending.
func (e *engine) saveLocked(recs []DeliveryAttempt, evs ...*sentEvent) {
	if e.db == nil {
		return
	}
	err := e.db.Update(func(tx *persist.Tx) (err error) {
		for _, ev := range evs {
			if ev == nil || err != nil {
				continue
			}
			row, kept := savedEvent{sentEvent: *ev}, ev.key+maxRecords > e.eventKey
			for _, dl := range ev.deliveries {
				d := savedDelivery{PendingDelivery: dl.PendingDelivery, Seq: dl.seq, Secret: dl.secret.Reveal(), Pending: e.unsettled[dl], Once: dl.once}
				row.Body, row.Deliveries, kept = dl.body, append(row.Deliveries, d), kept || d.Pending
			}
			var v []byte // nil: the row goes
			if kept {
				v, err = apijson.Marshal(row)
			}
			err = errors.Join(err, tx.Set(eventsBucket, persist.Key(ev.key), v))
		}
		for _, rec := range recs {
			v, merr := apijson.Marshal(savedAttempt{rec, int64(rec.Duration)})
			_, aerr := tx.Append(attemptsBucket, v, maxRecords)
			err = errors.Join(err, merr, aerr)
		}
		return err
	})
	if err != nil {
		e.logger.Error("scribetest: keeping webhook deliveries in the state directory failed", "error", err)
	}
}

// restore reads the events and attempts of the state directory, and has
// each pending delivery make its next attempt when it is due, or at once if
// that time has passed.
func (e *engine) restore() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.db.Each(eventsBucket, func(k, v []byte) error {
		var row savedEvent
		if err := apijson.Unmarshal(v, &row, apijson.Lenient()); err != nil {
			return err
		}
		ev := &row.sentEvent
		ev.key, e.eventKey = persist.KeyID(k), persist.KeyID(k)
		for _, d := range row.Deliveries {
			secret, err := auth.ParseWebhookSecret(d.Secret)
			if err != nil {
				return err
			}
			dl := &delivery{PendingDelivery: d.PendingDelivery, seq: d.Seq, body: row.Body, secret: secret, once: d.Once, event: ev}
			ev.deliveries, e.seq = append(ev.deliveries, dl), max(e.seq, dl.seq)
			if d.Pending {
				e.unsettled[dl] = true
				e.waitLocked(dl, d.NextAttempt.Sub(e.clock.Now()))
			}
		}
		e.events.Push(ev)
		e.keepLocked(ev, nil)
		return nil
	})
	return errors.Join(err, e.db.Each(attemptsBucket, func(k, v []byte) error {
		var row savedAttempt
		if err := apijson.Unmarshal(v, &row, apijson.Lenient()); err != nil {
			return err
		}
		row.DeliveryAttempt.Duration = time.Duration(row.Duration)
		e.recordLocked(row.DeliveryAttempt)
		return nil
	}))
}

// reset forgets every event, delivery and attempt; an attempt in flight
// ends unrecorded.
func (e *engine) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopTimersLocked()
	clear(e.unsettled)
	e.ready = nil
	e.events.reset()
	e.record.reset()
	e.kept, e.excerpts = 0, 0
	e.notifyLocked()
}

// stopTimersLocked stops the timers of the deliveries waiting for a retry.
func (e *engine) stopTimersLocked() {
	for dl := range e.unsettled {
		if dl.timer != nil && dl.timer.Stop() {
			dl.timer, dl.NextAttempt = nil, time.Time{}
			e.wg.Done()
		}
	}
}
