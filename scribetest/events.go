package scribetest

import (
	"slices"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

// EmittedEvent is an event the server emitted, as Events returns it, with
// its deliveries.
type EmittedEvent struct {
	// ID is the event's id, sent as webhook-id.
	ID string
	// Type is the event's type, such as webhook.EventTranscriptCreated.
	Type webhook.EventType
	// InstallationUUID is the uuid of the installation the event is about.
	InstallationUUID string
	// Time is the event's created_on.
	Time time.Time
	// Payload is the event's JSON body, as every attempt sent it, shared
	// with the server (do not modify it); nil when the event went to no
	// webhook (none, or larger than MaxEventBytes).
	Payload []byte `json:"-"`
	// Deliveries are the event's deliveries, one per webhook its plugin had
	// when it was emitted, in the order of the webhooks; none when it had
	// none.
	Deliveries []EventDelivery
}

// EventDelivery is an event's delivery to one webhook.
type EventDelivery struct {
	// WebhookID is the id of the webhook.
	WebhookID int64
	// URI is the webhook's URL, as registered.
	URI string
	// Pending reports that the delivery is not settled: PendingDeliveries
	// lists it.
	Pending bool
	// NextAttempt is when a pending delivery's next attempt is due, by the
	// server's clock; zero when it is due now or in flight, when the
	// delivery is settled, and after Close.
	NextAttempt time.Time
	// Attempts are the delivery's attempts that Deliveries still lists,
	// oldest first; the last says how a settled delivery ended. An event
	// too large to send has one, numbered 0, and is not pending.
	Attempts []DeliveryAttempt
}

// Events returns up to limit of the events the server keeps (the last
// 10,000 it emitted), newest first, after the skip newest, each with its
// deliveries' state and attempts read at one moment, and how many events
// it keeps: Events(20, 20) is the second page of 20. It reads only the
// events it returns, so a page costs the same however many are kept.
func (s *Server) Events(skip, limit int) ([]EmittedEvent, int) {
	e := s.deliveries
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eventsLocked(skip, limit)
}

// eventsLocked is Events, with e.mu held.
func (e *engine) eventsLocked(skip, limit int) ([]EmittedEvent, int) {
	var page []EmittedEvent
	at := map[string]int{} // the page's events by id
	n := 0
	for ev := range e.events.Backward {
		if n++; len(page) >= limit {
			break
		} else if n <= skip {
			continue
		}
		out := ev.EmittedEvent
		for _, dl := range ev.deliveries {
			out.Payload = dl.body
			out.Deliveries = append(out.Deliveries, EventDelivery{WebhookID: dl.WebhookID, URI: dl.URI, Pending: e.unsettled[dl], NextAttempt: dl.NextAttempt})
		}
		at[ev.ID] = len(page)
		page = append(page, out)
	}
	for a := range e.record.Backward { // newest first: each delivery's list is reversed below
		i, ok := at[a.EventID]
		if !ok {
			continue
		}
		ds := &page[i].Deliveries
		j := slices.IndexFunc(*ds, func(d EventDelivery) bool { return d.WebhookID == a.WebhookID })
		if j < 0 { // recorded without a delivery: too large to send
			*ds, j = append(*ds, EventDelivery{WebhookID: a.WebhookID, URI: a.URI}), len(*ds)
		}
		(*ds)[j].Attempts = append((*ds)[j].Attempts, a)
	}
	for _, ev := range page {
		for _, d := range ev.Deliveries {
			slices.Reverse(d.Attempts)
		}
	}
	return page, min(e.events.Total(), maxRecords)
}
