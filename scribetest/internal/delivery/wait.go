package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// changedLocked returns a channel closed at the next change.
func (e *Engine) changedLocked() <-chan struct{} {
	if e.changed == nil {
		e.changed = make(chan struct{})
	}
	return e.changed
}

// notifyLocked wakes whoever waits for a change of state.
func (e *Engine) notifyLocked() {
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// Attempts returns the attempts made so far, oldest first.
func (e *Engine) Attempts() []Attempt {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.attempts.All()
}

// Pending returns the deliveries not settled, in publishing order.
func (e *Engine) Pending() []Pending {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Pending, 0, len(e.pending))
	for _, dl := range e.sortedLocked(nil) {
		p := Pending{EventID: dl.ev.id, EventType: dl.ev.typ, WebhookID: dl.hook, URI: dl.uri,
			Attempts: dl.attempts, LastStatusCode: dl.lastStatus, LastError: dl.lastErr}
		if dl.timer != nil {
			p.NextAttempt = dl.due
		}
		out = append(out, p)
	}
	return out
}

// sortedLocked returns the pending deliveries want selects (all if nil), in order.
func (e *Engine) sortedLocked(want func(*delivery) bool) []*delivery {
	dls := slices.SortedFunc(maps.Keys(e.pending), func(a, b *delivery) int { return cmp.Compare(a.seq, b.seq) })
	if want != nil {
		dls = slices.DeleteFunc(dls, func(dl *delivery) bool { return !want(dl) })
	}
	return dls
}

// Wait waits until every delivery is settled, ctx ends or the engine closes.
func (e *Engine) Wait(ctx context.Context) error {
	n, cause := e.settled(ctx, nil)
	switch {
	case n == 0:
		return nil
	case errors.Is(cause, ErrClosed):
		return fmt.Errorf("scribetest: %s will not be delivered (see PendingDeliveries): %w", count(n), cause)
	}
	return fmt.Errorf("scribetest: %s still pending (see PendingDeliveries): %w", count(n), cause)
}

// settled waits until no delivery want selects is pending, or says how many are and
// why it ended; when nothing is due or in flight it moves a test's clock on.
func (e *Engine) settled(ctx context.Context, want func(*delivery) bool) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		n := len(e.sortedLocked(want))
		switch {
		case n == 0:
			return 0, nil
		case e.closed:
			return n, ErrClosed
		case ctx.Err() != nil:
			return n, ctx.Err()
		}
		if e.advancer != nil && len(e.ready) == 0 && len(e.inflight) == 0 {
			if next, ok := e.nextDueLocked(); ok {
				// Advance runs the timer, which takes e.mu.
				e.mu.Unlock()
				e.advancer.Advance(max(next.Sub(e.clock.Now()), 0))
				e.mu.Lock()
				continue
			}
		}
		changed := e.changedLocked()
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		case <-e.done:
		}
		e.mu.Lock()
	}
}

// nextDueLocked returns when the earliest timer of a pending delivery fires.
func (e *Engine) nextDueLocked() (time.Time, bool) {
	var next time.Time
	found := false
	for dl := range e.pending {
		if dl.timer != nil && (!found || dl.due.Before(next)) {
			next, found = dl.due, true
		}
	}
	return next, found
}

// Close aborts attempts in flight, waits for the senders and returns how many are left.
func (e *Engine) Close() int {
	e.mu.Lock()
	first := !e.closed
	if first {
		e.closed = true
		close(e.done)
		e.cancel()
		for dl := range e.pending {
			if dl.timer != nil && dl.timer.Stop() {
				dl.timer = nil
				e.wg.Done()
			}
		}
	}
	e.mu.Unlock()
	e.wg.Wait()
	if e.own != nil {
		e.own.CloseIdleConnections()
	}
	e.mu.Lock()
	n := len(e.pending)
	e.mu.Unlock()
	if first && n > 0 {
		e.logger.Warn("scribetest: webhook deliveries left undelivered at close (see PendingDeliveries)", "count", n)
	}
	return n
}

// Shutdown waits, until ctx ends, for every delivery to settle, then closes.
func (e *Engine) Shutdown(ctx context.Context) error {
	_, cause := e.settled(ctx, nil)
	n := e.Close()
	if n == 0 {
		return nil
	}
	if cause == nil {
		cause = ErrClosed // published after the wait, while closing
	}
	return fmt.Errorf("scribetest: Shutdown: %s undelivered (see PendingDeliveries): %w", count(n), cause)
}

// count says "1 webhook delivery" or "n webhook deliveries".
func count(n int) string {
	if n == 1 {
		return "1 webhook delivery"
	}
	return fmt.Sprintf("%d webhook deliveries", n)
}
