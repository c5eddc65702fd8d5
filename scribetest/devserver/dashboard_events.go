package scribetest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/scribehq/scribe-go/internal/redact"
)

// The events page and the overview's delivery figures, read from the
// delivery engine's records: the events it published (the last 10,000) and
// the attempts it finished (the last 10,000), under its lock, so that a
// delivery's state and its attempts agree.

// eventsView is one page of the events, newest first.
type eventsView struct {
	Events []eventView
	Pager  pagerView
}

type eventView struct {
	ID, Type, Installation, Time string
	Failed                       bool // an attempt failed
	Deliveries                   []deliveryView
}

// deliveryView is an event's delivery to one webhook.
type deliveryView struct {
	WebhookID  int64
	URI        string
	State      string // delivered, failed, gave up, retrying, due, never delivered
	Class      string // ok, failed or pending
	NextRetry  string
	Attempts   []attemptView
	unsettled  bool
	retryAfter bool // a timer waits for the next attempt
}

type attemptView struct {
	N                             int
	Time, Status, Latency, Answer string
	Failed                        bool
}

// eventsView reads page n of the events the engine kept.
func (d *dashboard) eventsView(n int) eventsView {
	e := d.s.deliveries
	e.mu.Lock()
	defer e.mu.Unlock()
	var page []sentEvent
	kept, first := 0, (n-1)*eventsPerPage
	for ev := range e.events.Backward {
		if kept >= first && kept < first+eventsPerPage {
			page = append(page, ev)
		}
		kept++
	}
	v := eventsView{Pager: newPager(n, eventsPerPage, kept, eventsURL)}
	// The page's attempts, newest first, by event.
	attempts := map[string][]DeliveryAttempt{}
	for _, ev := range page {
		attempts[ev.ID] = nil
	}
	for a := range e.record.Backward {
		if as, ok := attempts[a.EventID]; ok {
			attempts[a.EventID] = append(as, a)
		}
	}
	for _, ev := range page {
		v.Events = append(v.Events, e.eventViewLocked(ev, attempts[ev.ID]))
	}
	return v
}

func eventsURL(n int) string {
	if n > 1 {
		return DashboardPath + "events?page=" + strconv.Itoa(n)
	}
	return DashboardPath + "events"
}

// eventViewLocked renders an event with its deliveries: those the engine
// made of it, and the attempts (newest first) of any it recorded without
// making one (an event too large to send).
func (e *engine) eventViewLocked(ev sentEvent, attempts []DeliveryAttempt) eventView {
	v := eventView{ID: ev.ID, Type: string(ev.Type), Installation: ev.InstallationUUID, Time: clock(ev.Time)}
	byHook := map[int64]*deliveryView{}
	var order []int64
	hook := func(id int64, uri string) *deliveryView {
		if dv, ok := byHook[id]; ok {
			return dv
		}
		byHook[id] = &deliveryView{WebhookID: id, URI: redact.Text(uri)}
		order = append(order, id)
		return byHook[id]
	}
	for _, dl := range ev.deliveries {
		dv := hook(dl.hook, dl.uri)
		_, dv.unsettled = e.unsettled[dl]
		if dv.unsettled && dl.timer != nil {
			dv.retryAfter, dv.NextRetry = true, clock(dl.due)
		}
	}
	for _, a := range slices.Backward(attempts) {
		dv := hook(a.WebhookID, a.URI)
		dv.Attempts = append(dv.Attempts, attemptRow(a))
		v.Failed = v.Failed || !a.Delivered
	}
	for _, id := range order {
		dv := byHook[id]
		dv.State, dv.Class = e.stateLocked(dv, attempts)
		v.Deliveries = append(v.Deliveries, *dv)
	}
	return v
}

// stateLocked says where a delivery stands: pending, or settled as its
// last attempt says.
func (e *engine) stateLocked(dv *deliveryView, attempts []DeliveryAttempt) (state, class string) {
	switch {
	case dv.unsettled && e.closed:
		return "never delivered: the server was closed", "failed"
	case dv.unsettled && dv.retryAfter:
		return "retrying", "pending"
	case dv.unsettled:
		return "attempt due or in flight", "pending"
	}
	i := slices.IndexFunc(attempts, func(a DeliveryAttempt) bool { return a.WebhookID == dv.WebhookID })
	switch {
	case i < 0:
		return "settled", ""
	case attempts[i].Delivered:
		return "delivered", "ok"
	case attempts[i].Permanent:
		return "refused permanently", "failed"
	case attempts[i].Attempt >= len(e.schedule):
		return "gave up", "failed"
	}
	return "failed", "failed"
}

// attemptRow renders an attempt: its status, or what went wrong.
func attemptRow(a DeliveryAttempt) attemptView {
	v := attemptView{N: a.Attempt, Time: clock(a.Time), Latency: millis(a.Duration), Answer: redact.Text(a.ResponseBody), Failed: !a.Delivered}
	switch {
	case a.Error != "":
		v.Status = redact.Text(a.Error)
	case a.StatusCode != 0:
		v.Status = strconv.Itoa(a.StatusCode) + " " + http.StatusText(a.StatusCode)
	}
	if a.Attempt == 0 { // recorded without being sent
		v.Latency = ""
	}
	return v
}

// tally is the overview's delivery figures.
type tally struct {
	events, deliveries, delivered, failed, pending int
	attempts, failedAttempts                       int
}

// tally counts the events published, the deliveries of the events the
// engine keeps (pending, or settled as their last attempt says) and the
// attempts it keeps.
func (e *engine) tally() tally {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := tally{events: e.events.Total()}
	for ev := range e.events.Backward {
		for _, dl := range ev.deliveries {
			_, pending := e.unsettled[dl]
			switch {
			case pending:
				t.pending++
			case dl.lastErr == "":
				t.delivered++
			default:
				t.failed++
			}
		}
	}
	t.deliveries = t.delivered + t.failed + t.pending
	for a := range e.record.Backward {
		t.attempts++
		if !a.Delivered {
			t.failedAttempts++
		}
	}
	return t
}

// resend serves an event's Resend button: the admin operation POST
// /_scribetest/events/{id}/resend, then the page the button was on.
func (d *dashboard) resend(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	n := pageNumber(r)
	if _, err := d.s.adminResend(r, nil); err != nil {
		d.refuse(w, d.eventsPage(eventsURL(n), n), err)
		return
	}
	http.Redirect(w, r, eventsURL(n), http.StatusSeeOther)
}
