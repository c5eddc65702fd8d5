package scribetest

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/persist"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/transport"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// The webhook delivery engine (docs/contract.md, "Events and webhooks"): one
// signed delivery per webhook, attempted by a bounded pool of short-lived
// senders and retried on the schedule, waiting on timers of the server's
// clock, not on goroutines.

// Defaults and bounds of delivery.
const (
	defaultTimeout = webhook.DeliveryTimeout // bounds one attempt: any 2xx within it is success
	defaultWorkers = 8                       // bounds the attempts in flight at once
	jitterFraction = 0.2                     // each wait is spread uniformly over ±20 %
	maxDrained     = 64 << 10
	userAgent      = "scribe-webhooks/1.0 (scribetest)"
)

// defaultSchedule is Svix's: the wait before each of eight attempts.
var defaultSchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// scaled returns d times f, clamped to [0, MaxWebhookDelay] in float64 (past 2^63 it would wrap).
func scaled(d time.Duration, f float64) time.Duration {
	x := float64(d) * f
	if !(x > 0) {
		return 0
	}
	return time.Duration(math.Min(x, float64(MaxWebhookDelay)))
}

// delivery is one event on its way to one webhook.
type delivery struct {
	// The event's id and type and the webhook's, as PendingDelivery reports
	// them; its Attempts, LastStatusCode, LastError and NextAttempt (when
	// timer fires, by the clock; zero without a timer) are guarded by
	// engine.mu.
	PendingDelivery
	seq    uint64
	body   []byte // the event encoded, as every attempt sends it
	secret auth.WebhookSecret
	// Guarded by engine.mu.
	timer timer // set while waiting for the next attempt
	once  bool  // a resend of a settled delivery: its attempt is not retried
	event *sentEvent
}

// sentEvent is an event the engine published, as Resend and Events find
// it: the deliveries it made of it, settled or not, hold its body and
// webhooks.
type sentEvent struct {
	EmittedEvent // but its Deliveries
	deliveries   []*delivery
	key          uint64 // its row's in the state directory
}

// engine is the server's delivery engine.
type engine struct {
	clock    auth.Clock
	timers   timerClock
	advancer advancer // the clock, when a test moves it
	logger   *slog.Logger
	client   *http.Client
	own      *http.Transport // closed at Close, if the engine made it
	schedule []time.Duration // scaled
	workers  int
	perHook  int
	timeout  time.Duration
	ctx      context.Context // canceled by Close: aborts attempts in flight and ends the waits
	cancel   context.CancelFunc

	mu        sync.Mutex
	seq       uint64
	unsettled map[*delivery]bool    // every delivery not settled
	ready     []*delivery           // due now, oldest first
	inflight  map[int64]int         // attempts in flight by webhook id
	active    int                   // sender goroutines running
	record    ring[DeliveryAttempt] // the attempts finished, pushed under mu
	events    ring[*sentEvent]      // the events published, pushed under mu
	changed   chan struct{}         // closed at the next change of state; nil if nobody waits
	closed    bool
	wg        sync.WaitGroup

	budget   int64 // bytes of bodies and excerpts kept (budget.go)
	kept     int64 // bytes of the bodies of the events in events
	excerpts int64 // bytes of the ResponseBody of the attempts in record

	db       *persist.DB // the state directory, if any (deliveries_state.go)
	eventKey uint64      // the key of the last event published
}

// newEngine returns the engine the options of cfg describe. Its retries wait
// on timers of the server's clock if it has them (a timerClock), otherwise
// on the system's; a test's FakeClock is moved where they would wait.
func newEngine(cfg *config) *engine {
	e := &engine{clock: cfg.clock, timers: realClock{}, logger: cfg.logger,
		schedule: slices.Clone(cfg.schedule), workers: cmp.Or(cfg.workers, defaultWorkers), timeout: cmp.Or(cfg.timeout, defaultTimeout),
		unsettled: map[*delivery]bool{}, inflight: map[int64]int{}, budget: cmp.Or(cfg.budget, DefaultBodyBudget)}
	if tc, ok := cfg.clock.(timerClock); ok {
		e.timers = tc
	}
	e.advancer, _ = cfg.clock.(advancer)
	if cfg.scale > 0 {
		for i, d := range e.schedule {
			e.schedule[i] = scaled(d, cfg.scale)
		}
	}
	e.perHook = max(1, e.workers/2) // a slow receiver cannot hold every sender
	rt := cfg.transport
	if rt == nil {
		e.own = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
			MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second}
		rt = e.own
	}
	// A redirect is an answer like any other non-2xx: a failure.
	e.client = &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	return e
}

// publish turns ev into one delivery per hook, queued or timed, and keeps
// the event for Resend.
func (e *engine) publish(ev webhook.Event, hooks []scribe.Webhook) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.eventKey++
	sent := &sentEvent{EmittedEvent: EmittedEvent{ID: ev.ID, Type: ev.Type, InstallationUUID: ev.PluginInstallationUUID, Time: ev.CreatedOn}, key: e.eventKey}
	var recs []DeliveryAttempt
	defer func() {
		gone := e.events.Push(sent) // the event that leaves the ring, if any
		e.keepLocked(sent, gone)
		e.saveLocked(recs, sent, gone)
	}()
	if len(hooks) == 0 {
		return
	}
	body, err := apijson.Marshal(ev)
	if err != nil { // its data was encoded by the library a moment ago; kept for safety
		e.logger.Error("scribetest: encoding a webhook event failed; it is not delivered", "event_type", ev.Type, "error", err)
		return
	}
	defer e.notifyLocked()
	for _, h := range hooks {
		e.seq++
		rec := DeliveryAttempt{EventID: ev.ID, EventType: ev.Type, WebhookID: h.ID, URI: h.URI, Time: e.clock.Now(), Final: true}
		switch {
		case len(body) > MaxEventBytes:
			rec.Error = fmt.Sprintf("not sent: the event is %d bytes, more than MaxEventBytes (%d), the most a receiver admits by default", len(body), MaxEventBytes)
			e.logger.Error("scribetest: a webhook event is larger than MaxEventBytes; it is not delivered", "event_id", ev.ID, "bytes", len(body))
		case h.SigningSecret.IsZero(): // never from CreateWebhook or fixtures; kept for safety
			rec.Error = "the webhook has no signing secret; nothing was sent"
		default:
			dl := &delivery{PendingDelivery: PendingDelivery{EventID: ev.ID, EventType: ev.Type, WebhookID: h.ID, URI: h.URI},
				seq: e.seq, body: body, secret: h.SigningSecret, event: sent}
			sent.deliveries = append(sent.deliveries, dl)
			e.unsettled[dl] = true
			if !e.closed {
				e.waitLocked(dl, jitter(e.schedule[0]))
			}
			continue
		}
		e.recordLocked(rec)
		recs = append(recs, rec)
	}
}

// resend makes the next attempt of each delivery of the event id now: a
// delivery waiting for a retry is taken off its timer, and a settled one
// is attempted once more, without retries. One due or in flight already
// makes its attempt anyway. Its errors are Server.Resend's.
func (e *engine) resend(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ev *sentEvent
	for kept := range e.events.Backward {
		if kept.ID == id {
			ev = kept
			break
		}
	}
	switch {
	case e.closed:
		return fmt.Errorf("scribetest: Resend: %w", ErrClosed)
	case ev == nil:
		return fmt.Errorf("scribetest: Resend: no event %s was emitted (an id from elsewhere, or more than %d events ago): %w", state.Excerpt(id), maxRecords, ErrNotFound)
	case len(ev.deliveries) == 0:
		return fmt.Errorf("scribetest: Resend: event %s (%s) was delivered to no webhook: its plugin had none when it was emitted, or it is larger than MaxEventBytes: %w", ev.ID, ev.Type, ErrConflict)
	case ev.deliveries[0].body == nil:
		return fmt.Errorf("scribetest: Resend: event %s (%s): its body is no longer kept: the server keeps the newest event bodies within its body budget (%d bytes; WithBodyBudget, scribe-server -body-budget) and drops the oldest first: %w",
			ev.ID, ev.Type, e.budget, ErrConflict)
	}
	defer e.notifyLocked()
	defer e.saveLocked(nil, ev)
	for _, dl := range ev.deliveries {
		switch {
		case !e.unsettled[dl]:
			dl.once = true
			e.unsettled[dl] = true
			e.readyLocked(dl)
		case dl.timer != nil && dl.timer.Stop():
			dl.timer, dl.NextAttempt = nil, time.Time{}
			e.wg.Done() // the timer's function will not run
			e.readyLocked(dl)
		}
	}
	return nil
}

// jitter spreads a delay over ±jitterFraction, within MaxWebhookDelay.
func jitter(d time.Duration) time.Duration {
	return scaled(d, 1+jitterFraction*(2*mrand.Float64()-1))
}

// waitLocked makes dl due after delay: at once, or when a timer fires.
func (e *engine) waitLocked(dl *delivery, delay time.Duration) {
	if delay <= 0 {
		dl.NextAttempt = time.Time{}
		e.readyLocked(dl)
		return
	}
	e.wg.Add(1)
	dl.timer = e.timers.afterFunc(delay, func() {
		defer e.wg.Done()
		e.mu.Lock()
		defer e.mu.Unlock()
		dl.timer, dl.NextAttempt = nil, time.Time{}
		if !e.closed {
			e.readyLocked(dl)
			e.notifyLocked()
		}
	})
	// Read after the timer is set, so moving the clock to due fires it.
	dl.NextAttempt = e.clock.Now().Add(delay)
}

// readyLocked queues dl and starts a sender if fewer than workers run.
func (e *engine) readyLocked(dl *delivery) {
	e.ready = append(e.ready, dl)
	if e.active < e.workers {
		e.active++
		e.wg.Add(1)
		go e.send()
	}
}

// send attempts due deliveries whose webhook has fewer than perHook in flight, then exits.
func (e *engine) send() {
	defer e.wg.Done()
	e.mu.Lock()
	defer e.mu.Unlock()
	for !e.closed {
		i := slices.IndexFunc(e.ready, func(dl *delivery) bool { return e.inflight[dl.WebhookID] < e.perHook })
		if i < 0 {
			break
		}
		dl := e.ready[i]
		e.ready = slices.Delete(e.ready, i, i+1)
		e.inflight[dl.WebhookID]++
		e.mu.Unlock()
		rec := e.attempt(dl, dl.Attempts+1)
		e.mu.Lock()
		if e.inflight[dl.WebhookID]--; e.inflight[dl.WebhookID] == 0 {
			delete(e.inflight, dl.WebhookID)
		}
		e.settleLocked(dl, rec)
	}
	e.active--
}

// attempt sends dl once, signed now, and says how it went.
func (e *engine) attempt(dl *delivery, n int) DeliveryAttempt {
	at := e.clock.Now()
	rec := DeliveryAttempt{EventID: dl.EventID, EventType: dl.EventType, WebhookID: dl.WebhookID, URI: dl.URI, Attempt: n, Time: at}
	ctx, cancel := context.WithTimeout(e.ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.URI, bytes.NewReader(dl.body))
	if err != nil {
		rec.Error = "the webhook's uri cannot be requested"
		return rec
	}
	req.Header = webhook.SignHeaders(dl.secret, dl.EventID, at, dl.body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	rec.RequestHeaders = req.Header.Clone()
	start := time.Now()
	resp, err := e.client.Do(req)
	forms := redact.WebhookSecretForms(dl.secret.Reveal())
	if err == nil {
		head := make([]byte, MaxResponseExcerpt+utf8.UTFMax)
		n, _ := io.ReadFull(resp.Body, head)
		more, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrained))
		_ = resp.Body.Close()
		rec.ResponseBody = redact.Excerpt(head[:n], MaxResponseExcerpt, more > 0, forms...) // as DeliveryAttempt.ResponseBody says
		rec.ResponseHeaders = answerHeaders(resp.Header, forms)
	}
	rec.Duration = time.Since(start)
	status := func() string { return redact.Field(resp.Status, maxURLPart, forms...) } // a peer's text, as bodies are
	switch {
	case err != nil && e.ctx.Err() != nil:
		rec.Error = "abandoned: the server was closed during the attempt"
	case err != nil:
		rec.Error = "the receiver " + transport.NoAnswer(err, false, e.timeout, forms...)
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		rec.StatusCode, rec.Delivered = resp.StatusCode, true
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		rec.StatusCode = resp.StatusCode
		rec.Error = fmt.Sprintf("answered %s (redirect to %s not followed)", status(), redact.Field(resp.Header.Get("Location"), maxURLPart, forms...))
	case resp.StatusCode == webhook.StatusPermanentFailure:
		rec.StatusCode, rec.Permanent = resp.StatusCode, true
		rec.Error = "answered " + status() + ": the receiver refused the event permanently; not retried"
	default:
		rec.StatusCode, rec.Error = resp.StatusCode, "answered "+status()
	}
	return rec
}

// answerHeaders keeps of h what DeliveryAttempt.ResponseHeaders says.
func answerHeaders(h http.Header, forms []string) http.Header {
	out, size := http.Header{}, 0
	for _, name := range slices.Sorted(maps.Keys(h))[:min(len(h), MaxResponseHeaders)] {
		for _, v := range h[name][:min(len(h[name]), 4)] {
			v = redact.Field(v, 256, forms...)
			if size += len(name) + len(v); size > 2*MaxResponseExcerpt { // 10,000 attempts keep 20 MB at most
				return out
			}
			out[name] = append(out[name], v)
		}
	}
	return out
}

// settleLocked records an attempt and decides what follows.
func (e *engine) settleLocked(dl *delivery, rec DeliveryAttempt) {
	if !e.unsettled[dl] { // forgotten by Reset while in flight
		return
	}
	dl.Attempts, dl.LastStatusCode, dl.LastError = rec.Attempt, rec.StatusCode, rec.Error
	defer e.notifyLocked()
	once := dl.once
	dl.once = false
	giveUp := !rec.Delivered && !e.closed && !once && dl.Attempts >= len(e.schedule)
	rec.Final = rec.Delivered || giveUp || rec.Permanent || once
	e.recordLocked(rec)
	switch {
	case rec.Permanent:
		e.logger.Warn("scribetest: webhook delivery failed permanently: the receiver answered 422, which is not retried",
			"event_id", dl.EventID, "event_type", string(dl.EventType), "webhook_id", dl.WebhookID, "attempts", dl.Attempts, "answer", rec.ResponseBody)
	case giveUp:
		e.logger.Warn("scribetest: webhook delivery given up after the last attempt of the schedule",
			"event_id", dl.EventID, "event_type", string(dl.EventType), "webhook_id", dl.WebhookID, "attempts", dl.Attempts, "error", rec.Error)
	}
	switch {
	case rec.Final:
		delete(e.unsettled, dl)
	case !e.closed:
		e.waitLocked(dl, jitter(e.schedule[dl.Attempts]))
	}
	e.saveLocked([]DeliveryAttempt{rec}, dl.event)
	e.trimLocked()
}
