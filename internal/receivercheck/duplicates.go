package receivercheck

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

func checkRedelivery(ctx context.Context, c *checker) (verdict, error) {
	return eachType(ctx, c, webhook.EventTranscriptUpdated, redeliver)
}

// redeliver delivers an event of type typ, then the same event again.
func redeliver(ctx context.Context, c *checker, typ webhook.EventType) (verdict, error) {
	now := c.now()
	before := now.Add(-time.Minute) // the service's retries come later than this
	sc, err := c.newScene(ctx, typ)
	if err != nil {
		return verdict{}, err
	}
	e, err := sc.event(typ, newEventID(), before)
	if err != nil {
		return verdict{}, err
	}
	first, err := c.signed(e, before, "validly signed a minute ago")
	if err != nil {
		return verdict{}, err
	}
	if a := c.send(ctx, first); !a.is2xx() {
		s, err := c.notAccepted(ctx, first, a, "the redelivery")
		return failing(s + " The first delivery must be accepted for its redelivery to be checked."), err
	}
	var firstCalls []Call
	if c.watching() {
		calls, err := c.calls(ctx, first)
		if err != nil {
			return verdict{}, err
		}
		firstCalls = calls[0]
	}
	again, err := c.signed(e, now, "again, with a new timestamp and signature")
	if err != nil {
		return verdict{}, err
	}
	switch s, err := c.accepted(ctx, again, false, "the redelivery"); {
	case s != "" || err != nil:
		return failing(s), err
	case c.blind():
		return verdict{unchecked: unseen("processed the redelivery again")}, nil
	case !c.watching(): // counted exactly, and kept
		return verdict{}, nil
	}
	calls, err := c.calls(ctx, again)
	if err != nil {
		return verdict{}, err
	}
	switch more := calls[0][min(len(firstCalls), len(calls[0])):]; {
	case len(more) > 0:
		return failing(fmt.Sprintf("Sent %s; it was answered 2xx, but the receiver processed the event again: after the redelivery it called the server %s more with the event's installation (%s), where the first delivery made %s.",
			again.what, timesCalled(len(more)), listCalls(more), plural(len(firstCalls), "call"))), nil
	case len(firstCalls) == 0:
		return verdict{unchecked: c.notCalled(again, "processed the redelivery again")}, nil
	}
	return verdict{}, nil
}

func checkConcurrent(ctx context.Context, c *checker) (verdict, error) {
	return eachType(ctx, c, webhook.EventTranscriptCreated, deliverAtOnce)
}

// deliverAtOnce delivers an event of type typ Concurrent times at once.
func deliverAtOnce(ctx context.Context, c *checker, typ webhook.EventType) (verdict, error) {
	d, err := c.fresh(ctx, typ, c.now(), fmt.Sprintf("validly signed, %d times at once", Concurrent))
	if err != nil {
		return verdict{}, err
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
	var failure *answer // a 5xx or no answer: the receiver failed while handling the event
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
			if a.status == 0 || a.status >= 500 {
				failure = &a
			}
		}
		if counts[s]++; counts[s] == 1 {
			bad = append(bad, s)
		}
	}
	if len(bad) > 0 {
		for i, s := range bad {
			bad[i] = fmt.Sprintf("%s (%d of %d)", s, counts[s], Concurrent)
		}
		msg := fmt.Sprintf("Sent %s; got %s.", d.what, strings.Join(bad, ", "))
		if failure != nil {
			why, err := c.handlingFailed(ctx, d, *failure, "concurrency")
			if err != nil {
				return verdict{}, err
			}
			msg += why
		}
		return failing(msg), nil
	}
	switch s := c.ran(d, 1, false); {
	case s != "":
		return failing(s), nil
	case c.blind():
		return verdict{unchecked: unseen("processed the event more than once")}, nil
	case !c.watching(): // counted exactly, and kept
		return verdict{}, nil
	}
	calls, err := c.calls(ctx, d)
	if err != nil {
		return verdict{}, err
	}
	switch n, once := len(calls[0]), c.baseline[d.typ]; {
	case once > 0 && n > once:
		return failing(fmt.Sprintf("Sent %s; each was answered as it should, but the receiver processed the event more than once: it called the server %s with the event's installation (%s), where processing one %s made %s in the valid rule.",
			d.what, timesCalled(n), listCalls(calls[0]), d.typ, plural(once, "call"))), nil
	case once == 0 && n == 0:
		return verdict{unchecked: c.notCalled(d, "processed it more than once")}, nil
	case once == 0:
		return verdict{unchecked: fmt.Sprintf("the receiver called the server %s for the %s event %s, but made no call for the %s of the valid rule, so there is no count of one processing to compare with.", timesCalled(n), d.typ, d.id, d.typ)}, nil
	}
	return verdict{}, nil
}
