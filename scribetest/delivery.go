package scribetest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
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

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/webhook"
)

// Webhook delivery (CONTRACT §7): every event Server.emit receives becomes
// one delivery per webhook of its plugin. A delivery is sent by a bounded
// pool of short-lived sender goroutines; between attempts it waits on a
// timer, holding no goroutine. See docs/server.md, "Webhook delivery".

// The delivery defaults of CONTRACT §7.
const (
	// defaultWebhookTimeout bounds one attempt: any 2xx within it is success.
	defaultWebhookTimeout = 15 * time.Second
	// defaultWebhookWorkers bounds the attempts in flight at once.
	defaultWebhookWorkers = 8
	// webhookJitter spreads each wait between attempts uniformly over
	// ±20 % of the schedule's delay.
	webhookJitter = 0.2
	// maxDrainedBody is how much of a receiver's answer is read (to reuse
	// the connection) before it is closed.
	maxDrainedBody = 64 << 10
	// webhookUserAgent is the User-Agent of every delivery.
	webhookUserAgent = "scribe-webhooks/1.0 (scribetest)"
)

// defaultWebhookSchedule is Svix's public schedule: the wait before each
// attempt, the first one immediate. Eight attempts over about 27 h 35 min.
var defaultWebhookSchedule = []time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// deliveryConfig is what the WithWebhook... options set.
type deliveryConfig struct {
	schedule  []time.Duration
	scale     float64
	workers   int
	timeout   time.Duration
	transport http.RoundTripper
}

// WithWebhookSchedule replaces the delivery schedule: delays[i] is how long
// a delivery waits before attempt i+1, so delays[0] is the wait before the
// first attempt (0: at once) and len(delays) is the number of attempts
// before the delivery is given up. The default is CONTRACT §7's: 0, 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Every wait gets ±20 % jitter. Tests
// pass short delays, such as 0, 10ms, 20ms, 40ms.
func WithWebhookSchedule(delays ...time.Duration) Option {
	return func(cfg *config) error {
		if len(delays) == 0 {
			return errors.New("scribetest: WithWebhookSchedule: give at least one delay (0 for an immediate single attempt)")
		}
		for i, d := range delays {
			if d < 0 {
				return fmt.Errorf("scribetest: WithWebhookSchedule: delay %d is %v; delays must be 0 or more", i, d)
			}
		}
		cfg.delivery.schedule = slices.Clone(delays)
		return nil
	}
}

// WithWebhookScheduleScale multiplies every delay of the delivery schedule
// (the default one or WithWebhookSchedule's) by f: 0.001 turns 5 s into
// 5 ms and 10 h into 36 s. f must be positive and finite.
func WithWebhookScheduleScale(f float64) Option {
	return func(cfg *config) error {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("scribetest: WithWebhookScheduleScale: %v must be a positive finite factor, such as 0.001", f)
		}
		cfg.delivery.scale = f
		return nil
	}
}

// WithWebhookWorkers bounds how many delivery attempts are in flight at once
// (default 8). One webhook has at most half of them (at least one), so a
// slow receiver cannot hold every sender.
func WithWebhookWorkers(n int) Option {
	return func(cfg *config) error {
		if n < 1 {
			return fmt.Errorf("scribetest: WithWebhookWorkers: %d must be at least 1", n)
		}
		cfg.delivery.workers = n
		return nil
	}
}

// WithWebhookTimeout replaces the 15 s a receiver has to answer an attempt
// with a 2xx; a receiver slower than d fails the attempt. Tests of slow
// receivers pass a short one.
func WithWebhookTimeout(d time.Duration) Option {
	return func(cfg *config) error {
		if d <= 0 {
			return fmt.Errorf("scribetest: WithWebhookTimeout: %v must be positive", d)
		}
		cfg.delivery.timeout = d
		return nil
	}
}

// WithWebhookTransport sends deliveries through rt instead of a transport of
// the server's own, for example the Client().Transport of an
// httptest.NewTLSServer receiver. Redirects are still not followed and the
// attempt timeout still applies; the server never closes rt's connections.
func WithWebhookTransport(rt http.RoundTripper) Option {
	return func(cfg *config) error {
		if rt == nil {
			return errors.New("scribetest: WithWebhookTransport: transport is nil")
		}
		cfg.delivery.transport = rt
		return nil
	}
}

// DeliveryAttempt is one attempt to deliver an event to a webhook, as
// Server.Deliveries records it.
type DeliveryAttempt struct {
	// EventID is the event's id, also sent as webhook-id: the same on every
	// attempt of the event, to every webhook.
	EventID string
	// EventType is the event's type, such as webhook.EventTranscriptCreated.
	EventType webhook.EventType
	// WebhookID is the id of the webhook the attempt was sent to.
	WebhookID int64
	// URI is the webhook's URL the attempt was POSTed to, as registered.
	URI string
	// Attempt counts the attempts of this delivery, from 1.
	Attempt int
	// Time is when the attempt was signed, by the server's clock: its
	// webhook-timestamp.
	Time time.Time
	// StatusCode is the receiver's answer, 0 when there was none (refused
	// connection, timeout).
	StatusCode int
	// Error says why the attempt failed, "" when it succeeded.
	Error string
	// Duration is how long the attempt took, by the wall clock.
	Duration time.Duration
	// Delivered reports a 2xx answer within the timeout.
	Delivered bool
	// Final reports that no attempt follows: the event was delivered, or the
	// schedule is exhausted and the delivery given up.
	Final bool
}

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt; after Close or a Shutdown that ran out of time, one
// that will never be attempted again.
type PendingDelivery struct {
	// EventID is the event's id, the same on every attempt (webhook-id).
	EventID string
	// EventType is the event's type, such as
	// webhook.EventTranscriptCreated.
	EventType webhook.EventType
	// WebhookID is the id of the webhook the event is being delivered to.
	WebhookID int64
	// URI is that webhook's URL, as registered.
	URI string
	// Attempts is how many attempts were made so far.
	Attempts int
	// LastStatusCode is the last attempt's DeliveryAttempt.StatusCode; 0
	// before the first attempt or when the receiver did not answer.
	LastStatusCode int
	// LastError is the last attempt's DeliveryAttempt.Error; "" before
	// the first attempt.
	LastError string
}

// Deliveries returns the webhook delivery attempts made so far, oldest
// first (the last 10,000 on a long-running server). An attempt is listed
// once it is finished.
func (s *Server) Deliveries() []DeliveryAttempt {
	d := s.deliveries
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.attempts.all()
}

// PendingDeliveries returns the deliveries that are not settled (neither
// delivered nor given up), in the order their events were emitted. After
// Close, or a Shutdown whose context ended first, they are the events that
// were not delivered.
func (s *Server) PendingDeliveries() []PendingDelivery {
	d := s.deliveries
	d.mu.Lock()
	defer d.mu.Unlock()
	dls := slices.SortedFunc(maps.Keys(d.pending), func(a, b *delivery) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]PendingDelivery, len(dls))
	for i, dl := range dls {
		out[i] = PendingDelivery{
			EventID: dl.ev.id, EventType: dl.ev.typ, WebhookID: dl.hook, URI: dl.uri,
			Attempts: dl.attempts, LastStatusCode: dl.lastStatus, LastError: dl.lastErr,
		}
	}
	return out
}

// WaitForDeliveries waits until every delivery is settled: delivered, or
// given up after the last attempt of the schedule. It returns nil then, or,
// when ctx ends or the server is closed first, an error with the number of
// deliveries still pending (see PendingDeliveries) that wraps ctx.Err() or
// ErrClosed.
func (s *Server) WaitForDeliveries(ctx context.Context) error {
	return s.deliveries.wait(ctx)
}

// ErrClosed is wrapped by WaitForDeliveries when the server is closed while
// deliveries are pending.
var ErrClosed = errors.New("scribetest: the server is closed")

// outEvent is one event ready to send: its id, type and body, shared by the
// deliveries to each webhook of the plugin.
type outEvent struct {
	id   string
	typ  webhook.EventType
	body []byte
}

// delivery is one event on its way to one webhook.
type delivery struct {
	seq    uint64
	ev     *outEvent
	hook   int64
	uri    string
	secret webhook.Secret

	// Guarded by deliveries.mu.
	attempts   int
	lastStatus int
	lastErr    string
	timer      *time.Timer // set while waiting for the next attempt
}

// deliveries is the server's delivery engine.
type deliveries struct {
	clock    Clock
	logger   *slog.Logger
	client   *http.Client
	own      *http.Transport // the transport to close at Close, if the server made it
	schedule []time.Duration // scaled
	workers  int
	perHook  int
	timeout  time.Duration
	ctx      context.Context // canceled by close: aborts attempts in flight
	cancel   context.CancelFunc

	mu       sync.Mutex
	seq      uint64
	pending  map[*delivery]struct{} // every delivery not settled
	ready    []*delivery            // due now, oldest first
	inflight map[int64]int          // attempts in flight by webhook id
	active   int                    // sender goroutines running
	attempts ring[DeliveryAttempt]
	idle     chan struct{} // closed when pending becomes empty; nil if nobody waits
	closed   bool
	done     chan struct{} // closed by close

	wg sync.WaitGroup // sender goroutines and timers that may fire
}

func newDeliveries(cfg deliveryConfig, clock Clock, logger *slog.Logger) *deliveries {
	d := &deliveries{
		clock:    clock,
		logger:   logger,
		schedule: defaultWebhookSchedule,
		workers:  defaultWebhookWorkers,
		timeout:  defaultWebhookTimeout,
		pending:  map[*delivery]struct{}{},
		inflight: map[int64]int{},
		done:     make(chan struct{}),
	}
	if cfg.schedule != nil {
		d.schedule = cfg.schedule
	}
	if cfg.scale > 0 {
		scaled := make([]time.Duration, len(d.schedule))
		for i, v := range d.schedule {
			scaled[i] = time.Duration(min(float64(v)*cfg.scale, math.MaxInt64))
		}
		d.schedule = scaled
	}
	if cfg.workers > 0 {
		d.workers = cfg.workers
	}
	d.perHook = max(1, d.workers/2)
	if cfg.timeout > 0 {
		d.timeout = cfg.timeout
	}
	rt := cfg.transport
	if rt == nil {
		if def, ok := http.DefaultTransport.(*http.Transport); ok {
			d.own = def.Clone()
		} else { // a program replaced it: start from the standard settings
			d.own = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
				MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second}
		}
		rt = d.own
	}
	d.client = &http.Client{
		Transport: rt,
		// A redirect is an answer like any other non-2xx: a failure.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d
}

// newEventID returns "evt_" and 26 random base32 characters: URL-safe, no ".".
func newEventID() string { return "evt_" + rand.Text() }

// publish turns e into one delivery per webhook in hooks. It never blocks on
// the network: the deliveries are queued or timed.
func (d *deliveries) publish(e event, hooks []scribe.Webhook) {
	if len(hooks) == 0 {
		return
	}
	id := newEventID()
	data, err := json.Marshal(e.Data)
	if err == nil {
		ev := webhook.Event{
			ID:                     id,
			Type:                   webhook.EventType(e.Type),
			CreatedOn:              e.CreatedOn.UTC(),
			PluginID:               e.PluginID,
			PluginInstallationUUID: e.InstallationUUID,
			Data:                   data,
		}
		data, err = json.Marshal(ev)
	}
	if err != nil { // the resources are plain data; kept for safety
		d.logger.Error("scribetest: encoding a webhook event failed; it is not delivered", "event_type", e.Type, "error", err)
		return
	}
	out := &outEvent{id: id, typ: webhook.EventType(e.Type), body: data}

	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range hooks {
		d.seq++
		dl := &delivery{seq: d.seq, ev: out, hook: h.ID, uri: h.URI}
		secret, err := webhook.ParseSecret(h.SigningSecret.Reveal())
		if err != nil { // CreateWebhook and fixtures only store valid secrets; kept for safety
			d.recordLocked(DeliveryAttempt{EventID: out.id, EventType: out.typ, WebhookID: h.ID, URI: h.URI,
				Time: d.clock.Now(), Error: "the webhook's signing secret is not valid; nothing was sent", Final: true})
			continue
		}
		dl.secret = secret
		d.pending[dl] = struct{}{}
		if d.closed {
			continue // kept, and reported, as undelivered
		}
		d.waitLocked(dl, d.schedule[0])
	}
}

// jitter spreads a delay over ±webhookJitter.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	f := 1 + webhookJitter*(2*mrand.Float64()-1)
	return time.Duration(float64(d) * f)
}

// waitLocked makes dl due after delay: at once, or when a timer fires.
func (d *deliveries) waitLocked(dl *delivery, delay time.Duration) {
	delay = jitter(delay)
	if delay <= 0 {
		d.readyLocked(dl)
		return
	}
	d.wg.Add(1)
	dl.timer = time.AfterFunc(delay, func() {
		defer d.wg.Done()
		d.mu.Lock()
		defer d.mu.Unlock()
		dl.timer = nil
		if !d.closed {
			d.readyLocked(dl)
		}
	})
}

// readyLocked queues dl and starts a sender if fewer than workers run.
func (d *deliveries) readyLocked(dl *delivery) {
	d.ready = append(d.ready, dl)
	if d.active < d.workers {
		d.active++
		d.wg.Add(1)
		go d.send()
	}
}

// nextLocked takes the oldest due delivery whose webhook has fewer than
// perHook attempts in flight.
func (d *deliveries) nextLocked() *delivery {
	for i, dl := range d.ready {
		if d.inflight[dl.hook] < d.perHook {
			d.ready = slices.Delete(d.ready, i, i+1)
			d.inflight[dl.hook]++
			return dl
		}
	}
	return nil
}

// send is a sender goroutine: it makes attempts while deliveries it may take
// are due, then exits. A due delivery it may not take (its webhook has
// perHook attempts in flight) is taken by one of those senders when its
// attempt ends.
func (d *deliveries) send() {
	defer d.wg.Done()
	d.mu.Lock()
	defer d.mu.Unlock()
	for !d.closed {
		dl := d.nextLocked()
		if dl == nil {
			break
		}
		n := dl.attempts + 1
		d.mu.Unlock()
		rec := d.attempt(dl, n)
		d.mu.Lock()
		if d.inflight[dl.hook]--; d.inflight[dl.hook] == 0 {
			delete(d.inflight, dl.hook)
		}
		d.settleLocked(dl, rec)
	}
	d.active--
}

// attempt sends dl once, signed now, and says how it went.
func (d *deliveries) attempt(dl *delivery, n int) DeliveryAttempt {
	at := d.clock.Now()
	rec := DeliveryAttempt{EventID: dl.ev.id, EventType: dl.ev.typ, WebhookID: dl.hook, URI: dl.uri, Attempt: n, Time: at}
	ctx, cancel := context.WithTimeout(d.ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.uri, bytes.NewReader(dl.ev.body))
	if err != nil {
		rec.Error = "the webhook's uri cannot be requested: " + err.Error()
		return rec
	}
	req.Header = webhook.SignHeaders(dl.secret, dl.ev.id, at, dl.ev.body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", webhookUserAgent)
	start := time.Now()
	resp, err := d.client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainedBody))
		_ = resp.Body.Close()
	}
	rec.Duration = time.Since(start)
	switch {
	case err != nil && d.ctx.Err() != nil:
		rec.Error = "abandoned: the server was closed during the attempt"
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		rec.Error = fmt.Sprintf("no answer within %v", d.timeout)
	case err != nil:
		rec.Error = err.Error()
	default:
		rec.StatusCode = resp.StatusCode
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode <= 299:
			rec.Delivered = true
		case resp.StatusCode >= 300 && resp.StatusCode <= 399:
			rec.Error = fmt.Sprintf("answered %s (redirect to %q not followed)", resp.Status, resp.Header.Get("Location"))
		default:
			rec.Error = "answered " + resp.Status
		}
	}
	return rec
}

// settleLocked records an attempt of dl and decides what follows: done,
// another attempt later, or given up.
func (d *deliveries) settleLocked(dl *delivery, rec DeliveryAttempt) {
	dl.attempts = rec.Attempt
	dl.lastStatus, dl.lastErr = rec.StatusCode, rec.Error
	giveUp := !rec.Delivered && !d.closed && dl.attempts >= len(d.schedule)
	rec.Final = rec.Delivered || giveUp
	d.recordLocked(rec)
	switch {
	case rec.Final:
		if giveUp {
			d.logger.Warn("scribetest: webhook delivery given up after the last attempt of the schedule",
				"event_id", dl.ev.id, "event_type", string(dl.ev.typ), "webhook_id", dl.hook, "attempts", dl.attempts, "error", rec.Error)
		}
		delete(d.pending, dl)
		if len(d.pending) == 0 && d.idle != nil {
			close(d.idle)
			d.idle = nil
		}
	case !d.closed:
		d.waitLocked(dl, d.schedule[dl.attempts])
	}
}

func (d *deliveries) recordLocked(rec DeliveryAttempt) {
	d.attempts.push(rec)
}

// wait blocks until nothing is pending, ctx ends or the server is closed.
func (d *deliveries) wait(ctx context.Context) error {
	n, cause := d.settled(ctx)
	if n == 0 {
		return nil
	}
	if errors.Is(cause, ErrClosed) {
		return fmt.Errorf("scribetest: %s will not be delivered (see PendingDeliveries): %w", countDeliveries(n), cause)
	}
	return fmt.Errorf("scribetest: %s still pending (see PendingDeliveries): %w", countDeliveries(n), cause)
}

// settled waits like wait and returns how many deliveries are pending and,
// if some are, why the wait ended.
func (d *deliveries) settled(ctx context.Context) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		switch {
		case len(d.pending) == 0:
			return 0, nil
		case d.closed:
			return len(d.pending), ErrClosed
		case ctx.Err() != nil:
			return len(d.pending), ctx.Err()
		}
		if d.idle == nil {
			d.idle = make(chan struct{})
		}
		idle := d.idle
		d.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
		case <-d.done:
		}
		d.mu.Lock()
	}
}

// close stops delivery at once: attempts in flight are aborted, waiting
// deliveries stay pending. It waits for every sender and timer to finish
// and returns how many deliveries were left undelivered.
func (d *deliveries) close() int {
	d.mu.Lock()
	first := !d.closed
	if first {
		d.closed = true
		close(d.done)
		d.cancel()
		for dl := range d.pending {
			if dl.timer != nil && dl.timer.Stop() {
				dl.timer = nil
				d.wg.Done()
			}
		}
	}
	d.mu.Unlock()
	d.wg.Wait()
	if d.own != nil {
		d.own.CloseIdleConnections()
	}
	d.mu.Lock()
	n := len(d.pending)
	d.mu.Unlock()
	if first && n > 0 {
		d.logger.Warn("scribetest: webhook deliveries left undelivered at close (see PendingDeliveries)", "count", n)
	}
	return n
}

// shutdown waits, until ctx ends, for every delivery to settle, then closes.
func (d *deliveries) shutdown(ctx context.Context) error {
	_, cause := d.settled(ctx)
	n := d.close()
	if n == 0 {
		return nil
	}
	if cause == nil {
		cause = ErrClosed // emitted after the wait, while closing
	}
	return fmt.Errorf("scribetest: Shutdown: %s undelivered (see PendingDeliveries): %w", countDeliveries(n), cause)
}

// countDeliveries says "1 webhook delivery" or "n webhook deliveries".
func countDeliveries(n int) string {
	if n == 1 {
		return "1 webhook delivery"
	}
	return fmt.Sprintf("%d webhook deliveries", n)
}
