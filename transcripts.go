package scribe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
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

// ListTranscriptsParams are the parameters of ListTranscripts.
type ListTranscriptsParams struct {
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
	return newPager(ctx, c, "ListTranscripts", []string{"transcripts"}, lp,
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
	if _, err := c.do(ctx, request{method: http.MethodGet, segments: []string{"transcripts", strconv.FormatInt(id, 10)}}, &t, opts); err != nil {
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
