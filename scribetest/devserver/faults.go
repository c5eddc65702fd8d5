package devserver

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
)

// faultBody is the body of POST /_scribetest/faults: a scribetest.Fault,
// its durations in milliseconds. Every member is optional, as in Fault.
type faultBody struct {
	Method       string `json:"method"`
	Path         string `json:"path"`
	Times        int    `json:"times"`
	Status       int    `json:"status"`
	RetryAfterMS int64  `json:"retry_after_ms"`
	Drop         bool   `json:"drop"`
	DelayMS      int64  `json:"delay_ms"`
}

// members are the JSON members of the Fault fields a FaultError names.
var members = map[string]string{"Method": "method", "Path": "path", "Times": "times", "Status": "status",
	"RetryAfter": "retry_after_ms", "Drop": "drop", "Delay": "delay_ms"}

// maxMS is the longest time.Duration in milliseconds.
const maxMS = int64(math.MaxInt64 / time.Millisecond)

// millis reads a duration in milliseconds, or says why it cannot.
func millis(v int64) (time.Duration, string) {
	if v < 0 || v > maxMS {
		return 0, fmt.Sprintf("must be from 0 to %d milliseconds, got %d", maxMS, v)
	}
	return time.Duration(v) * time.Millisecond, ""
}

// injectFault serves POST /_scribetest/faults: InjectFault, answered 201
// with the fault; a fault the server cannot play is a 400 problem document
// naming the member, and injects nothing.
func (d *devServer) injectFault(w http.ResponseWriter, r *http.Request) {
	var b faultBody
	if err := readBody(w, r, &b); err != nil {
		reason := "the body must be one JSON object of the documented members: " + err.Error()
		e, ok := errors.AsType[*apijson.Error](err)
		if ok && e.Pointer != "" {
			badFault(w, strings.TrimPrefix(e.Pointer, "/"), e.Reason)
		} else {
			badFault(w, "", reason)
		}
		return
	}
	retryAfter, badRetry := millis(b.RetryAfterMS)
	delay, badDelay := millis(b.DelayMS)
	switch {
	case badRetry != "":
		badFault(w, "retry_after_ms", badRetry)
		return
	case badDelay != "":
		badFault(w, "delay_ms", badDelay)
		return
	}
	f := scribetest.Fault{Method: b.Method, Path: b.Path, Times: b.Times, Status: b.Status, RetryAfter: retryAfter, Drop: b.Drop, Delay: delay}
	err := d.s.InjectFault(f)
	fe, bad := errors.AsType[*scribetest.FaultError](err)
	switch {
	case bad && fe.Field == "":
		badFault(w, "", "the fault "+fe.Reason)
	case bad:
		badFault(w, members[fe.Field], fe.Reason)
	case err != nil:
		adminError(w, http.StatusBadRequest, err)
	default:
		writeJSON(w, http.StatusCreated, faultJSON(f))
	}
}

// badFault answers 400 with a problem document (RFC 9457) whose detail and
// member name the member at fault ("" for the fault as a whole).
func badFault(w http.ResponseWriter, member, reason string) {
	detail := reason
	if member != "" {
		detail = member + ": " + reason
	}
	writeBody(w, http.StatusBadRequest, wire.ProblemContentType, map[string]any{"type": "about:blank", "title": "Bad Request",
		"status": http.StatusBadRequest, "code": scribe.CodeValidationFailed, "detail": detail, "member": member})
}

// faults serves GET /_scribetest/faults: the pending faults, each with
// what is left of its times, and the fired ones.
func (d *devServer) faults(_ *http.Request, _ *struct{}) (any, error) {
	pending, fired := []map[string]any{}, []map[string]any{}
	for _, f := range d.s.PendingFaults() {
		pending = append(pending, faultJSON(f))
	}
	for _, f := range d.s.FiredFaults() {
		fired = append(fired, firedJSON(f))
	}
	return map[string]any{"pending": pending, "fired": fired}, nil
}

// clearFaults serves DELETE /_scribetest/faults: ClearFaults, answered as
// GET lists what is left.
func (d *devServer) clearFaults(r *http.Request, b *struct{}) (any, error) {
	d.s.ClearFaults()
	return d.faults(r, b)
}

// rateLimitBody is the body of PUT /_scribetest/rate-limit; limit 0 turns
// rate limiting off.
type rateLimitBody struct {
	Limit    int   `json:"limit"`
	WindowMS int64 `json:"window_ms"`
}

// setRateLimit serves PUT /_scribetest/rate-limit: SetRateLimit.
func (d *devServer) setRateLimit(_ *http.Request, b *rateLimitBody) (any, error) {
	window, bad := millis(b.WindowMS)
	if bad != "" {
		return nil, errors.New("window_ms: " + bad)
	}
	return b, d.s.SetRateLimit(b.Limit, window)
}
