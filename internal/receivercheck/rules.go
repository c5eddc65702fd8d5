package receivercheck

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
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
	// counted is added to the claim when the check counts processing.
	counted string
	// why says why the rule matters, after the failures.
	why string
	// check sends the rule's deliveries and returns one sentence per
	// delivery whose answer broke the rule; an error only when it could
	// not build a delivery.
	check func(context.Context, *checker) ([]string, error)
}

func (r rule) claimFor(c *checker) string {
	claim := strings.ReplaceAll(r.claim, "{timeout}", c.timeout.String())
	if c.count != nil {
		claim += r.counted
	}
	return claim
}

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
	why: "The service redelivers whenever it did not see your 2xx (a timeout, a dropped connection): " +
		"dedupe on webhook-id and answer a duplicate 2xx, or the service retries an event you already handled for more than a day.",
	check: checkRedelivery,
}, {
	name:    "wrong-secret",
	claim:   "a delivery signed with another secret is refused with 4xx",
	counted: ", and never processed",
	why: "Anyone who knows the URL can send a delivery: accepting one whose signature was not made with " +
		"the webhook's secret means acting on forged events. Refuse with 4xx, not 5xx: a 5xx makes the service retry a forgery.",
	check: checkWrongSecret,
}, {
	name:    "tampered-body",
	claim:   "a body changed by one byte after signing is refused with 4xx",
	counted: ", and never processed",
	why: "The signature covers the exact bytes of the body: verify it against the body as received, " +
		"before parsing or re-encoding it, or altered events pass.",
	check: checkTampered,
}, {
	name:    "missing-headers",
	claim:   "a delivery without webhook-signature, webhook-timestamp or webhook-id is refused with 4xx",
	counted: ", and never processed",
	why: "A delivery without its signature headers cannot be verified, so nothing says it comes from the service. " +
		"Refuse with 4xx, not 5xx.",
	check: checkMissingHeaders,
}, {
	name:    "stale-timestamp",
	claim:   "a delivery signed more than 5 minutes ago, or more than 5 minutes ahead, is refused with 4xx",
	counted: ", and never processed",
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
	why: "Deliveries of one event can overlap (a retry after a timeout while the first still runs): process the event once, " +
		"answer the others 2xx, or 409/429 with a Retry-After to be asked again later; a 5xx is a failure the service retries.",
	check: checkConcurrent,
}}

// eventTypes are the types the service sends, in the order a plugin's life
// emits them.
var eventTypes = []webhook.EventType{
	webhook.EventInstallationCreated, webhook.EventTranscriptCreated,
	webhook.EventTranscriptUpdated, webhook.EventInstallationDeleted,
}

const validly = "validly signed"

func checkValid(ctx context.Context, c *checker) ([]string, error) {
	var fails []string
	for _, typ := range eventTypes {
		d, err := c.fresh(typ, time.Now(), validly)
		if err != nil {
			return nil, err
		}
		switch a := c.send(ctx, d); {
		case !a.is2xx():
			fails = append(fails, failed(d, a))
		case a.elapsed > c.timeout:
			fails = append(fails, fmt.Sprintf("Sent %s; got %s after %v, beyond the %v timeout.",
				d.what, a, a.elapsed.Round(time.Millisecond), c.timeout))
		default:
			fails = appendNonEmpty(fails, c.ran(d, 1, false))
		}
	}
	return fails, nil
}

func checkRedelivery(ctx context.Context, c *checker) ([]string, error) {
	now := time.Now()
	before := now.Add(-time.Minute) // the service's retries come later than this
	e, err := c.scene.event(webhook.EventTranscriptUpdated, newEventID(), before)
	if err != nil {
		return nil, err
	}
	first, err := c.signed(e, before, "validly signed a minute ago")
	if err != nil {
		return nil, err
	}
	if a := c.send(ctx, first); !a.is2xx() {
		return []string{failed(first, a) + " The first delivery must be accepted for its redelivery to be checked."}, nil
	}
	again, err := c.signed(e, now, "again, with a new timestamp and signature")
	if err != nil {
		return nil, err
	}
	return appendNonEmpty(nil, c.accepted(ctx, again, false)), nil
}

func checkWrongSecret(ctx context.Context, c *checker) ([]string, error) {
	d, err := c.fresh(webhook.EventInstallationCreated, time.Now(), "signed with another secret")
	if err != nil {
		return nil, err
	}
	d.header.Set(webhook.HeaderSignature, webhook.Sign(c.forger, d.id, d.at, d.body))
	return appendNonEmpty(nil, c.refused(ctx, d)), nil
}

func checkTampered(ctx context.Context, c *checker) ([]string, error) {
	now := time.Now()
	id := newEventID()
	e, err := c.scene.event(webhook.EventTranscriptCreated, id, now)
	if err != nil {
		return nil, err
	}
	d, err := c.signed(e, now, `validly signed, then its body changed by one byte ("Q3" to "Q4" in the headline)`)
	if err != nil {
		return nil, err
	}
	altered := c.scene
	altered.tr.Headline = tamperedHeadline
	if e, err = altered.event(webhook.EventTranscriptCreated, id, now); err != nil {
		return nil, err
	}
	if d.body, err = encodeEvent(e); err != nil {
		return nil, err
	}
	return appendNonEmpty(nil, c.refused(ctx, d)), nil
}

func checkMissingHeaders(ctx context.Context, c *checker) ([]string, error) {
	var fails []string
	for _, h := range []string{webhook.HeaderSignature, webhook.HeaderTimestamp, webhook.HeaderID} {
		d, err := c.fresh(webhook.EventTranscriptUpdated, time.Now(), "validly signed, then sent without "+h)
		if err != nil {
			return nil, err
		}
		d.header.Del(h)
		fails = appendNonEmpty(fails, c.refused(ctx, d))
	}
	return fails, nil
}

func checkStale(ctx context.Context, c *checker) ([]string, error) {
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
		d, err := c.fresh(s.typ, time.Now().Add(s.offset), s.what)
		if err != nil {
			return nil, err
		}
		fails = appendNonEmpty(fails, c.refused(ctx, d))
	}
	return fails, nil
}

func checkRotation(ctx context.Context, c *checker) ([]string, error) {
	d, err := c.fresh(webhook.EventTranscriptCreated, time.Now(), "with two signature entries: one made with another secret, then a valid one")
	if err != nil {
		return nil, err
	}
	d.header.Set(webhook.HeaderSignature, webhook.Sign(c.forger, d.id, d.at, d.body)+" "+d.header.Get(webhook.HeaderSignature))
	return appendNonEmpty(nil, c.accepted(ctx, d, false)), nil
}

func checkUnknownType(ctx context.Context, c *checker) ([]string, error) {
	d, err := c.fresh(UnknownEventType, time.Now(), validly)
	if err != nil {
		return nil, err
	}
	return appendNonEmpty(nil, c.accepted(ctx, d, true)), nil
}

func checkConcurrent(ctx context.Context, c *checker) ([]string, error) {
	d, err := c.fresh(webhook.EventTranscriptCreated, time.Now(), fmt.Sprintf("validly signed, %d times at once", Concurrent))
	if err != nil {
		return nil, err
	}
	answers := make([]answer, Concurrent)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			<-start
			answers[i] = c.send(ctx, d)
		})
	}
	close(start)
	wg.Wait()
	var bad []string // each wrong answer once, with how many times it came
	counts := map[string]int{}
	for _, a := range answers {
		var s string
		switch {
		case a.is2xx():
			continue
		case (a.status == http.StatusConflict || a.status == http.StatusTooManyRequests) && !a.retryAfter:
			s = a.String() + " without a valid Retry-After"
		case a.status == http.StatusConflict || a.status == http.StatusTooManyRequests:
			continue
		default:
			s = a.String()
		}
		if counts[s]++; counts[s] == 1 {
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return appendNonEmpty(nil, c.ran(d, 1, false)), nil
	}
	for i, s := range bad {
		bad[i] = fmt.Sprintf("%s (%d of %d)", s, counts[s], Concurrent)
	}
	return []string{fmt.Sprintf("Sent %s; got %s.", d.what, strings.Join(bad, ", "))}, nil
}

// accepted sends d and checks that it is answered 2xx and, when counting,
// processed once (at most once, when upTo): "" if so.
func (c *checker) accepted(ctx context.Context, d delivery, upTo bool) string {
	if a := c.send(ctx, d); !a.is2xx() {
		return failed(d, a)
	}
	return c.ran(d, 1, upTo)
}

// refused sends d and checks that it is refused with 4xx and, when
// counting, never processed: "" if so.
func (c *checker) refused(ctx context.Context, d delivery) string {
	if a := c.send(ctx, d); !a.is4xx() {
		return failed(d, a)
	}
	return c.ran(d, 0, false)
}

func appendNonEmpty(list []string, s ...string) []string {
	return append(list, slices.DeleteFunc(s, func(s string) bool { return s == "" })...)
}
