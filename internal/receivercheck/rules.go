package receivercheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

// rule is one thing a correct receiver does. Each rule sends events the
// receiver has not seen (but for the redelivery in its own rule), so that
// rules do not disturb each other and no refusal can be passed by dedupe
// alone.
type rule struct {
	name  string
	claim string // "{timeout}" stands for the timeout
	// counted is added to the claim when the check counts processing
	// exactly (Config.Processed).
	counted string
	// watched is added to the claim when the check does not count
	// processing exactly; for a refusal, only once the receiver was seen
	// calling the server back for valid events.
	watched string
	refusal bool
	// why says why the rule matters, after the failures.
	why string
	// check sends the rule's deliveries and returns one sentence per
	// delivery whose answer (or processing) broke the rule, or why its
	// processing could not be checked; an error only when it could not
	// build a delivery or reach the server.
	check func(context.Context, *checker) (verdict, error)
}

func (r rule) claimFor(c *checker) string {
	claim := strings.ReplaceAll(r.claim, "{timeout}", c.timeout.String())
	switch {
	case c.count != nil:
		claim += r.counted
	case !r.refusal || (c.watching() && c.callsBack()):
		claim += r.watched
	}
	return claim
}

// callsBack reports whether the receiver called the server back for any
// event of the valid rule.
func (c *checker) callsBack() bool {
	for _, n := range c.baseline {
		if n > 0 {
			return true
		}
	}
	return false
}

// The hint of the rules that a receiver without a shared dedupe breaks.
const dedupeHint = "dedupe on webhook-id (process an id once, answer a duplicate 2xx). " +
	"If more than one process answers at the URL (replicas behind a load balancer), each with a store of its own, " +
	"they must share the store (Redis: webhook/redisdedupe; or a table keyed by the id): a redelivery or a duplicate " +
	"that reaches another replica is processed again."

const neverProcessed = ", and never processed (no call to the server for its event)"

// rules are checked in this order.
var rules = []rule{{
	name:    "valid",
	claim:   "a valid delivery of each event type is answered 2xx within {timeout}",
	counted: ", and processed once",
	why: "The service counts only a 2xx within its timeout as delivered: anything else, or a later answer, " +
		"is a failed attempt, and the event is redelivered for more than a day.",
	check: checkValid,
}, {
	name:    "redelivery",
	claim:   "a redelivery of a handled event (same webhook-id, new timestamp and signature) is answered 2xx",
	counted: ", and not processed again",
	watched: ", and not processed again",
	why: "The service redelivers whenever it did not see your 2xx (a timeout, a dropped connection): " +
		dedupeHint + " Otherwise the service retries an event you already handled for more than a day, or you handle it twice.",
	check: checkRedelivery,
}, {
	name:    "wrong-secret",
	claim:   "a delivery signed with another secret is refused with 4xx",
	counted: ", and never processed",
	watched: neverProcessed,
	refusal: true,
	why: "Anyone who knows the URL can send a delivery: accepting one whose signature was not made with " +
		"the webhook's secret means acting on forged events. Refuse with 4xx, not 5xx: a 5xx makes the service retry a forgery.",
	check: checkWrongSecret,
}, {
	name:    "tampered-body",
	claim:   "a body changed by one byte after signing is refused with 4xx",
	counted: ", and never processed",
	watched: neverProcessed,
	refusal: true,
	why: "The signature covers the exact bytes of the body: verify it against the body as received, " +
		"before parsing or re-encoding it, or altered events pass.",
	check: checkTampered,
}, {
	name:    "missing-headers",
	claim:   "a delivery without webhook-signature, webhook-timestamp or webhook-id is refused with 4xx",
	counted: ", and never processed",
	watched: neverProcessed,
	refusal: true,
	why: "A delivery without its signature headers cannot be verified, so nothing says it comes from the service. " +
		"Refuse with 4xx, not 5xx.",
	check: checkMissingHeaders,
}, {
	name:    "stale-timestamp",
	claim:   "a delivery signed more than 5 minutes ago, or more than 5 minutes ahead, is refused with 4xx",
	counted: ", and never processed",
	watched: neverProcessed,
	refusal: true,
	why: "Without the timestamp check, anyone who captured one delivery can replay it forever: " +
		"refuse a webhook-timestamp more than 5 minutes from your clock, either way, with 4xx.",
	check: checkStale,
}, {
	name:    "rotation",
	claim:   "a webhook-signature of two entries, one of them valid (a secret rotation), is accepted with 2xx",
	counted: ", and processed once",
	why: "While a signing secret is rotated the service signs with both secrets, space-separated in webhook-signature: " +
		"accept a delivery when any v1 entry matches, or every delivery of the rotation fails.",
	check: checkRotation,
}, {
	name:    "unknown-type",
	claim:   "an event of a type the receiver cannot know (" + string(UnknownEventType) + ") is answered 2xx",
	counted: ", and processed at most once",
	why: "New event types may be added at any time (docs/contract.md): acknowledge the ones you do not handle " +
		"with a 2xx, or the service retries each of them for more than a day.",
	check: checkUnknownType,
}, {
	name:    "concurrent",
	claim:   fmt.Sprintf("%d concurrent deliveries of one event are each answered 2xx, or 409/429 with Retry-After, never 5xx", Concurrent),
	counted: ", and the event is processed once",
	watched: ", and the event is processed once",
	why: "Deliveries of one event can overlap (a retry after a timeout while the first still runs): process the event once, " +
		"answer the others 2xx, or 409/429 with a Retry-After to be asked again later; a 5xx is a failure the service retries. " +
		"To process it once, " + dedupeHint,
	check: checkConcurrent,
}}

// eventTypes are the types the service sends, in the order a plugin's life
// emits them.
var eventTypes = []webhook.EventType{
	webhook.EventInstallationCreated, webhook.EventTranscriptCreated,
	webhook.EventTranscriptUpdated, webhook.EventInstallationDeleted,
}

const validly = "validly signed"

func checkValid(ctx context.Context, c *checker) (verdict, error) {
	var fails []string
	var handled []delivery
	for _, typ := range eventTypes {
		d, err := c.fresh(ctx, typ, c.now(), validly)
		if err != nil {
			return verdict{}, err
		}
		switch a := c.send(ctx, d); {
		case !a.is2xx():
			s, err := c.notAccepted(ctx, d, a, "")
			if err != nil {
				return verdict{}, err
			}
			fails = append(fails, s)
		case a.elapsed > c.timeout:
			fails = append(fails, fmt.Sprintf("Sent %s; got %s after %v, beyond the %v timeout.",
				d.what, a, a.elapsed.Round(time.Millisecond), c.timeout))
		default:
			fails = appendNonEmpty(fails, c.ran(d, 1, false))
			handled = append(handled, d)
		}
	}
	if c.watching() { // how many calls one processing of each type makes, for the concurrent rule
		calls, err := c.calls(ctx, handled...)
		if err != nil {
			return verdict{}, err
		}
		for i, d := range handled {
			c.baseline[d.typ] = len(calls[i])
		}
	}
	return verdict{fails: fails}, nil
}

// notCalled says why processing is not checked when the receiver made no
// call for d's event.
func (c *checker) notCalled(d delivery, what string) string {
	s := fmt.Sprintf("the receiver made no call to the server for the %s event %s (such as GET /users/me or GET /transcripts/{id} with its installation's token), "+
		"so whether it %s cannot be seen.", d.typ, d.id, what)
	if len(c.types) > 0 {
		s += " Its type was chosen with -event (WithEventTypes in Go): choose one the receiver acts on."
	}
	return s + " A receiver that handles events without calling the service is checked exactly in Go (WithProcessedCount)."
}

// unseen says why processing is not checked without a server or a count.
func unseen(what string) string {
	return "without -server (WithServer or WithProcessedCount in Go), whether the receiver " + what + " cannot be seen."
}

// eventsFor returns the event types a rule that delivers one event more
// than once sends: those of Config.EventTypes; else, on a server, one the
// receiver called back for in the valid rule (fallback if it did for that
// one), so that its processing shows; else fallback.
func (c *checker) eventsFor(fallback webhook.EventType) []webhook.EventType {
	if len(c.types) > 0 {
		return c.types
	}
	if c.baseline[fallback] == 0 {
		for _, t := range eventTypes {
			if c.baseline[t] > 0 {
				return []webhook.EventType{t}
			}
		}
	}
	return []webhook.EventType{fallback}
}

// eachType checks a rule once per event type of eventsFor(fallback).
func eachType(ctx context.Context, c *checker, fallback webhook.EventType, check func(context.Context, *checker, webhook.EventType) (verdict, error)) (verdict, error) {
	var vs []verdict
	for _, typ := range c.eventsFor(fallback) {
		v, err := check(ctx, c, typ)
		if err != nil {
			return verdict{}, err
		}
		vs = append(vs, v)
	}
	return merge(vs), nil
}

func checkWrongSecret(ctx context.Context, c *checker) (verdict, error) {
	d, err := c.fresh(ctx, webhook.EventInstallationCreated, c.now(), "signed with another secret")
	if err != nil {
		return verdict{}, err
	}
	d.header.Set(webhook.HeaderSignature, webhook.Sign(c.forger, d.id, d.at, d.body))
	s, err := c.refused(ctx, d)
	return failing(s), err
}

func checkTampered(ctx context.Context, c *checker) (verdict, error) {
	now := c.now()
	id := newEventID()
	sc, err := c.newScene(ctx, webhook.EventTranscriptCreated)
	if err != nil {
		return verdict{}, err
	}
	e, err := sc.event(webhook.EventTranscriptCreated, id, now)
	if err != nil {
		return verdict{}, err
	}
	d, err := c.signed(e, now, `validly signed, then its body changed by one byte ("Q3" to "Q4" in the headline)`)
	if err != nil {
		return verdict{}, err
	}
	altered := sc
	altered.tr.Headline = tamperedHeadline
	if e, err = altered.event(webhook.EventTranscriptCreated, id, now); err != nil {
		return verdict{}, err
	}
	if d.body, err = encodeEvent(e); err != nil {
		return verdict{}, err
	}
	s, err := c.refused(ctx, d)
	return failing(s), err
}

func checkMissingHeaders(ctx context.Context, c *checker) (verdict, error) {
	var fails []string
	for _, h := range []string{webhook.HeaderSignature, webhook.HeaderTimestamp, webhook.HeaderID} {
		d, err := c.fresh(ctx, webhook.EventTranscriptUpdated, c.now(), "validly signed, then sent without "+h)
		if err != nil {
			return verdict{}, err
		}
		d.header.Del(h)
		s, err := c.refused(ctx, d)
		if err != nil {
			return verdict{}, err
		}
		fails = appendNonEmpty(fails, s)
	}
	return verdict{fails: fails}, nil
}

func checkStale(ctx context.Context, c *checker) (verdict, error) {
	minutes := int(staleBy.Minutes())
	var fails []string
	for _, s := range []struct {
		typ    webhook.EventType
		offset time.Duration
		what   string
	}{
		{webhook.EventInstallationDeleted, -staleBy, fmt.Sprintf("signed with a webhook-timestamp %d minutes old", minutes)},
		{webhook.EventTranscriptCreated, staleBy, fmt.Sprintf("signed with a webhook-timestamp %d minutes ahead", minutes)},
	} {
		d, err := c.fresh(ctx, s.typ, c.now().Add(s.offset), s.what)
		if err != nil {
			return verdict{}, err
		}
		f, err := c.refused(ctx, d)
		if err != nil {
			return verdict{}, err
		}
		fails = appendNonEmpty(fails, f)
	}
	return verdict{fails: fails}, nil
}

func checkRotation(ctx context.Context, c *checker) (verdict, error) {
	d, err := c.fresh(ctx, webhook.EventTranscriptCreated, c.now(), "with two signature entries: one made with another secret, then a valid one")
	if err != nil {
		return verdict{}, err
	}
	d.header.Set(webhook.HeaderSignature, webhook.Sign(c.forger, d.id, d.at, d.body)+" "+d.header.Get(webhook.HeaderSignature))
	s, err := c.accepted(ctx, d, false, "the rotation's two signature entries")
	return failing(s), err
}

func checkUnknownType(ctx context.Context, c *checker) (verdict, error) {
	d, err := c.fresh(ctx, UnknownEventType, c.now(), validly)
	if err != nil {
		return verdict{}, err
	}
	s, err := c.accepted(ctx, d, true, "the unknown type")
	return failing(s), err
}

// accepted sends d and checks that it is answered 2xx and, when counting,
// processed once (at most once, when upTo): "" if so. subject is what the
// rule is about, which a 5xx is not blamed on.
func (c *checker) accepted(ctx context.Context, d delivery, upTo bool, subject string) (string, error) {
	if a := c.send(ctx, d); !a.is2xx() {
		return c.notAccepted(ctx, d, a, subject)
	}
	return c.ran(d, 1, upTo), nil
}

// refused sends d and checks that it is refused with 4xx and never
// processed, by the count or, on a server, by the receiver's calls: "" if so.
func (c *checker) refused(ctx context.Context, d delivery) (string, error) {
	a := c.send(ctx, d)
	if !a.is4xx() {
		return failed(d, a), nil
	}
	if !c.watching() {
		return c.ran(d, 0, false), nil
	}
	calls, err := c.calls(ctx, d)
	if err != nil || len(calls[0]) == 0 {
		return "", err
	}
	return fmt.Sprintf("Sent %s; got %s, yet the receiver called the server %s with the event's installation (%s): it acted on a delivery it refused, or before verifying it.",
		d.what, a, timesCalled(len(calls[0])), listCalls(calls[0])), nil
}

func appendNonEmpty(list []string, s ...string) []string {
	return append(list, slices.DeleteFunc(s, func(s string) bool { return s == "" })...)
}
