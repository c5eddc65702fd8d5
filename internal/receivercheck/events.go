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

// scene is what one of the check's events is about, as the service would
// send it: one installation of a plugin by a user, and one of that user's
// transcripts. On a Server, each event has a scene of its own, made there;
// otherwise every event names the same scene, realistic and fixed, that
// exists on no server.
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

// SceneUser is the user of a scene, who installs the plugin; a Server's
// NewScene makes one (its id is the server's).
func SceneUser() scribe.User {
	return scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace.hopper@example.com"}
}

// SceneTranscript is the transcript of a scene, recorded a little before
// now; a Server's NewScene makes one for its user (its ids are the
// server's). The tampered-body rule changes its headline by one byte.
func SceneTranscript(now time.Time) scribe.Transcript {
	recorded := now.Add(-20 * time.Minute).UTC().Truncate(time.Second)
	return scribe.Transcript{
		Headline:  headline,
		Type:      "meeting",
		Text:      "Grace: Let's go through the pipeline for the third quarter.\nAlan: We have four deals close to signing.",
		CreatedOn: recorded.Add(3 * time.Minute),
		Metadata:  map[string]json.RawMessage{"language": json.RawMessage(`"en"`), "participants": json.RawMessage(`2`)},
		Job:       scribe.TranscriptJob{Lines: 2},
		Audio:     scribe.TranscriptAudio{LengthInSeconds: 1260, CreatedOn: recorded},
	}
}

// newScene returns the fixed scene, its times set a little before now.
func newScene(now time.Time) scene {
	installed := now.Add(-72 * time.Hour).UTC().Truncate(time.Second)
	u := SceneUser()
	tr := SceneTranscript(now)
	tr.ID, tr.Job.ID, tr.Audio.ID = 90211, 55210, 77331
	tr.User = scribe.TranscriptUser{ID: 1207, FirstName: u.FirstName, LastName: u.LastName}
	return scene{
		inst: scribe.PluginInstallation{
			ID: 381, UUID: "3f2b8c1e-6d4a-4c7e-9a51-2e8f0b7d6c43", PluginID: 4217, UserID: 1207,
			FirstName: u.FirstName, LastName: u.LastName, EmailAddress: u.EmailAddress,
			CreatedOn: installed, UpdatedOn: installed,
		},
		tr: tr,
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
		if inst.DeletedOn == nil { // a scene of a Server is uninstalled there
			inst.DeletedOn, inst.UpdatedOn = &now, now
		}
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
