package webhook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
)

// HandlerOption configures the handler of NewHandler.
type HandlerOption func(*handler)

// WithDedupeStore replaces the handler's in-memory DedupeStore, for example by
// one shared by several receiver processes. nil turns deduplication off: every
// verified delivery then reaches your function.
func WithDedupeStore(s DedupeStore) HandlerOption {
	return func(h *handler) { h.store = s }
}

// WithLogger makes the handler log each refused or failed delivery (at Warn
// for a refusal, at Error when your function or the store fails) with its
// webhook-id and the reason. Log records never hold a secret, a signature or
// the body. By default the handler logs nothing.
func WithLogger(l *slog.Logger) HandlerOption {
	return func(h *handler) { h.log = l }
}

// RetryAfterInFlight is the Retry-After, in seconds, the handler sends with a
// 409 answer to a delivery whose id another delivery is still processing.
const RetryAfterInFlight = 5

// NewHandler returns an http.Handler that receives deliveries and calls fn
// once per event. For each request it:
//
//  1. answers 405 Method Not Allowed to anything but POST;
//  2. reads the body, up to the Verifier's MaxBodyBytes: 413 Content Too Large beyond;
//  3. verifies it with v: 400 Bad Request when a header is missing or
//     malformed, 401 Unauthorized when no signature matches or the timestamp
//     is outside the tolerance;
//  4. decodes the Event: 400 Bad Request when the body is not one;
//  5. reserves the webhook-id in the DedupeStore: 200 OK without calling fn
//     when the id was processed before, 409 Conflict (with Retry-After) when
//     another delivery of the id is being processed right now, 503 Service
//     Unavailable when the store fails;
//  6. calls fn with the request's context: 200 OK when it returns nil (the id
//     is then marked processed), 500 Internal Server Error when it fails (the
//     id is then released, so the service's retry calls fn again).
//
// The service retries every answer but a 2xx; the codes say why, in the
// service's delivery log and in yours. An event of an unknown type reaches fn
// like any other: return nil to acknowledge it. Error answers are one line of
// text/plain that never holds a secret, a signature or fn's error.
func NewHandler(v *Verifier, fn func(ctx context.Context, e *Event) error, opts ...HandlerOption) http.Handler {
	h := &handler{v: v, fn: fn, store: NewMemoryDedupeStore(0, 0), log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(h)
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

type handler struct {
	v     *Verifier
	fn    func(context.Context, *Event) error
	store DedupeStore
	log   *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if h.v == nil || h.fn == nil {
		h.log.ErrorContext(ctx, "webhook: NewHandler was given a nil Verifier or a nil function")
		http.Error(w, "webhook receiver is misconfigured", http.StatusInternalServerError)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhook deliveries are POST requests", http.StatusMethodNotAllowed)
		return
	}
	body, err := readBody(w, r, h.v.maxBodyBytes)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.refuse(w, r, http.StatusRequestEntityTooLarge, &VerificationError{Err: ErrBodyTooLarge,
				Detail: "the body is larger than the receiver's maximum of " + strconv.FormatInt(h.v.maxBodyBytes, 10) + " bytes"})
			return
		}
		h.log.WarnContext(ctx, "webhook: reading the body failed", "webhook_id", r.Header.Get(HeaderID), "error", err)
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	id, err := h.v.verify(r.Header, body)
	if err != nil {
		h.refuse(w, r, verificationStatus(err), err)
		return
	}
	event, err := ParseEvent(body)
	if err != nil {
		h.refuse(w, r, http.StatusBadRequest, err)
		return
	}
	if h.store == nil {
		h.run(w, r, event, nil, id)
		return
	}
	res, err := h.store.Reserve(ctx, id)
	if err != nil {
		h.log.ErrorContext(ctx, "webhook: dedupe store failed to reserve the id", "webhook_id", id, "error", err)
		http.Error(w, "dedupe store unavailable; retry later", http.StatusServiceUnavailable)
		return
	}
	switch res {
	case Reserved:
		h.run(w, r, event, h.store, id)
	case Duplicate:
		writeText(w, http.StatusOK, "duplicate: event already processed")
	case InFlight:
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterInFlight))
		http.Error(w, "another delivery of this event is being processed; retry later", http.StatusConflict)
	default:
		h.log.ErrorContext(ctx, "webhook: dedupe store answered an unknown Reservation", "webhook_id", id, "reservation", res)
		http.Error(w, "dedupe store unavailable; retry later", http.StatusServiceUnavailable)
	}
}

// run calls fn and settles the reservation held on id, if store is not nil.
func (h *handler) run(w http.ResponseWriter, r *http.Request, event *Event, store DedupeStore, id string) {
	ctx := r.Context()
	settle := context.WithoutCancel(ctx)
	finished := false
	if store != nil {
		// If fn panics, give the id back so that the retry runs fn again;
		// net/http recovers the panic itself.
		defer func() {
			if !finished {
				_ = store.Release(settle, id)
			}
		}()
	}
	err := h.fn(ctx, event)
	finished = true
	if err != nil {
		if store != nil {
			if rerr := store.Release(settle, id); rerr != nil {
				h.log.ErrorContext(ctx, "webhook: dedupe store failed to release the id; the retry may be taken for a delivery in flight", "webhook_id", id, "error", rerr)
			}
		}
		h.log.ErrorContext(ctx, "webhook: the event handler failed; the service will retry", "webhook_id", id, "event_type", string(event.Type), "error", err)
		http.Error(w, "the event handler failed; retry later", http.StatusInternalServerError)
		return
	}
	if store != nil {
		if cerr := store.Complete(settle, id); cerr != nil {
			// fn has run: acknowledging avoids a certain second run, at the
			// price of a dedupe entry that may be missing.
			h.log.ErrorContext(ctx, "webhook: dedupe store failed to mark the id processed", "webhook_id", id, "error", cerr)
		}
	}
	writeText(w, http.StatusOK, "ok")
}

// refuse answers a delivery that failed verification or decoding.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, status int, err error) {
	h.log.WarnContext(r.Context(), "webhook: delivery refused", "webhook_id", r.Header.Get(HeaderID), "status", status, "error", err)
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
