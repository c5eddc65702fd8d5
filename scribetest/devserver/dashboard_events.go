package devserver

import (
	"net/http"
	"strconv"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
)

// The events page, read from the server's record of the events it
// emitted (Server.Events): one page of them, each delivery's state and
// attempts read at one moment, so that they agree.

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
	WebhookID int64
	URI       string
	State     string // delivered, gave up, refused permanently, retrying, due, settled
	Class     string // ok, failed or pending
	NextRetry string
	Attempts  []attemptView
}

type attemptView struct {
	N                             int
	Time, Status, Latency, Answer string
	Failed                        bool
}

// eventsView reads page n of the events the server keeps.
func (d *dashboard) eventsView(n int) eventsView {
	events, kept := d.s.Events((n-1)*eventsPerPage, eventsPerPage)
	v := eventsView{Pager: newPager(n, eventsPerPage, kept, eventsURL)}
	for _, ev := range events {
		v.Events = append(v.Events, eventRow(ev))
	}
	return v
}

func eventsURL(n int) string {
	if n > 1 {
		return DashboardPath + "events?page=" + strconv.Itoa(n)
	}
	return DashboardPath + "events"
}

// eventRow renders an event with its deliveries and their attempts.
func eventRow(ev scribetest.EmittedEvent) eventView {
	v := eventView{ID: ev.ID, Type: string(ev.Type), Installation: ev.InstallationUUID, Time: clock(ev.Time)}
	for _, dl := range ev.Deliveries {
		dv := deliveryView{WebhookID: dl.WebhookID, URI: redact.Text(dl.URI), NextRetry: clock(dl.NextAttempt)}
		dv.State, dv.Class = deliveryState(dl)
		for _, a := range dl.Attempts {
			dv.Attempts = append(dv.Attempts, attemptRow(a))
			v.Failed = v.Failed || !a.Delivered
		}
		v.Deliveries = append(v.Deliveries, dv)
	}
	return v
}

// deliveryState says where a delivery stands: pending, or settled as its
// last attempt says.
func deliveryState(dl scribetest.EventDelivery) (state, class string) {
	switch {
	case dl.Pending && !dl.NextAttempt.IsZero():
		return "retrying", "pending"
	case dl.Pending:
		return "attempt due or in flight", "pending"
	case len(dl.Attempts) == 0:
		return "settled", ""
	}
	switch last := dl.Attempts[len(dl.Attempts)-1]; {
	case last.Delivered:
		return "delivered", "ok"
	case last.Permanent:
		return "refused permanently", "failed"
	case last.Final:
		return "gave up", "failed"
	}
	return "failed", "failed"
}

// attemptRow renders an attempt: its status, or what went wrong.
func attemptRow(a scribetest.DeliveryAttempt) attemptView {
	v := attemptView{N: a.Attempt, Time: clock(a.Time), Latency: millisText(a.Duration), Answer: redact.Text(a.ResponseBody), Failed: !a.Delivered}
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

// resend serves an event's Resend button: the admin operation POST
// /_scribetest/events/{id}/resend, then the page the button was on.
func (d *dashboard) resend(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	n := pageNumber(r)
	if _, err := d.d.resend(r, nil); err != nil {
		d.refuse(w, d.eventsPage(eventsURL(n), n), err)
		return
	}
	http.Redirect(w, r, eventsURL(n), http.StatusSeeOther)
}
