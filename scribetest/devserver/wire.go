package devserver

import (
	"time"

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
		"duration_ms": ms(a.Duration), "delivered": a.Delivered, "final": a.Final, "permanent": a.Permanent}
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
