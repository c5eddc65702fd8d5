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
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/webhook"
)

// Webhook delivery (CONTRACT §7): every event Server.emit receives becomes
// one delivery per webhook of its plugin. A delivery is sent by a bounded
// pool of short-lived sender goroutines; between attempts it waits on a
// timer of the server's clock (a FakeClock's when the test gave one),
// holding no goroutine. See docs/server.md, "Webhook delivery".

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
	// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody: the first
	// bytes of the receiver's answer kept with each attempt.
	MaxResponseExcerpt = 1 << 10
	// webhookUserAgent is the User-Agent of every delivery.
	webhookUserAgent = "scribe-webhooks/1.0 (scribetest)"
)

// MaxEventBytes is the largest event body the server delivers, the
// receiver's default limit (webhook.DefaultMaxBodyBytes, 4 MiB): whatever
// the server emits, a receiver built with webhook.NewHandler and its default
// options admits. An event beyond it (a transcript of several megabytes of
// text) is not sent: its delivery is recorded as one final, failed attempt
// that says so, and logged at Error.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

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
	// ResponseBody is the start of the receiver's answer, at most
	// MaxResponseExcerpt bytes (cut at a character, "…" added), with text
	// shaped like a credential and the webhook's signing secret redacted
	// and control characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string
	// Error says why the attempt failed, "" when it succeeded.
	Error string
	// Duration is how long the attempt took, by the wall clock.
	Duration time.Duration
	// Delivered reports a 2xx answer within the timeout.
	Delivered bool
	// Final reports that no attempt follows: the event was delivered, the
	// receiver refused it permanently, or the schedule is exhausted and the
	// delivery given up.
	Final bool
	// Permanent reports that the receiver answered
	// webhook.StatusPermanentFailure (422): the delivery failed for good and
	// is not retried (Final is set too).
	Permanent bool
}

// String formats the attempt on one line, as RequireDelivered prints it:
// number, time, status or error, duration, and the receiver's answer.
func (a DeliveryAttempt) String() string {
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
	// NextAttempt is when the next attempt is due, by the server's clock;
	// zero when it is due now, in flight, or will never come (after Close).
	NextAttempt time.Time
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
		if dl.timer != nil {
			out[i].NextAttempt = dl.due
		}
	}
	return out
}

// WaitForDeliveries waits until every delivery is settled: delivered,
// refused permanently, or given up after the last attempt of the schedule.
// It returns nil then, or, when ctx ends or the server is closed first, an
// error with the number of deliveries still pending (see PendingDeliveries)
// that wraps ctx.Err() or ErrClosed.
//
// On a FakeClock (WithClock) it moves the clock: whenever no attempt is due
// or in flight and deliveries wait for a retry, it advances the clock to the
// earliest retry, so the whole schedule, 27 hours by default, passes in
// milliseconds. On the system clock it waits for the retries in real time.
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
	timer      Timer     // set while waiting for the next attempt
	due        time.Time // when timer fires, by the clock
}

// deliveries is the server's delivery engine.
type deliveries struct {
	clock    Clock
	timers   TimerClock
	advancer interface{ Advance(time.Duration) } // the clock, when a test moves it (FakeClock)
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
	events   ring[emittedEvent] // the last events emitted, for Trigger
	emitted  uint64             // events emitted so far
	changed  chan struct{}      // closed at the next change of state; nil if nobody waits
	closed   bool
	done     chan struct{} // closed by close

	wg sync.WaitGroup // sender goroutines and timers that may fire
}

func newDeliveries(cfg deliveryConfig, clock Clock, logger *slog.Logger) *deliveries {
	d := &deliveries{
		clock:    clock,
		timers:   realClock{},
		logger:   logger,
		schedule: defaultWebhookSchedule,
		workers:  defaultWebhookWorkers,
		timeout:  defaultWebhookTimeout,
		pending:  map[*delivery]struct{}{},
		inflight: map[int64]int{},
		done:     make(chan struct{}),
	}
	if tc, ok := clock.(TimerClock); ok {
		d.timers = tc
		if a, ok := clock.(interface{ Advance(time.Duration) }); ok {
			d.advancer = a
		}
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
	defer d.notifyLocked()
	d.events.push(emittedEvent{ID: id, Type: out.typ, PluginID: e.PluginID})
	d.emitted++
	if len(data) > MaxEventBytes {
		d.logger.Error("scribetest: a webhook event is larger than MaxEventBytes; it is not delivered", "event_id", id, "event_type", e.Type, "bytes", len(data))
		for _, h := range hooks {
			d.recordLocked(DeliveryAttempt{EventID: out.id, EventType: out.typ, WebhookID: h.ID, URI: h.URI, Time: d.clock.Now(), Final: true,
				Error: fmt.Sprintf("not sent: the event is %d bytes, more than MaxEventBytes (%d), the most a receiver admits by default", len(data), MaxEventBytes)})
		}
		return
	}
	for _, h := range hooks {
		d.seq++
		if h.SigningSecret.IsZero() { // CreateWebhook and fixtures always set one; kept for safety
			d.recordLocked(DeliveryAttempt{EventID: out.id, EventType: out.typ, WebhookID: h.ID, URI: h.URI,
				Time: d.clock.Now(), Error: "the webhook has no signing secret; nothing was sent", Final: true})
			continue
		}
		// The stored secret is already parsed (webhook.Secret): no need to
		// parse its text again for every event.
		dl := &delivery{seq: d.seq, ev: out, hook: h.ID, uri: h.URI, secret: h.SigningSecret}
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
	dl.timer = d.timers.AfterFunc(delay, func() {
		defer d.wg.Done()
		d.mu.Lock()
		defer d.mu.Unlock()
		dl.timer = nil
		if !d.closed {
			d.readyLocked(dl)
			d.notifyLocked()
		}
	})
	// Read after the timer is set: if a test moves the clock meanwhile, due
	// is no earlier than the timer's, so moving the clock to due (settled)
	// fires it instead of waiting at a time it never reaches.
	dl.due = d.clock.Now().Add(delay)
}

// changedLocked returns a channel that notifyLocked closes at the next
// change of the deliveries: wait on it after unlocking d.mu.
func (d *deliveries) changedLocked() <-chan struct{} {
	if d.changed == nil {
		d.changed = make(chan struct{})
	}
	return d.changed
}

// notifyLocked wakes whoever waits for a change of state (settled).
func (d *deliveries) notifyLocked() {
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
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
		head := make([]byte, MaxResponseExcerpt+utf8.UTFMax)
		n, _ := io.ReadFull(resp.Body, head)
		more, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainedBody))
		_ = resp.Body.Close()
		rec.ResponseBody = excerpt(head[:n], more > 0, dl.secret)
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
		case resp.StatusCode == webhook.StatusPermanentFailure:
			rec.Error = "answered " + resp.Status + ": the receiver refused the event permanently; not retried"
			rec.Permanent = true
		default:
			rec.Error = "answered " + resp.Status
		}
	}
	return rec
}

// excerpt renders the start of a receiver's answer for DeliveryAttempt:
// at most MaxResponseExcerpt bytes of valid UTF-8, the webhook's secret and
// credential-shaped text redacted, control characters but \n and \t
// replaced by spaces.
func excerpt(b []byte, truncated bool, secret webhook.Secret) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if !secret.IsZero() {
		// The secret, and the key's base64 with and without its padding (as
		// webhook.NewHandler redacts it): redact.Text knows only the first.
		s = redact.Known(s, redact.WebhookSecretForms(secret.Reveal())...)
	} else {
		s = redact.Text(s)
	}
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s, cut := redact.Cut(s, MaxResponseExcerpt)
	if truncated || cut {
		s += "…"
	}
	return s
}

// settleLocked records an attempt of dl and decides what follows: done,
// another attempt later, or given up.
func (d *deliveries) settleLocked(dl *delivery, rec DeliveryAttempt) {
	dl.attempts = rec.Attempt
	dl.lastStatus, dl.lastErr = rec.StatusCode, rec.Error
	defer d.notifyLocked()
	giveUp := !rec.Delivered && !d.closed && dl.attempts >= len(d.schedule)
	rec.Final = rec.Delivered || giveUp || rec.Permanent
	d.recordLocked(rec)
	switch {
	case rec.Final:
		switch {
		case rec.Permanent:
			d.logger.Warn("scribetest: webhook delivery failed permanently: the receiver answered 422, which is not retried",
				"event_id", dl.ev.id, "event_type", string(dl.ev.typ), "webhook_id", dl.hook, "attempts", dl.attempts, "answer", rec.ResponseBody)
		case giveUp:
			d.logger.Warn("scribetest: webhook delivery given up after the last attempt of the schedule",
				"event_id", dl.ev.id, "event_type", string(dl.ev.typ), "webhook_id", dl.hook, "attempts", dl.attempts, "error", rec.Error)
		}
		delete(d.pending, dl)
	case !d.closed:
		d.waitLocked(dl, d.schedule[dl.attempts])
	}
}

func (d *deliveries) recordLocked(rec DeliveryAttempt) {
	d.attempts.push(rec)
}

// wait blocks until nothing is pending, ctx ends or the server is closed,
// moving a FakeClock to each retry.
func (d *deliveries) wait(ctx context.Context) error {
	n, cause := d.settled(ctx, nil)
	if n == 0 {
		return nil
	}
	if errors.Is(cause, ErrClosed) {
		return fmt.Errorf("scribetest: %s will not be delivered (see PendingDeliveries): %w", countDeliveries(n), cause)
	}
	return fmt.Errorf("scribetest: %s still pending (see PendingDeliveries): %w", countDeliveries(n), cause)
}

// settled waits until no delivery that want selects (every one, if want is
// nil) is pending, and returns how many still are and, if some are, why the
// wait ended: ctx, or the server's close. Whenever nothing is due or in
// flight it moves a FakeClock to the earliest retry.
func (d *deliveries) settled(ctx context.Context, want func(*delivery) bool) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		n := 0
		for dl := range d.pending {
			if want == nil || want(dl) {
				n++
			}
		}
		switch {
		case n == 0:
			return 0, nil
		case d.closed:
			return n, ErrClosed
		case ctx.Err() != nil:
			return n, ctx.Err()
		}
		if d.advancer != nil && len(d.ready) == 0 && len(d.inflight) == 0 {
			if next, ok := d.nextDueLocked(); ok {
				// Every pending delivery waits on a timer: move the clock to
				// the first. Advance runs the timer, which takes d.mu.
				d.mu.Unlock()
				d.advancer.Advance(max(next.Sub(d.clock.Now()), 0))
				d.mu.Lock()
				continue
			}
		}
		changed := d.changedLocked()
		d.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		case <-d.done:
		}
		d.mu.Lock()
	}
}

// nextDueLocked returns when the earliest timer of a pending delivery fires.
func (d *deliveries) nextDueLocked() (time.Time, bool) {
	var next time.Time
	found := false
	for dl := range d.pending {
		if dl.timer != nil && (!found || dl.due.Before(next)) {
			next, found = dl.due, true
		}
	}
	return next, found
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
	_, cause := d.settled(ctx, nil)
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

// emittedEvent is an event the server emitted to at least one webhook.
type emittedEvent struct {
	ID       string
	Type     webhook.EventType
	PluginID int64
}

// RequireTimeout bounds how long RequireDelivered waits for deliveries on
// the system clock: a liveness bound that fails a test which would hang,
// not a measure of speed. On a FakeClock the wait moves the clock instead.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t unless every delivery of the events named by
// eventIDs (of every event emitted so far, when none is named) to every
// webhook ended with a 2xx answer. It first waits for them to settle, as
// WaitForDeliveries does: on a FakeClock it advances the clock through the
// retries, so a test needs no sleep and no clock of its own; on the system
// clock it waits at most RequireTimeout, and fails at once when the next
// retry is due after that. The failure lists, per delivery that did not get
// through, every attempt with its time, status, error and the start of the
// receiver's answer (where webhook.NewHandler puts your function's error),
// and whether it was given up, refused permanently or is still pending.
// It returns the attempts of those events, oldest first.
func (s *Server) RequireDelivered(t testing.TB, eventIDs ...string) []DeliveryAttempt {
	t.Helper()
	d := s.deliveries
	named := make(map[string]bool, len(eventIDs))
	for _, id := range eventIDs {
		named[id] = true
	}
	var want func(*delivery) bool
	if len(named) > 0 {
		want = func(dl *delivery) bool { return named[dl.ev.id] }
	}
	ctx, cancel := context.WithTimeout(context.Background(), RequireTimeout)
	defer cancel()
	if d.advancer == nil {
		// On the system clock, do not wait for a retry due after the bound.
		ctx = d.stopBeforeLateRetry(ctx, cancel, want)
	}
	_, cause := d.settled(ctx, want)

	d.mu.Lock()
	attempts := d.attempts.all()
	var pending []*delivery
	for dl := range d.pending {
		if want == nil || want(dl) {
			pending = append(pending, dl)
		}
	}
	slices.SortFunc(pending, func(a, b *delivery) int { return cmp.Compare(a.seq, b.seq) })
	type key struct {
		event string
		hook  int64
	}
	waiting := map[key]string{}
	byKey := make(map[key]*delivery, len(pending))
	for _, dl := range pending {
		byKey[key{dl.ev.id, dl.hook}] = dl
		switch {
		case dl.timer != nil:
			waiting[key{dl.ev.id, dl.hook}] = fmt.Sprintf("still pending: next attempt due at %s, %v from now by the server's clock",
				dl.due.UTC().Format(time.RFC3339Nano), dl.due.Sub(d.clock.Now()).Round(time.Millisecond))
		case d.closed:
			waiting[key{dl.ev.id, dl.hook}] = "never delivered: the server was closed"
		default:
			waiting[key{dl.ev.id, dl.hook}] = "still pending: an attempt is due or in flight"
		}
	}
	d.mu.Unlock()

	var mine []DeliveryAttempt
	byDelivery := map[key][]DeliveryAttempt{}
	var order []key
	for _, a := range attempts {
		if len(named) > 0 && !named[a.EventID] {
			continue
		}
		mine = append(mine, a)
		k := key{a.EventID, a.WebhookID}
		if _, ok := byDelivery[k]; !ok {
			order = append(order, k)
		}
		byDelivery[k] = append(byDelivery[k], a)
	}
	for _, dl := range pending {
		k := key{dl.ev.id, dl.hook}
		if _, ok := byDelivery[k]; !ok {
			order = append(order, k)
			byDelivery[k] = nil
		}
	}

	var b strings.Builder
	seen := map[string]bool{}
	for _, k := range order {
		seen[k.event] = true
		as := byDelivery[k]
		if len(as) > 0 && as[len(as)-1].Delivered {
			continue
		}
		var typ webhook.EventType
		var uri string
		if len(as) > 0 {
			typ, uri = as[0].EventType, as[0].URI
		} else if dl := byKey[k]; dl != nil {
			typ, uri = dl.ev.typ, dl.uri
		}
		fmt.Fprintf(&b, "\n  event %s (%s) to webhook %d (%s):", k.event, typ, k.hook, uri)
		for _, a := range as {
			fmt.Fprintf(&b, "\n    %s", a)
		}
		if w, ok := waiting[k]; ok {
			fmt.Fprintf(&b, "\n    %s", w)
		} else if len(as) == 0 {
			b.WriteString("\n    no attempt recorded")
		}
	}
	for _, id := range eventIDs {
		if !seen[id] {
			fmt.Fprintf(&b, "\n  event %s: no delivery of it was emitted (no webhook of its plugin, an id from elsewhere, or more than %d attempts ago)", id, maxRecords)
		}
	}
	if len(named) == 0 && len(order) == 0 {
		b.WriteString("\n  no webhook event was emitted: does the plugin have a webhook (CreateWebhook), and did something install it or create a transcript?")
	}
	if b.Len() > 0 {
		why := ""
		if cause != nil {
			why = fmt.Sprintf(" (the wait ended: %v)", cause)
		}
		t.Fatalf("scribetest: RequireDelivered: not every delivery got a 2xx answer%s:%s", why, b.String())
	}
	return mine
}

// stopBeforeLateRetry returns a context that also ends as soon as every
// delivery want selects waits for a retry due after ctx's deadline, so that
// RequireDelivered on the system clock fails at once instead of waiting for
// nothing.
func (d *deliveries) stopBeforeLateRetry(ctx context.Context, cancel context.CancelFunc, want func(*delivery) bool) context.Context {
	deadline, _ := ctx.Deadline()
	go func() {
		for {
			d.mu.Lock()
			late := true
			n := 0
			for dl := range d.pending {
				if want != nil && !want(dl) {
					continue
				}
				n++
				if dl.timer == nil || !dl.due.After(d.clock.Now().Add(time.Until(deadline))) {
					late = false
				}
			}
			if n > 0 && late {
				d.mu.Unlock()
				cancel()
				return
			}
			changed := d.changedLocked()
			d.mu.Unlock()
			select {
			case <-changed:
			case <-ctx.Done():
				return
			case <-d.done:
				return
			}
		}
	}()
	return ctx
}
