package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
)

// EventType names what happened. New types may appear at any time: an Event of
// a type this package does not know still decodes, with Type holding the name.
type EventType string

// The event types the service sends (docs/contract.md, "Events and webhooks"). A webhook of plugin P
// receives the installation events of P's installations and, where P has
// transcript permission, the transcript events of the users who installed P.
const (
	// EventInstallationCreated is sent when a user installs the plugin; Data is a
	// scribe.PluginInstallation (see Event.Installation).
	EventInstallationCreated EventType = "installation.created"
	// EventInstallationDeleted is sent when a user uninstalls the plugin; Data is the
	// scribe.PluginInstallation with DeletedOn set.
	EventInstallationDeleted EventType = "installation.deleted"
	// EventTranscriptCreated is sent when a transcript is created; Data is a
	// scribe.Transcript (see Event.Transcript).
	EventTranscriptCreated EventType = "transcript.created"
	// EventTranscriptUpdated is sent when a transcript changes; Data is the scribe.Transcript
	// as it is now.
	EventTranscriptUpdated EventType = "transcript.updated"
)

var knownEventTypes = []EventType{
	EventInstallationCreated, EventInstallationDeleted,
	EventTranscriptCreated, EventTranscriptUpdated,
}

// Known reports whether t is one of the event types this version of the
// package knows. An unknown type is not an error: handle what you know and
// acknowledge the rest, so that new types do not fail your deliveries.
func (t EventType) Known() bool { return slices.Contains(knownEventTypes, t) }

// Event is one delivery's body: something that happened to one installation
// of a plugin.
type Event struct {
	// ID is the event id ("evt_..."), the same on every retry; the service
	// sends it as webhook-id too.
	ID string `json:"id"`
	// Type says what happened and what Data holds.
	Type EventType `json:"type"`
	// CreatedOn is when the event happened, not when it was delivered.
	CreatedOn time.Time `json:"created_on"`
	// PluginID is the plugin whose webhook receives the event.
	PluginID int64 `json:"plugin_id"`
	// PluginInstallationUUID names the installation the event concerns; mint
	// an installation JWT for it to call the service on the user's behalf.
	PluginInstallationUUID string `json:"plugin_installation_uuid"`
	// Data is the resource the event is about, as JSON. Installation and
	// Transcript decode it for the known types.
	Data json.RawMessage `json:"data"`
}

// Errors of ParseEvent and of the typed accessors of Event.
var (
	// ErrMalformedEvent means the body is not an event (not a JSON object, or
	// without an id or a type).
	ErrMalformedEvent = errors.New("webhook: malformed event")
	// ErrWrongEventType means a typed accessor was called on an event of another
	// type, such as Transcript on an installation.created event.
	ErrWrongEventType = errors.New("webhook: wrong event type")
)

// ParseEvent decodes a delivery's body. It does not verify it: call
// Verifier.VerifyEvent with the request's headers, or Verifier.Verify first.
// Unknown fields are ignored and an unknown Type is kept; a body that is not a
// JSON object, or that lacks id or type, fails with ErrMalformedEvent.
func ParseEvent(body []byte) (*Event, error) {
	var e Event
	if err := apijson.Unmarshal(body, &e, eventJSON); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	switch {
	case e.ID == "":
		return nil, fmt.Errorf("%w: the id field is missing or empty", ErrMalformedEvent)
	case e.Type == "":
		return nil, fmt.Errorf("%w: the type field is missing or empty", ErrMalformedEvent)
	}
	return &e, nil
}

// VerifyEvent verifies the delivery like Verify, then decodes its body like
// ParseEvent.
func (v *Verifier) VerifyEvent(header http.Header, body []byte) (*Event, error) {
	if err := v.Verify(header, body); err != nil {
		return nil, err
	}
	return ParseEvent(body)
}

// Installation decodes Data of an installation.created or installation.deleted
// event. For other types it fails with ErrWrongEventType.
func (e *Event) Installation() (*scribe.PluginInstallation, error) {
	var inst scribe.PluginInstallation
	if err := e.decode(&inst, "Installation", EventInstallationCreated, EventInstallationDeleted); err != nil {
		return nil, err
	}
	return &inst, nil
}

// Transcript decodes Data of a transcript.created or transcript.updated event.
// For other types it fails with ErrWrongEventType.
func (e *Event) Transcript() (*scribe.Transcript, error) {
	var tr scribe.Transcript
	if err := e.decode(&tr, "Transcript", EventTranscriptCreated, EventTranscriptUpdated); err != nil {
		return nil, err
	}
	return &tr, nil
}

// eventJSON reads the envelope and Data: unknown members ignored (the
// service may add some), names matched exactly, errors that never quote a
// value. ParseEvent checks id and type itself, for its own messages; Data is
// not held to the document's required members as the client's answers are,
// since it comes signed by the service, not from whatever answered a call.
var eventJSON = apijson.Lenient()

// decode unmarshals Data into v if the event is of one of the types.
func (e *Event) decode(v any, accessor string, types ...EventType) error {
	if !slices.Contains(types, e.Type) {
		return fmt.Errorf("%w: event %s is %q; %s() reads %q and %q events only, so switch on Event.Type first",
			ErrWrongEventType, e.ID, e.Type, accessor, types[0], types[1])
	}
	if len(bytes.TrimSpace(e.Data)) == 0 || bytes.Equal(bytes.TrimSpace(e.Data), []byte("null")) {
		return fmt.Errorf("%w: event %s (%s) has no data", ErrMalformedEvent, e.ID, e.Type)
	}
	if err := apijson.Unmarshal(e.Data, v, eventJSON); err != nil {
		return fmt.Errorf("%w: the data of event %s (%s): %w", ErrMalformedEvent, e.ID, e.Type, err)
	}
	return nil
}
