package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/redact"
)

// HandlerOption configures the handler of NewHandler; a bad value is an
// error from NewHandler. The zero HandlerOption does nothing.
type HandlerOption struct {
	apply func(*handler) error
}

// WithDedupeStore replaces the handler's in-memory DedupeStore, for example by
// one shared by several receiver processes. A nil s is an error: turn
// deduplication off with WithoutDedupe.
func WithDedupeStore(s DedupeStore) HandlerOption {
	return HandlerOption{func(h *handler) error {
		if s == nil {
			return errors.New("webhook: WithDedupeStore: the store is nil; to turn deduplication off, say so with WithoutDedupe")
		}
		h.store = s
		return nil
	}}
}

// WithoutDedupe turns deduplication off: every verified delivery reaches
// your function, the sender's retries of an event included. Use it only
// when your function is idempotent on its own.
func WithoutDedupe() HandlerOption {
	return HandlerOption{func(h *handler) error {
		h.store = nil
		return nil
	}}
}

// WithLogger makes the handler report to l instead of slog.Default(): each
// refused delivery and each error of your function at Warn, a failing
// DedupeStore at Error, always with the webhook-id and the reason. Your
// function's error is logged redacted: text shaped like a credential
// (whsec_, ask_live_, dk_live_, a JWT) and the Verifier's own signing keys
// are replaced by [REDACTED]. Log records never hold a secret, a signature
// or the body. WithLogger(nil) turns logging off.
func WithLogger(l *slog.Logger) HandlerOption {
	return HandlerOption{func(h *handler) error {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		h.log = l
		return nil
	}}
}

// WithErrorDetails makes the answer to a delivery your function failed carry
// the function's error, redacted like the log record and cut to 512 bytes;
// without it the answer is a fixed line. The answer goes to a sender that has
// proved it holds the signing secret, and it is what the service's attempt
// log (and scribetest's DeliveryAttempt.ResponseBody) shows you: give it
// where that helps you debug, and never if your errors may hold what even the
// service should not see.
func WithErrorDetails() HandlerOption {
	return HandlerOption{func(h *handler) error {
		h.details = true
		return nil
	}}
}

// maxErrorDetailBytes bounds the text of your function's error that an
// answer carries (see WithErrorDetails).
const maxErrorDetailBytes = 512

// DeliveryTimeout is how long the service waits for a receiver's answer to
// one delivery attempt (docs/contract.md, "Events and webhooks"): a 2xx
// within it is a delivery; a later one, or none, is a failed attempt that
// the service retries. Answer within it, and queue work that takes longer.
const DeliveryTimeout = 15 * time.Second

// The Retry-After the handler sends with a 409 answer to a delivery whose id
// another delivery is still processing, and with a 503 answer when its
// DedupeStore fails.
const (
	retryAfterInFlight     = "5"
	retryAfterStoreFailure = "10"
)

// NewHandler returns an http.Handler that receives deliveries and calls fn
// once per event. For each request it:
//
//  1. answers 405 Method Not Allowed to anything but POST;
//  2. reads the body, up to the Verifier's MaxBodyBytes: 413 Content Too Large beyond;
//  3. verifies it with v: 400 Bad Request when a header is missing or
//     malformed, 401 Unauthorized when no signature matches or the timestamp
//     is outside the tolerance;
//  4. decodes the Event: 400 Bad Request when the body is not one, or when
//     its id differs from the webhook-id (fn does not run, and neither id
//     is marked as seen);
//  5. reserves the webhook-id in the DedupeStore: 200 OK without calling fn
//     when the id was processed before, 409 Conflict (with Retry-After) when
//     another delivery of the id is being processed right now, 503 Service
//     Unavailable (with Retry-After) when the store fails, and fn does not run;
//  6. calls fn with the request's context: 200 OK when it returns nil (the id
//     is then marked processed), 500 Internal Server Error when it fails (the
//     id is then released, so the service's retry calls fn again; so for a
//     panic in fn, which is recovered and logged at Error with its stack,
//     redacted), or
//     StatusPermanentFailure (422) when it fails with an error made by
//     Permanent (the id is released; the service does not retry).
//
// The service retries every answer but a 2xx and a 422; the codes say why,
// in the service's delivery log and in yours. An event of an unknown type
// reaches fn like any other: return nil to acknowledge it. Error answers are
// one line of text/plain that never holds a secret or a signature, nor
// fn's error unless WithErrorDetails asks for it, redacted.
//
// fn's errors, and refused deliveries, are logged at Warn to slog.Default(),
// or to the logger of WithLogger, redacted. A nil v or fn, or a bad option,
// is an error.
func NewHandler(v *Verifier, fn func(ctx context.Context, e *Event) error, opts ...HandlerOption) (http.Handler, error) {
	switch {
	case v == nil:
		return nil, errors.New("webhook: NewHandler: the Verifier is nil; make it with NewVerifier(hook.SigningSecret)")
	case fn == nil:
		return nil, errors.New("webhook: NewHandler: the function is nil; pass the one that handles each event")
	}
	store, err := NewMemoryDedupeStore(0, 0)
	if err != nil {
		return nil, err
	}
	h := &handler{v: v, fn: fn, store: store}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(h); err != nil {
			return nil, err
		}
	}
	// Each key as its secret's text, and its bare base64: an error may
	// quote a secret without its whsec_ prefix, which redact.Text does not
	// know.
	for _, k := range v.keys {
		h.keyTexts = append(h.keyTexts, redact.WebhookSecretForms(auth.WebhookSecretPrefix+base64.StdEncoding.EncodeToString(k))...)
	}
	return h, nil
}

type handler struct {
	hooks    []DeliveryHook
	v        *Verifier
	fn       func(context.Context, *Event) error
	store    DedupeStore
	log      *slog.Logger // nil: slog.Default() at the time of logging
	details  bool
	keyTexts []string // the Verifier's keys as text, scrubbed from fn's errors
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(h.hooks) == 0 {
		var d Delivery
		h.serve(w, r, &d)
		return
	}
	ctx := r.Context()
	ends := make([]func(Delivery), 0, len(h.hooks))
	for _, hook := range h.hooks {
		hctx, end := hook(ctx, r)
		if hctx != nil {
			ctx = hctx
		}
		if end != nil {
			ends = append(ends, end)
		}
	}
	d := &Delivery{ID: r.Header.Get(HeaderID)}
	defer func() {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](*d)
		}
	}()
	h.serve(w, r.WithContext(ctx), d)
}

// serve handles one request, and tells d how it ended.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, d *Delivery) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		d.refused(http.StatusMethodNotAllowed, ReasonMalformed)
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhook deliveries are POST requests", http.StatusMethodNotAllowed)
		return
	}
	body, err := readBody(w, r, h.v.maxBodyBytes)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			d.refused(http.StatusRequestEntityTooLarge, ReasonMalformed)
			h.refuse(w, r, http.StatusRequestEntityTooLarge, &VerificationError{Err: ErrBodyTooLarge,
				Detail: "the body is larger than the receiver's maximum of " + strconv.FormatInt(h.v.maxBodyBytes, 10) + " bytes"})
			return
		}
		h.logger().WarnContext(ctx, "webhook: reading the body failed", "webhook_id", r.Header.Get(HeaderID), "error", err)
		d.refused(http.StatusBadRequest, ReasonMalformed)
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	id, err := h.v.verify(r.Header, body)
	if err != nil {
		d.refused(verificationStatus(err), refusalReason(err))
		h.refuse(w, r, d.Status, err)
		return
	}
	event, err := ParseEvent(body)
	if err != nil {
		d.refused(http.StatusBadRequest, ReasonMalformed)
		h.refuse(w, r, http.StatusBadRequest, err)
		return
	}
	d.ID, d.Type, d.PluginInstallationUUID = id, event.Type, event.PluginInstallationUUID
	if event.ID != id {
		d.refused(http.StatusBadRequest, ReasonMalformed)
		// Deduped on one id and handed over with the other, the event would
		// be lost or run twice; neither id is claimed, so both events run
		// when they are really delivered.
		h.refuse(w, r, http.StatusBadRequest, fmt.Errorf("%w: the body's id %s differs from webhook-id %s; the service sends one event's id in both",
			ErrMalformedEvent, redact.Quote(event.ID, 64), redact.Quote(id, 64)))
		return
	}
	if h.store == nil {
		h.run(w, r, d, event, nil, Claim{ID: id})
		return
	}
	res, claim, err := h.store.Reserve(ctx, id)
	if err != nil {
		h.storeFailed(w, r, d, "reserve", err)
		return
	}
	switch res {
	case Reserved:
		claim.ID = id
		h.run(w, r, d, event, h.store, claim)
	case Duplicate:
		d.Outcome, d.Status = OutcomeDuplicate, http.StatusOK
		writeText(w, http.StatusOK, "duplicate: event already processed")
	case InFlight:
		d.Outcome, d.Status = OutcomeInFlight, http.StatusConflict
		w.Header().Set("Retry-After", retryAfterInFlight)
		http.Error(w, "another delivery of this event is being processed; retry later", http.StatusConflict)
	default:
		h.storeFailed(w, r, d, "reserve", fmt.Errorf("unknown Reservation %d", int(res)))
	}
}

// storeFailed answers 503 with a Retry-After: a store that fails is never
// taken for a success, and the function does not run without a claim.
func (h *handler) storeFailed(w http.ResponseWriter, r *http.Request, d *Delivery, op string, err error) {
	d.Outcome, d.Reason, d.Status = OutcomeFailed, ReasonStore, http.StatusServiceUnavailable
	h.logger().ErrorContext(r.Context(), "webhook: dedupe store failed; answering 503 so that the service retries", "op", op,
		"webhook_id", d.ID, "installation_uuid", d.PluginInstallationUUID, "error", redact.Line(err.Error(), maxLoggedError, h.keyTexts...))
	w.Header().Set("Retry-After", retryAfterStoreFailure)
	http.Error(w, "dedupe store unavailable; retry later", http.StatusServiceUnavailable)
}

// run calls fn and settles the claim, if store is not nil. A panic in fn is
// recovered: the claim is released, the panic logged redacted with its
// stack, and the answer is 500, so the service's retry runs fn again.
func (h *handler) run(w http.ResponseWriter, r *http.Request, d *Delivery, event *Event, store DedupeStore, c Claim) {
	ctx := r.Context()
	err := h.call(ctx, event, c.ID)
	if err != nil {
		if store != nil {
			h.settled(ctx, event, "release", c.ID, store.Release(context.WithoutCancel(ctx), c))
		}
		h.failed(w, r, d, event, c.ID, err)
		return
	}
	if store != nil {
		// fn has run: whatever Complete says, the answer is 200, since a
		// 503 would make the service's retry run fn a second time.
		h.settled(ctx, event, "complete", c.ID, store.Complete(context.WithoutCancel(ctx), c))
	}
	d.Outcome, d.Status = OutcomeProcessed, http.StatusOK
	writeText(w, http.StatusOK, "ok")
}

// settled logs a Complete or Release that did not go through: a lost claim
// (the lease ran out while fn ran) at Warn, a failing store at Error.
func (h *handler) settled(ctx context.Context, event *Event, op, id string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, ErrClaimLost):
		h.logger().WarnContext(ctx, "webhook: the claim's lease ran out while the event handler ran, and another delivery claimed the id; make the lease longer than the handler's longest run",
			"op", op, "webhook_id", id, "installation_uuid", event.PluginInstallationUUID)
	default:
		h.logger().ErrorContext(ctx, "webhook: dedupe store failed to settle the claim; it ends with its lease", "op", op, "webhook_id", id,
			"installation_uuid", event.PluginInstallationUUID, "error", redact.Line(err.Error(), maxLoggedError, h.keyTexts...))
	}
}

// errPanicked stands for a panic in fn in the answer: its value stays in
// the log.
var errPanicked = errors.New("the event handler panicked")

// call runs fn, turning a panic into errPanicked. The panic value and the
// stack are logged at Error, redacted; net/http never sees the panic, so
// nothing reaches the server's ErrorLog. http.ErrAbortHandler goes on up, as
// net/http expects.
func (h *handler) call(ctx context.Context, event *Event, id string) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler {
			panic(p)
		}
		h.logger().ErrorContext(ctx, "webhook: the event handler panicked; the id is released and the service will retry",
			"webhook_id", id, "event_type", string(event.Type), "installation_uuid", event.PluginInstallationUUID,
			"panic", redact.Line(fmt.Sprint(p), maxLoggedError, h.keyTexts...),
			"stack", redact.Excerpt(debug.Stack(), maxLoggedStack, false, h.keyTexts...))
		err = errPanicked
	}()
	return h.fn(ctx, event)
}

// failed answers a delivery fn failed: 500, or 422 for a Permanent error.
func (h *handler) failed(w http.ResponseWriter, r *http.Request, d *Delivery, event *Event, id string, err error) {
	status, line := http.StatusInternalServerError, "the event handler failed; retry later"
	msg := "webhook: the event handler failed; the service will retry"
	d.Outcome, d.Reason = OutcomeFailed, ReasonHandler
	if err == errPanicked {
		d.Reason = ReasonPanic
	}
	if IsPermanent(err) {
		status, line = StatusPermanentFailure, "the event handler failed permanently; do not retry"
		msg = "webhook: the event handler failed permanently; the service will not retry"
		d.Outcome = OutcomePermanent
	}
	d.Status = status
	if err != errPanicked {
		h.logger().WarnContext(r.Context(), msg, "webhook_id", id, "event_type", string(event.Type),
			"installation_uuid", event.PluginInstallationUUID, "status", status,
			"error", redact.Line(err.Error(), maxLoggedError, h.keyTexts...))
	}
	if h.details {
		line += ": " + redact.Line(err.Error(), maxErrorDetailBytes, h.keyTexts...)
	}
	http.Error(w, line, status)
}

// logger returns the logger of WithLogger, or slog.Default() as it is now,
// so that a program calling slog.SetDefault after NewHandler is obeyed.
func (h *handler) logger() *slog.Logger {
	if h.log != nil {
		return h.log
	}
	return slog.Default()
}

// maxLoggedError bounds the text of fn's error in a log record, and
// maxLoggedStack the stack of a panic.
const (
	maxLoggedError = 4 << 10
	maxLoggedStack = 16 << 10
)

// refuse answers a delivery that failed verification or decoding.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, status int, err error) {
	h.logger().WarnContext(r.Context(), "webhook: delivery refused", "webhook_id", r.Header.Get(HeaderID), "status", status, "error", err)
	http.Error(w, err.Error(), status)
}

// verificationStatus maps a verification error to the handler's status code.
func verificationStatus(err error) int {
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrNoMatchingSignature), errors.Is(err, ErrTimestampTooOld), errors.Is(err, ErrTimestampTooNew):
		return http.StatusUnauthorized
	default:
		return http.StatusBadRequest
	}
}

// readBody reads at most limit bytes of the body; beyond, it fails with an
// *http.MaxBytesError.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead) // one allocation when the length is announced
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	return buf.Bytes(), err
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}
