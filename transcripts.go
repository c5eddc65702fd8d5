package scribe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Transcript is text transcribed from a recorded audio file, owned by a user
// of the platform.
type Transcript struct {
	// ID identifies the transcript (wire field id): positive, assigned in
	// increasing order. Pass it to GetTranscript.
	ID int64 `json:"id"`
	// Headline is the transcript's title (headline); "" when it has none.
	Headline string `json:"headline"`
	// Text is the whole transcribed text (text), which can run to
	// megabytes for a long recording; "" when nothing was transcribed.
	Text string `json:"text"`
	// Type is chosen by the platform ("dictation", "meeting", "phone_call", ...);
	// new values may appear at any time.
	Type string `json:"type"`
	// CreatedOn is when the transcript was created (created_on), in UTC.
	CreatedOn time.Time `json:"created_on"`
	// Metadata is free-form (metadata); nil only when the answer lacked it.
	Metadata map[string]json.RawMessage `json:"metadata"`
	// User is the platform user who owns the transcript (user): for a
	// transcript read with an installation token, always the
	// installation's user.
	User TranscriptUser `json:"user"`
	// Job is the transcription job that produced the text (job).
	Job TranscriptJob `json:"job"`
	// Audio is the recording the text was transcribed from (audio).
	Audio TranscriptAudio `json:"audio"`
}

func (t *Transcript) unidentified([]byte) (string, string) { return positiveID(t.ID) }

// TranscriptUser is the owner of a Transcript.
type TranscriptUser struct {
	// ID is the owner's user id (user.id), the same as User.ID from GetMe
	// and PluginInstallation.UserID.
	ID int64 `json:"id"`
	// FirstName is the owner's first name (user.first_name); "" when the
	// user has none.
	FirstName string `json:"first_name"`
	// LastName is the owner's last name (user.last_name); "" when the
	// user has none.
	LastName string `json:"last_name"`
}

// TranscriptJob is the transcription job that produced a Transcript.
type TranscriptJob struct {
	// ID identifies the transcription job (job.id).
	ID int64 `json:"id"`
	// Lines is the number of lines the job transcribed (job.lines).
	Lines int `json:"lines"`
}

// TranscriptAudio is the recording a Transcript was made from.
type TranscriptAudio struct {
	// ID identifies the recording (audio.id).
	ID int64 `json:"id"`
	// LengthInSeconds is the recording's duration in whole seconds
	// (audio.length_in_seconds).
	LengthInSeconds int `json:"length_in_seconds"`
	// CreatedOn is the recording's own timestamp (audio.created_on), in
	// UTC; it can be earlier than the transcript's CreatedOn.
	CreatedOn time.Time `json:"created_on"`
}

// ListTranscriptsParams are the parameters of ListTranscripts.
type ListTranscriptsParams struct {
	// ListParams sets the page size, the id to start after and a cap on
	// the items walked; its zero value walks every transcript, 20 per
	// page.
	ListParams
}

// ListTranscripts lists the transcripts of the installation's user, in
// ascending id order; it needs an installation token. Nothing is sent until
// the Pager is iterated, with ctx. Nil params mean the defaults.
//
// It sends GET /transcripts.
func (c *Client) ListTranscripts(ctx context.Context, params *ListTranscriptsParams, opts ...Option) *Pager[Transcript] {
	var lp ListParams
	if params != nil {
		lp = params.ListParams
	}
	return newPager(ctx, c, newRequest("ListTranscripts", http.MethodGet, "/transcripts"), lp,
		func(t Transcript) int64 { return t.ID }, opts)
}

// GetTranscript fetches one transcript of the installation's user; it needs
// an installation token. A transcript outside the installation's scope is
// ErrNotFound, like one that does not exist.
//
// It sends GET /transcripts/{id}.
func (c *Client) GetTranscript(ctx context.Context, id int64, opts ...Option) (*Transcript, error) {
	if err := checkID("GetTranscript", "id", id); err != nil {
		return nil, err
	}
	var t Transcript
	if _, err := c.do(ctx, newRequest("GetTranscript", http.MethodGet, "/transcripts/{id}", id), &t, opts); err != nil {
		return nil, err
	}
	return &t, nil
}

// checkID refuses an identifier that cannot exist (ids are positive).
func checkID(fn, arg string, id int64) error {
	if id <= 0 {
		return &ArgumentError{Func: fn, Arg: arg, Reason: fmt.Sprintf("is %d; identifiers are positive", id)}
	}
	return nil
}
