package receivercheck

import (
	"crypto/rand"
	"encoding/json"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/webhook"
)

// UnknownEventType is the event type no receiver can know yet: the
// unknown-type rule sends it, as the service will send the types it adds.
const UnknownEventType webhook.EventType = "transcript.summarized"

// scene is what the check's events are about, as the service would send
// them: one installation of a plugin by a user, and one of that user's
// transcripts. Only the event ids are fresh for each check; the data is
// realistic and fixed.
type scene struct {
	inst scribe.PluginInstallation
	tr   scribe.Transcript
}

// tamperedHeadline is the transcript's headline with one byte changed, for
// the tampered-body rule: "Q3" becomes "Q4".
const (
	headline         = "Q3 planning with the sales team"
	tamperedHeadline = "Q4 planning with the sales team"
)

// newScene returns the scene, its times set a little before now.
func newScene(now time.Time) scene {
	installed := now.Add(-72 * time.Hour).UTC().Truncate(time.Second)
	recorded := now.Add(-20 * time.Minute).UTC().Truncate(time.Second)
	return scene{
		inst: scribe.PluginInstallation{
			ID: 381, UUID: "3f2b8c1e-6d4a-4c7e-9a51-2e8f0b7d6c43", PluginID: 4217, UserID: 1207,
			FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace.hopper@example.com",
			CreatedOn: installed, UpdatedOn: installed,
		},
		tr: scribe.Transcript{
			ID: 90211, Headline: headline, Type: "meeting",
			Text:      "Grace: Let's go through the pipeline for the third quarter.\nAlan: We have four deals close to signing.",
			CreatedOn: recorded.Add(3 * time.Minute),
			Metadata:  map[string]json.RawMessage{"language": json.RawMessage(`"en"`), "participants": json.RawMessage(`2`)},
			User:      scribe.TranscriptUser{ID: 1207, FirstName: "Grace", LastName: "Hopper"},
			Job:       scribe.TranscriptJob{ID: 55210, Lines: 2},
			Audio:     scribe.TranscriptAudio{ID: 77331, LengthInSeconds: 1260, CreatedOn: recorded},
		},
	}
}

// event returns the event id of type typ about the scene, created at now;
// its Data is what the service sends for the type.
func (s scene) event(typ webhook.EventType, id string, now time.Time) (webhook.Event, error) {
	now = now.UTC()
	var data any
	switch typ {
	case webhook.EventInstallationCreated:
		data = s.inst
	case webhook.EventInstallationDeleted:
		inst := s.inst
		inst.DeletedOn, inst.UpdatedOn = &now, now
		data = inst
	case webhook.EventTranscriptCreated:
		data = s.tr
	case webhook.EventTranscriptUpdated:
		tr := s.tr
		tr.Text += "\nGrace: Then let's review them on Friday."
		tr.Job.Lines++
		data = tr
	default: // a type added after this receiver was written
		data = struct {
			TranscriptID int64  `json:"transcript_id"`
			Summary      string `json:"summary"`
		}{s.tr.ID, "Four deals are close to signing; review on Friday."}
	}
	raw, err := apijson.Marshal(data)
	if err != nil {
		return webhook.Event{}, err
	}
	return webhook.Event{
		ID: id, Type: typ, CreatedOn: now,
		PluginID: s.inst.PluginID, PluginInstallationUUID: s.inst.UUID, Data: raw,
	}, nil
}

// newEventID returns a fresh event id of the service's form: "evt_" and
// random text, without ".".
func newEventID() string { return "evt_" + rand.Text() }

// encodeEvent encodes e as the service encodes the body of a delivery.
func encodeEvent(e webhook.Event) ([]byte, error) { return apijson.Marshal(e) }
