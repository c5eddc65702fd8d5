package delivery

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// String formats an attempt on one line, the receiver's answer included.
func (a Attempt) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "attempt %d at %s: ", a.Attempt, a.Time.UTC().Format(time.RFC3339Nano))
	switch {
	case a.Delivered:
		fmt.Fprintf(&b, "delivered, %d %s", a.StatusCode, http.StatusText(a.StatusCode))
	case a.Error != "":
		b.WriteString(a.Error)
	default:
		fmt.Fprintf(&b, "%d %s", a.StatusCode, http.StatusText(a.StatusCode))
	}
	fmt.Fprintf(&b, " (%v)", a.Duration.Round(time.Microsecond))
	if a.ResponseBody != "" {
		fmt.Fprintf(&b, "; answer: %q", a.ResponseBody)
	}
	switch {
	case a.Permanent:
		b.WriteString("; failed permanently, not retried")
	case a.Final && !a.Delivered:
		b.WriteString("; given up")
	}
	return b.String()
}

// key names one delivery: an event to a webhook.
type key struct {
	event string
	hook  int64
}

// Require waits for the deliveries of the events named (all, if none) to settle and
// returns their attempts and, if one did not end with a 2xx, the failure to report.
func (e *Engine) Require(eventIDs []string, timeout time.Duration) (failure string, attempts []Attempt) {
	named := make(map[string]bool, len(eventIDs))
	for _, id := range eventIDs {
		named[id] = true
	}
	var want func(*delivery) bool
	if len(named) > 0 {
		want = func(dl *delivery) bool { return named[dl.ev.id] }
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if e.advancer == nil {
		go e.stopBeforeLateRetry(ctx, cancel, want) // on the system clock, do not wait for a retry due after the bound
	}
	_, cause := e.settled(ctx, want)

	e.mu.Lock()
	all := e.attempts.All()
	waiting := e.waitingLocked(want)
	e.mu.Unlock()
	byDelivery := map[key][]Attempt{}
	var order []key
	for _, a := range all {
		if len(named) > 0 && !named[a.EventID] {
			continue
		}
		attempts = append(attempts, a)
		k := key{a.EventID, a.WebhookID}
		if _, ok := byDelivery[k]; !ok {
			order = append(order, k)
		}
		byDelivery[k] = append(byDelivery[k], a)
	}
	for _, w := range waiting {
		if _, ok := byDelivery[w.key]; !ok {
			order = append(order, w.key)
			byDelivery[w.key] = nil
		}
	}
	report := describe(order, byDelivery, waiting)
	seen := map[string]bool{}
	for _, k := range order {
		seen[k.event] = true
	}
	for _, id := range eventIDs {
		if !seen[id] {
			report += fmt.Sprintf("\n  event %s: no delivery of it was emitted (no webhook of its plugin, an id from elsewhere, or more than %d attempts ago)", id, state.MaxRecords)
		}
	}
	if len(named) == 0 && len(order) == 0 {
		report = "\n  no webhook event was emitted: does the plugin have a webhook (CreateWebhook), and did something install it or create a transcript?"
	}
	if report == "" {
		return "", attempts
	}
	why := ""
	if cause != nil {
		why = fmt.Sprintf(" (the wait ended: %v)", cause)
	}
	return "not every delivery got a 2xx answer" + why + ":" + report, attempts
}

// waiting is a pending delivery and what it waits for.
type waiting struct {
	key
	typ, uri, state string
}

func (e *Engine) waitingLocked(want func(*delivery) bool) map[key]waiting {
	out := map[key]waiting{}
	for _, dl := range e.sortedLocked(want) {
		w := waiting{key: key{dl.ev.id, dl.hook}, typ: string(dl.ev.typ), uri: dl.uri}
		switch {
		case dl.timer != nil:
			w.state = fmt.Sprintf("still pending: next attempt due at %s, %v from now by the server's clock",
				dl.due.UTC().Format(time.RFC3339Nano), dl.due.Sub(e.clock.Now()).Round(time.Millisecond))
		case e.closed:
			w.state = "never delivered: the server was closed"
		default:
			w.state = "still pending: an attempt is due or in flight"
		}
		out[w.key] = w
	}
	return out
}

// describe lists each delivery that did not get through.
func describe(order []key, byDelivery map[key][]Attempt, pending map[key]waiting) string {
	var b strings.Builder
	for _, k := range order {
		as := byDelivery[k]
		if len(as) > 0 && as[len(as)-1].Delivered {
			continue
		}
		w, isPending := pending[k]
		typ, uri := w.typ, w.uri
		if len(as) > 0 {
			typ, uri = string(as[0].EventType), as[0].URI
		}
		fmt.Fprintf(&b, "\n  event %s (%s) to webhook %d (%s):", k.event, typ, k.hook, uri)
		for _, a := range as {
			fmt.Fprintf(&b, "\n    %s", a)
		}
		if isPending {
			fmt.Fprintf(&b, "\n    %s", w.state)
		} else if len(as) == 0 {
			b.WriteString("\n    no attempt recorded")
		}
	}
	return b.String()
}

// stopBeforeLateRetry cancels the wait once every delivery waits past ctx's deadline.
func (e *Engine) stopBeforeLateRetry(ctx context.Context, cancel context.CancelFunc, want func(*delivery) bool) {
	deadline, _ := ctx.Deadline()
	for {
		e.mu.Lock()
		dls := e.sortedLocked(want)
		late := len(dls) > 0
		for _, dl := range dls {
			if dl.timer == nil || !dl.due.After(e.clock.Now().Add(time.Until(deadline))) {
				late = false
			}
		}
		if late {
			e.mu.Unlock()
			cancel()
			return
		}
		changed := e.changedLocked()
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-e.done:
			return
		}
	}
}
