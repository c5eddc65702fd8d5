package httpapi

import (
	"bytes"
	"fmt"
	"net/http"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/idempotency"
)

// idempotent runs do once per Idempotency-Key, replaying the first answer for 24
// hours; a 5xx is not kept, so a retry does the work.
func (a *API) idempotent(w http.ResponseWriter, c *call, do func(*call) (reply, *problem)) {
	values := c.r.Header["Idempotency-Key"]
	if len(values) == 0 {
		body, p := do(c)
		write(w, body, p)
		return
	}
	key := values[0]
	switch {
	case len(values) > 1:
		writeProblem(w, invalidParameter("Idempotency-Key: given more than once; send one"))
		return
	case !validKey(key):
		writeProblem(w, invalidParameter(fmt.Sprintf(
			"Idempotency-Key: must be 1 to %d visible ASCII characters (! to ~), got %d bytes", idempotency.MaxKeyLen, len(key))))
		return
	}
	k := idempotency.NewKey(c.caller.Scope, key)
	kept, verdict, ticket := a.cfg.Idem.Begin(k, idempotency.FingerprintOf(c.r.Method, c.r.URL.Path, c.body), c.info.at)
	switch verdict {
	case idempotency.Reused:
		writeProblem(w, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyReused,
			"this Idempotency-Key was used with another request body (or another operation); use a new key for a new operation"))
		return
	case idempotency.InUse:
		writeProblem(w, newProblem(http.StatusConflict, scribe.CodeIdempotencyKeyInUse,
			"the first request with this Idempotency-Key is still running; retry later with the same key"))
		return
	case idempotency.Replay:
		w.Header()["Idempotent-Replayed"] = []string{"true"}
		if p, ok := kept.Value.(*problem); ok {
			writeProblem(w, p)
		} else {
			writeJSON(w, kept.Status, reply{kept.Body})
		}
		return
	}
	var resp idempotency.Response
	defer func() { // a panic in do abandons the key too
		if resp.Status == 0 || resp.Status >= 500 {
			a.cfg.Idem.Abandon(k, ticket)
		} else {
			a.cfg.Idem.Finish(k, ticket, resp)
		}
	}()
	body, p := do(c)
	if p != nil {
		resp = idempotency.Response{Status: p.status, Value: p}
	} else {
		resp = idempotency.Response{Status: http.StatusOK, Body: bytes.Join(body, nil)}
	}
	write(w, body, p)
}

// validKey reports 1 to 255 visible ASCII characters (api/openapi.yaml).
func validKey(k string) bool {
	if k == "" || len(k) > idempotency.MaxKeyLen {
		return false
	}
	for i := range len(k) {
		if k[i] < '!' || k[i] > '~' {
			return false
		}
	}
	return true
}
