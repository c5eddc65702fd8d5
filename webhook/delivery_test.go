package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type hookKey struct{}

// TestDeliveryHookSeesEveryOutcome protects WithDeliveryHook: the hook is
// called once per request, the function runs with the context the hook
// returned, and the end function learns the outcome, its reason, the status
// answered and the event's id, type and installation.
func TestDeliveryHookSeesEveryOutcome(t *testing.T) {
	var got []Delivery
	var fnCtx []any
	hook := func(ctx context.Context, r *http.Request) (context.Context, func(Delivery)) {
		return context.WithValue(ctx, hookKey{}, "from the hook"), func(d Delivery) { got = append(got, d) }
	}
	fn := func(ctx context.Context, e *Event) error {
		fnCtx = append(fnCtx, ctx.Value(hookKey{}))
		switch e.Type {
		case EventTranscriptUpdated:
			return errors.New("boom")
		case EventInstallationDeleted:
			return Permanent(errors.New("never"))
		}
		return nil
	}
	h := newHandler(t, handlerVerifier(t), fn, WithLogger(nil), WithDeliveryHook(hook))

	serve(h, delivery(t, "msg_1", eventBody("msg_1", EventTranscriptCreated)))
	serve(h, delivery(t, "msg_1", eventBody("msg_1", EventTranscriptCreated)))
	serve(h, delivery(t, "msg_2", eventBody("msg_2", EventTranscriptUpdated)))
	serve(h, delivery(t, "msg_3", eventBody("msg_3", EventInstallationDeleted)))
	forged := delivery(t, "msg_4", eventBody("msg_4", EventTranscriptCreated))
	forged.Header.Set(HeaderSignature, "v1,"+strings.Repeat("A", 43)+"=")
	serve(h, forged)
	serve(h, httptest.NewRequest(http.MethodGet, "/hook", nil))

	want := []Delivery{
		{ID: "msg_1", Type: EventTranscriptCreated, PluginInstallationUUID: "u-1", Outcome: OutcomeProcessed, Status: 200},
		{ID: "msg_1", Type: EventTranscriptCreated, PluginInstallationUUID: "u-1", Outcome: OutcomeDuplicate, Status: 200},
		{ID: "msg_2", Type: EventTranscriptUpdated, PluginInstallationUUID: "u-1", Outcome: OutcomeFailed, Reason: ReasonHandler, Status: 500},
		{ID: "msg_3", Type: EventInstallationDeleted, PluginInstallationUUID: "u-1", Outcome: OutcomePermanent, Reason: ReasonHandler, Status: StatusPermanentFailure},
		{ID: "msg_4", Outcome: OutcomeRefused, Reason: ReasonSignature, Status: 401},
		{Outcome: OutcomeRefused, Reason: ReasonMalformed, Status: 405},
	}
	if len(got) != len(want) {
		t.Fatalf("hook saw %d deliveries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("delivery %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for i, v := range fnCtx {
		if v != "from the hook" {
			t.Errorf("call %d of the function: context value %v, want the hook's", i, v)
		}
	}
	if len(fnCtx) != 3 {
		t.Errorf("the function ran %d times, want 3", len(fnCtx))
	}
	if _, err := NewHandler(handlerVerifier(t), fn, WithDeliveryHook(nil)); err == nil {
		t.Error("NewHandler took a nil hook")
	}
}

// inFlightStore is a DedupeStore that says every id is being processed.
type inFlightStore struct{ failingStore }

func (inFlightStore) Reserve(context.Context, string) (Reservation, Claim, error) {
	return InFlight, Claim{}, nil
}

// TestDeliveryHookStoreOutcomes protects the outcomes the DedupeStore
// decides: in_flight (409) when another delivery holds the id, and failed
// with reason store (503) when the store fails; the function runs for
// neither, and a panic is failed with reason panic.
func TestDeliveryHookStoreOutcomes(t *testing.T) {
	var got []Delivery
	hook := func(ctx context.Context, _ *http.Request) (context.Context, func(Delivery)) {
		return ctx, func(d Delivery) { got = append(got, d) }
	}
	ran := 0
	fn := func(context.Context, *Event) error { ran++; return nil }
	body := eventBody("msg_1", EventTranscriptCreated)
	serve(newHandler(t, handlerVerifier(t), fn, WithLogger(nil), WithDeliveryHook(hook), WithDedupeStore(inFlightStore{})), delivery(t, "msg_1", body))
	serve(newHandler(t, handlerVerifier(t), fn, WithLogger(nil), WithDeliveryHook(hook), WithDedupeStore(failingStore{reserveErr: errors.New("down")})), delivery(t, "msg_1", body))
	serve(newHandler(t, handlerVerifier(t), func(context.Context, *Event) error { panic("boom") }, WithLogger(nil), WithDeliveryHook(hook)), delivery(t, "msg_1", body))
	want := []Delivery{
		{ID: "msg_1", Type: EventTranscriptCreated, PluginInstallationUUID: "u-1", Outcome: OutcomeInFlight, Status: 409},
		{ID: "msg_1", Type: EventTranscriptCreated, PluginInstallationUUID: "u-1", Outcome: OutcomeFailed, Reason: ReasonStore, Status: 503},
		{ID: "msg_1", Type: EventTranscriptCreated, PluginInstallationUUID: "u-1", Outcome: OutcomeFailed, Reason: ReasonPanic, Status: 500},
	}
	if len(got) != len(want) {
		t.Fatalf("hook saw %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("delivery %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if ran != 0 {
		t.Errorf("the function ran %d times, want 0", ran)
	}
}
