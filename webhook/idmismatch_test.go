package webhook

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// A delivery whose body's id differs from its webhook-id, validly signed,
// is refused with 400 and a reason, and fn does not run. Neither id is
// marked as seen: the real delivery of either event still runs fn, once.
func TestHandlerRefusesIDMismatch(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	h := newHandler(t, handlerVerifier(t), func(_ context.Context, e *Event) error {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, e.ID)
		return nil
	}, WithLogger(nil))

	w := serve(h, delivery(t, "evt_header", eventBody("evt_body", EventTranscriptCreated)))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `the body's id "evt_body" differs from webhook-id "evt_header"`) {
		t.Errorf("mismatched ids: %d %q, want 400 saying the ids differ", w.Code, w.Body.String())
	}
	if len(ran) != 0 {
		t.Fatalf("fn ran for %v on a mismatched delivery", ran)
	}
	for _, id := range []string{"evt_header", "evt_body"} {
		if w := serve(h, delivery(t, id, eventBody(id, EventTranscriptCreated))); w.Code != http.StatusOK || strings.Contains(w.Body.String(), "duplicate") {
			t.Errorf("the real delivery of %s: %d %q, want 200 ok: the mismatch marked it as seen", id, w.Code, w.Body.String())
		}
	}
	if strings.Join(ran, " ") != "evt_header evt_body" {
		t.Errorf("fn ran for %v, want each event once", ran)
	}
}
