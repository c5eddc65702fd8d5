package webhook

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	scribe "github.com/scribehq/scribe-go"
)

const installationEventBody = `{"id":"evt_1","type":"installation.created","created_on":"2026-11-21T09:30:00Z","plugin_id":100,
"plugin_installation_uuid":"0b6d2f7e-4a6f-4c1e-9a4c-5f1f0c1d2e3f","future_field":true,
"data":{"id":1,"uuid":"0b6d2f7e-4a6f-4c1e-9a4c-5f1f0c1d2e3f","plugin_id":100,"user_id":8,"first_name":"Grace",
"last_name":"Hopper","email_address":"grace@example.com","created_on":"2026-11-21T09:30:00Z",
"updated_on":"2026-11-21T09:30:00+00:00","deleted_on":null}}`

const transcriptEventBody = `{"id":"evt_2","type":"transcript.updated","created_on":"2026-11-21T10:00:00Z","plugin_id":100,
"plugin_installation_uuid":"0b6d2f7e-4a6f-4c1e-9a4c-5f1f0c1d2e3f",
"data":{"id":1,"headline":"Standup","text":"hello","type":"meeting","created_on":"2026-11-21T09:00:00Z",
"metadata":{"crm":{"deal":42}},"user":{"id":8,"first_name":"Grace","last_name":"Hopper"},
"job":{"id":1,"lines":3},"audio":{"id":1,"length_in_seconds":42,"created_on":"2026-11-21T08:59:00Z"}}}`

// An installation event decodes with its envelope and, through Installation,
// its typed data; unknown fields are ignored.
func TestParseEventInstallation(t *testing.T) {
	t.Parallel()
	e, err := ParseEvent([]byte(installationEventBody))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	if e.ID != "evt_1" || e.Type != EventInstallationCreated || !e.CreatedOn.Equal(at) || e.PluginID != 100 ||
		e.PluginInstallationUUID != "0b6d2f7e-4a6f-4c1e-9a4c-5f1f0c1d2e3f" || !e.Type.Known() {
		t.Errorf("envelope = %+v", e)
	}
	inst, err := e.Installation()
	if err != nil {
		t.Fatal(err)
	}
	want := &scribe.PluginInstallation{ID: 1, UUID: "0b6d2f7e-4a6f-4c1e-9a4c-5f1f0c1d2e3f", PluginID: 100, UserID: 8,
		FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com", CreatedOn: at, UpdatedOn: at}
	if diff := cmp.Diff(want, inst, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Installation (-want +got):\n%s", diff)
	}
}

// A transcript event decodes through Transcript.
func TestParseEventTranscript(t *testing.T) {
	t.Parallel()
	e, err := ParseEvent([]byte(transcriptEventBody))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Transcript()
	if err != nil {
		t.Fatal(err)
	}
	want := &scribe.Transcript{ID: 1, Headline: "Standup", Text: "hello", Type: "meeting",
		CreatedOn: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Metadata:  map[string]json.RawMessage{"crm": json.RawMessage(`{"deal":42}`)},
		User:      scribe.TranscriptUser{ID: 8, FirstName: "Grace", LastName: "Hopper"},
		Job:       scribe.TranscriptJob{ID: 1, Lines: 3},
		Audio:     scribe.TranscriptAudio{ID: 1, LengthInSeconds: 42, CreatedOn: time.Date(2026, 11, 21, 8, 59, 0, 0, time.UTC)}}
	if diff := cmp.Diff(want, tr); diff != "" {
		t.Errorf("Transcript (-want +got):\n%s", diff)
	}
}

// Each typed accessor accepts exactly its two event types and refuses the
// others with ErrWrongEventType.
func TestEventAccessorsMatchType(t *testing.T) {
	t.Parallel()
	data := json.RawMessage(`{"id":1}`)
	for _, typ := range []EventType{EventInstallationCreated, EventInstallationDeleted, EventTranscriptCreated, EventTranscriptUpdated, "plugin.disabled"} {
		e := &Event{ID: "evt_1", Type: typ, Data: data}
		_, instErr := e.Installation()
		_, trErr := e.Transcript()
		wantInst := typ == EventInstallationCreated || typ == EventInstallationDeleted
		wantTr := typ == EventTranscriptCreated || typ == EventTranscriptUpdated
		if (instErr == nil) != wantInst || (!wantInst && !errors.Is(instErr, ErrWrongEventType)) {
			t.Errorf("%s: Installation() error = %v", typ, instErr)
		}
		if (trErr == nil) != wantTr || (!wantTr && !errors.Is(trErr, ErrWrongEventType)) {
			t.Errorf("%s: Transcript() error = %v", typ, trErr)
		}
	}
}

// An event of a type this package does not know decodes, keeps its type name
// and data, and says it is not Known: nothing is dropped.
func TestParseEventUnknownType(t *testing.T) {
	t.Parallel()
	e, err := ParseEvent([]byte(`{"id":"evt_9","type":"plugin.disabled","created_on":"2026-11-21T09:30:00Z","plugin_id":100,"plugin_installation_uuid":"u","data":{"reason":"abuse"}}`))
	if err != nil {
		t.Fatalf("ParseEvent of an unknown type: %v", err)
	}
	if e.Type != "plugin.disabled" || e.Type.Known() || string(e.Data) != `{"reason":"abuse"}` {
		t.Errorf("event = %+v, Known %v", e, e.Type.Known())
	}
}

// A body that is not an event fails with ErrMalformedEvent; so does typed
// data of the wrong shape.
func TestParseEventMalformed(t *testing.T) {
	t.Parallel()
	for _, body := range []string{``, `null`, `[]`, `"evt"`, `{"id":"evt_1"}`, `{"type":"installation.created"}`,
		`{"id":1,"type":"installation.created"}`, `{"id":"evt_1","type":"x","created_on":"yesterday"}`, `{"id":"evt_1","type":"x"`} {
		if e, err := ParseEvent([]byte(body)); !errors.Is(err, ErrMalformedEvent) {
			t.Errorf("ParseEvent(%q) = %+v, %v; want ErrMalformedEvent", body, e, err)
		}
	}
	for _, data := range []string{``, `null`, `[1]`, `{"id":"one"}`} {
		e := &Event{ID: "evt_1", Type: EventTranscriptCreated, Data: json.RawMessage(data)}
		if _, err := e.Transcript(); !errors.Is(err, ErrMalformedEvent) {
			t.Errorf("Transcript() of data %q = %v; want ErrMalformedEvent", data, err)
		}
	}
}

// VerifyEvent verifies before it decodes: a forged event is never returned.
func TestVerifyEvent(t *testing.T) {
	t.Parallel()
	sec := mustSecret(t, vectorSecret)
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	v, err := NewVerifier(sec, WithClock(fixedClock(now)))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(installationEventBody)
	e, err := v.VerifyEvent(SignHeaders(sec, "evt_1", now, body), body)
	if err != nil || e.ID != "evt_1" {
		t.Fatalf("VerifyEvent = %+v, %v", e, err)
	}
	forged := []byte(transcriptEventBody)
	if e, err := v.VerifyEvent(SignHeaders(sec, "evt_1", now, body), forged); !errors.Is(err, ErrNoMatchingSignature) || e != nil {
		t.Errorf("VerifyEvent of a forged body = %+v, %v", e, err)
	}
	if _, err := v.VerifyEvent(SignHeaders(sec, "evt_1", now, []byte("[]")), []byte("[]")); !errors.Is(err, ErrMalformedEvent) {
		t.Errorf("VerifyEvent of a signed non-event = %v; want ErrMalformedEvent", err)
	}
	if _, err := v.VerifyEvent(http.Header{}, body); !errors.Is(err, ErrMissingHeader) {
		t.Errorf("VerifyEvent without headers = %v", err)
	}
}
