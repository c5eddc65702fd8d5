package devserver

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
)

// The admin API's JSON shapes of scribetest's records (api/admin.yaml),
// which have no JSON form of their own: each is written member by member
// from the record's fields, and the library encodes it. Durations are
// milliseconds (duration_ms, retry_after_ms, delay_ms); a time that is not
// set is null.

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func attemptJSON(a scribetest.DeliveryAttempt) map[string]any {
	return map[string]any{"event_id": a.EventID, "event_type": a.EventType, "webhook_id": a.WebhookID, "uri": a.URI,
		"attempt": a.Attempt, "time": a.Time, "status_code": a.StatusCode, "response_body": a.ResponseBody, "error": a.Error,
		"duration_ms": ms(a.Duration), "delivered": a.Delivered, "final": a.Final, "permanent": a.Permanent,
		"headers": headersJSON(a)}
}

func pendingJSON(p scribetest.PendingDelivery) map[string]any {
	var next *time.Time
	if !p.NextAttempt.IsZero() {
		next = &p.NextAttempt
	}
	return map[string]any{"event_id": p.EventID, "event_type": p.EventType, "webhook_id": p.WebhookID, "uri": p.URI,
		"attempts": p.Attempts, "last_status_code": p.LastStatusCode, "last_error": p.LastError, "next_attempt": next}
}

func requestJSON(r scribetest.Request) map[string]any {
	return map[string]any{"time": r.Time, "method": r.Method, "path": r.Path, "query": r.Query,
		"idempotency_key": r.IdempotencyKey, "request_id": r.RequestID, "status": r.Status, "code": r.Code,
		"installation": r.Installation, "credential": r.Credential, "duration_ms": ms(r.Duration)}
}

func faultJSON(f scribetest.Fault) map[string]any {
	return map[string]any{"method": f.Method, "path": f.Path, "times": f.Times, "status": f.Status,
		"retry_after_ms": f.RetryAfter.Milliseconds(), "drop": f.Drop, "delay_ms": f.Delay.Milliseconds()}
}

func firedJSON(f scribetest.FiredFault) map[string]any {
	return map[string]any{"fault": faultJSON(f.Fault), "time": f.Time, "method": f.Method, "path": f.Path, "request_id": f.RequestID}
}

// headersJSON is an attempt's headers: those it was sent with and those of
// the answer, each value redacted (redact.Field), as the dashboard shows them.
func headersJSON(a scribetest.DeliveryAttempt) map[string]map[string][]string {
	return map[string]map[string][]string{"request": redactedHeaders(a.RequestHeaders), "response": redactedHeaders(a.ResponseHeaders)}
}

// redactedHeaders is h, each value through redact.Field; never nil.
func redactedHeaders(h http.Header) map[string][]string {
	out := map[string][]string{}
	for name, vs := range h {
		for _, v := range vs {
			out[name] = append(out[name], redact.Field(v, maxHeaderValue))
		}
	}
	return out
}

// maxHeaderValue bounds a header value the dashboard and the admin API show.
const maxHeaderValue = 256

// eventJSON is an event the server emitted, with its payload (redacted)
// and its deliveries' state; attempts are in GET deliveries.
func eventJSON(ev scribetest.EmittedEvent) map[string]any {
	var payload any // null: delivered to no webhook
	if ev.Payload != nil {
		payload = jsontext.Value(redactedJSON(ev.Payload))
	}
	deliveries := []map[string]any{}
	for _, dl := range ev.Deliveries {
		state, _ := deliveryState(dl)
		deliveries = append(deliveries, map[string]any{"webhook_id": dl.WebhookID, "uri": dl.URI, "state": state, "attempts": len(dl.Attempts)})
	}
	return map[string]any{"id": ev.ID, "type": ev.Type, "installation": ev.InstallationUUID, "time": ev.Time,
		"payload": payload, "deliveries": deliveries}
}

// redactedJSON re-encodes a JSON value compact, with every string (member
// names too) through redact.Text: still valid JSON, for the admin API. A
// value that does not parse, which the server never emits, becomes null.
func redactedJSON(v []byte) []byte {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return bytes.TrimSpace(out.Bytes())
		} else if err != nil {
			return []byte("null")
		}
		if tok.Kind() == '"' {
			tok = jsontext.String(redact.Text(tok.String()))
		}
		if err := enc.WriteToken(tok); err != nil {
			return []byte("null")
		}
	}
}

// prettyJSON is a JSON value indented, redacted as text (redact.Text): for
// the dashboard, where each member on a line of its own keeps a secret's
// redaction within its line.
func prettyJSON(v []byte) string {
	pretty := jsontext.Value(bytes.Clone(v))
	if err := pretty.Indent(jsontext.WithIndent("  ")); err != nil {
		return redact.Text(string(v))
	}
	return redact.Text(string(pretty))
}
