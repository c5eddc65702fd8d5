package devserver

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
)

// The events page, read from the server's record of the events it
// emitted (Server.Events): one page of them, each delivery's state and
// attempts read at one moment, so that they agree.

// eventsView is one page of the events, newest first: all of them, or
// those about one installation.
type eventsView struct {
	Installation string // the filter, "" for none
	Events       []eventView
	Pager        pagerView
}

type eventView struct {
	ID, Type, Installation, Time string
	Payload                      string // pretty-printed and redacted; "" when sent to no webhook
	Failed                       bool   // a delivery's last attempt failed
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
	ID                            string // its details' element id
	N                             int
	Time, Status, Latency, Answer string
	Failed                        bool
	Sent, Answered                []headerView
	Calls                         []requestView // the receiver's calls with the event's installation until the next attempt
	MoreCalls                     int           // calls beyond maxCalls, not listed
}

type headerView struct{ Name, Value string }

// maxCalls bounds the calls listed under an attempt.
const maxCalls = 20

// eventsView reads page n of the events the server keeps, of installation
// if not "". The page's events come with those newer, whose attempts end
// the windows of the calls an attempt caused.
func (d *dashboard) eventsView(installation string, n int) eventsView {
	skip := (n - 1) * eventsPerPage
	events, kept := d.s.Events(0, skip+eventsPerPage)
	if installation != "" {
		events, _ = d.s.Events(0, maxRecords)
		events = slices.DeleteFunc(events, func(ev scribetest.EmittedEvent) bool { return !strings.EqualFold(ev.InstallationUUID, installation) })
		kept = len(events)
	}
	v := eventsView{Installation: installation, Pager: newPager(n, eventsPerPage, kept, func(n int) string { return eventsURL(installation, n) })}
	calls := newCallIndex(d.s.Requests(), events)
	for _, ev := range events[min(skip, len(events)):min(skip+eventsPerPage, len(events))] {
		v.Events = append(v.Events, eventRow(ev, calls))
	}
	return v
}

func eventsURL(installation string, n int) string {
	q := url.Values{}
	if installation != "" {
		q.Set("installation", installation)
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return DashboardPath + "events"
	}
	return DashboardPath + "events?" + q.Encode()
}

// callIndex finds the requests an attempt caused: those of its event's
// installation from the attempt's time until its delivery's next attempt,
// or the first later attempt of another event of that installation.
type callIndex struct {
	requests map[string][]scribetest.Request // by installation, oldest first
	attempts map[string][]eventAttempt       // by installation
}

type eventAttempt struct {
	event string
	at    time.Time
}

func newCallIndex(requests []scribetest.Request, events []scribetest.EmittedEvent) callIndex {
	c := callIndex{requests: map[string][]scribetest.Request{}, attempts: map[string][]eventAttempt{}}
	for _, r := range requests {
		if r.Installation != "" {
			c.requests[r.Installation] = append(c.requests[r.Installation], r)
		}
	}
	for _, ev := range events {
		for _, dl := range ev.Deliveries {
			for _, a := range dl.Attempts {
				c.attempts[ev.InstallationUUID] = append(c.attempts[ev.InstallationUUID], eventAttempt{ev.ID, a.Time})
			}
		}
	}
	return c
}

// caused returns the requests of ev's installation from a until next (the
// delivery's next attempt; zero for none), or until another event's first
// attempt after a, and how many there were.
func (c callIndex) caused(ev scribetest.EmittedEvent, a scribetest.DeliveryAttempt, next time.Time) ([]scribetest.Request, int) {
	for _, o := range c.attempts[ev.InstallationUUID] {
		if o.event != ev.ID && o.at.After(a.Time) && (next.IsZero() || o.at.Before(next)) {
			next = o.at
		}
	}
	var out []scribetest.Request
	n := 0
	for _, r := range c.requests[ev.InstallationUUID] {
		if !r.Time.Before(a.Time) && (next.IsZero() || r.Time.Before(next)) {
			if n++; len(out) < maxCalls {
				out = append(out, r)
			}
		}
	}
	return out, n
}

// eventRow renders an event with its payload, its deliveries and their
// attempts, each with the calls it caused.
func eventRow(ev scribetest.EmittedEvent, calls callIndex) eventView {
	v := eventView{ID: ev.ID, Type: string(ev.Type), Installation: ev.InstallationUUID, Time: clock(ev.Time)}
	if ev.Payload != nil {
		v.Payload = prettyJSON(ev.Payload)
	}
	for _, dl := range ev.Deliveries {
		dv := deliveryView{WebhookID: dl.WebhookID, URI: redact.Text(dl.URI), NextRetry: clock(dl.NextAttempt)}
		dv.State, dv.Class = deliveryState(dl)
		for i, a := range dl.Attempts {
			av := attemptRow(a)
			av.ID = "attempt-" + ev.ID + "-" + strconv.FormatInt(dl.WebhookID, 10) + "-" + strconv.Itoa(i)
			var next time.Time
			if i+1 < len(dl.Attempts) {
				next = dl.Attempts[i+1].Time
			}
			if ev.InstallationUUID != "" && a.Attempt > 0 {
				rs, n := calls.caused(ev, a, next)
				for _, r := range rs {
					av.Calls = append(av.Calls, requestRow(r))
				}
				av.MoreCalls = n - len(rs)
			}
			dv.Attempts = append(dv.Attempts, av)
		}
		v.Failed = v.Failed || len(dl.Attempts) > 0 && !dl.Attempts[len(dl.Attempts)-1].Delivered
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
	v.Sent, v.Answered = headerRows(a.RequestHeaders), headerRows(a.ResponseHeaders)
	return v
}

// headerRows are h's headers, sorted by name, each value redacted.
func headerRows(h http.Header) []headerView {
	var out []headerView
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			out = append(out, headerView{Name: name, Value: redact.Field(v, maxHeaderValue)})
		}
	}
	return out
}

// resend serves an event's Resend button: the admin operation POST
// /_scribetest/events/{id}/resend, then the page the button was on.
func (d *dashboard) resend(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	n, of := pageNumber(r), r.FormValue("installation")
	if _, err := d.d.resend(r, nil); err != nil {
		d.refuse(w, d.eventsPage(eventsURL(of, n), of, n), err)
		return
	}
	http.Redirect(w, r, eventsURL(of, n), http.StatusSeeOther)
}
