package scribetest

import "slices"

// DefaultBodyBudget is how many bytes of event bodies and answer excerpts
// the server keeps, unless WithBodyBudget says otherwise: 256 MiB.
const DefaultBodyBudget = 256 << 20

// WithBodyBudget bounds, in bytes, what the server keeps of the events it
// delivered (their bodies, for Resend) and of the receivers' answers
// (DeliveryAttempt.ResponseBody). Past the budget the bodies of the oldest
// events are dropped first; resending such an event is an error wrapping
// ErrConflict that says its body is no longer kept (the admin API's 409).
// A delivery still pending keeps its body whatever the budget, so that no
// event goes undelivered. bytes must be positive; the default is
// DefaultBodyBudget.
func WithBodyBudget(bytes int64) Option {
	return option(refuse(bytes < 1, "scribetest: WithBodyBudget: %d bytes; give a positive budget, such as 64 << 20 (the default, DefaultBodyBudget, is 256 MiB)", bytes),
		func(cfg *config) { cfg.budget = bytes })
}

// keepLocked counts the body of sent, which the events ring now holds,
// forgets that of gone, the event that left it, and keeps to the budget.
func (e *engine) keepLocked(sent, gone *sentEvent) {
	e.kept += sent.bodyBytes() - gone.bodyBytes()
	e.trimLocked()
}

// bodyBytes is the size of the body ev keeps (its deliveries share one); 0 for nil.
func (ev *sentEvent) bodyBytes() int64 {
	if ev == nil || len(ev.deliveries) == 0 {
		return 0
	}
	return int64(len(ev.deliveries[0].body))
}

// recordLocked records a finished attempt, counting its answer's excerpt
// instead of that of the attempt it pushes out of the record.
func (e *engine) recordLocked(rec DeliveryAttempt) {
	old := e.record.Push(rec)
	e.excerpts += int64(len(rec.ResponseBody) - len(old.ResponseBody))
}

// trimLocked drops the bodies of the oldest events none of whose
// deliveries is pending while what is kept exceeds the budget. The ring's
// values are pushed under e.mu, which is held.
func (e *engine) trimLocked() {
	for i := 0; e.kept+e.excerpts > e.budget && i < len(e.events.buf); i++ {
		ev := e.events.buf[(e.events.next+i)%len(e.events.buf)]
		if ev.bodyBytes() == 0 || slices.ContainsFunc(ev.deliveries, func(dl *delivery) bool { return e.unsettled[dl] }) {
			continue
		}
		e.kept -= ev.bodyBytes()
		for _, dl := range ev.deliveries {
			dl.body = nil
		}
	}
}
