package scribe

import (
	"encoding/json"
	"time"
)

// Transcript is text transcribed from a recorded audio file, owned by a user
// of the platform.
type Transcript struct {
	ID       int64  `json:"id"`
	Headline string `json:"headline"`
	Text     string `json:"text"`
	// Type is chosen by the platform ("dictation", "meeting", "phone_call", ...);
	// new values may appear at any time.
	Type      string    `json:"type"`
	CreatedOn time.Time `json:"created_on"`
	// Metadata is free-form; it is empty, never nil, in a decoded response.
	Metadata map[string]json.RawMessage `json:"metadata"`
	User     TranscriptUser             `json:"user"`
	Job      TranscriptJob              `json:"job"`
	Audio    TranscriptAudio            `json:"audio"`
}

// TranscriptUser is the owner of a Transcript.
type TranscriptUser struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// TranscriptJob is the transcription job that produced a Transcript.
type TranscriptJob struct {
	ID    int64 `json:"id"`
	Lines int   `json:"lines"`
}

// TranscriptAudio is the recording a Transcript was made from.
type TranscriptAudio struct {
	ID              int64     `json:"id"`
	LengthInSeconds int       `json:"length_in_seconds"`
	CreatedOn       time.Time `json:"created_on"`
}
