package scribetest_test

import (
	"context"
	"math"
	"strings"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// maxChosenID is the largest id fixtures and seeding calls may choose
// (docs/server.md, "Identifiers"): 2^53-1.
const maxChosenID = 1<<53 - 1

// TestChosenIDsNearTheTopAreRefused: an id a fixture chooses beyond 2^53-1,
// up to int64's maximum and past it, is an error naming the member, so that
// the ids the server assigns next can never wrap to a negative one.
func TestChosenIDsNearTheTopAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"user id at int64's maximum", `{"users": [{"id": 9223372036854775807}]}`, "fixtures: users[0].id: must be at most 9007199254740991"},
		{"user id just over 2^53-1", `{"users": [{"id": 9007199254740992}]}`, "fixtures: users[0].id: must be at most 9007199254740991"},
		{"user id beyond int64", `{"users": [{"id": 9223372036854775808}]}`, "fixtures: users[0].id: must be an integer"},
		{"plugin id at int64's maximum", `{"users": [{"id": 7, "developer_key": "dk_live_x"}], "plugins": [{"id": 9223372036854775807, "user_id": 7, "name": "P"}]}`, "fixtures: plugins[0].id: must be at most"},
		{"transcript id", `{"users": [{"id": 3}], "transcripts": [{"id": 9223372036854775807, "user_id": 3}]}`, "fixtures: transcripts[0].id: must be at most"},
		{"job id", `{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "job": {"id": 9223372036854775807}}]}`, "fixtures: transcripts[0].job.id: must be at most"},
		{"audio id", `{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "audio": {"id": 9223372036854775807}}]}`, "fixtures: transcripts[0].audio.id: must be at most"},
		{"installation id", `{"installations": [{"id": 9223372036854775807}]}`, "fixtures: installations[0].id: must be at most"},
		{"secret key id", `{"secret_keys": [{"id": 9223372036854775807}]}`, "fixtures: secret_keys[0].id: must be at most"},
		{"webhook id", `{"webhooks": [{"id": 9223372036854775807}]}`, "fixtures: webhooks[0].id: must be at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := scribetest.NewTestServer(t)
			_, err := s.LoadFixtures(strings.NewReader(tt.doc))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one beginning %q", err, tt.want)
			}
			if n := len(s.Users()); n != 0 {
				t.Errorf("a refused document left %d users", n)
			}
		})
	}
}

// TestAssignedIDsAfterTheLargestChosenOne: with every kind's largest
// allowed id taken, the ids the server assigns next (through seeding calls
// and POST) are positive and greater, never wrapped.
func TestAssignedIDsAfterTheLargestChosenOne(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{
		"users": [{"id": 9007199254740991, "developer_key": "dk_live_top"}],
		"plugins": [{"id": 9007199254740991, "user_id": 9007199254740991, "name": "Top"}],
		"transcripts": [{"id": 9007199254740991, "user_id": 9007199254740991, "job": {"id": 9007199254740991}, "audio": {"id": 9007199254740991}}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(scribe.User{EmailAddress: "next@example.com"})
	if err != nil || u.ID != maxChosenID+1 {
		t.Fatalf("CreateUser after the largest chosen id = %d, %v; want %d", u.ID, err, int64(maxChosenID+1))
	}
	tr, err := s.CreateTranscript(u.ID, scribetest.TranscriptParams{})
	if err != nil || tr.ID != maxChosenID+1 || tr.Job.ID != maxChosenID+1 || tr.Audio.ID != maxChosenID+1 {
		t.Fatalf("CreateTranscript = ids %d/%d/%d, %v; want %d each", tr.ID, tr.Job.ID, tr.Audio.ID, err, int64(maxChosenID+1))
	}
	dc, err := s.DeveloperClient(fx.Developers[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dc.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "Next"})
	if err != nil || p.ID != maxChosenID+1 {
		t.Fatalf("POST /plugins after the largest chosen id = %+v, %v; want id %d", p, err, int64(maxChosenID+1))
	}
}

// TestSeedingCallsRefuseIDsNearTheTop: the seeding calls apply the same
// limit as fixtures and name the field.
func TestSeedingCallsRefuseIDsNearTheTop(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	if _, err := s.CreateUser(scribe.User{ID: math.MaxInt64}); err == nil || !strings.Contains(err.Error(), "CreateUser: ID must be at most 9007199254740991") {
		t.Errorf("CreateUser with id MaxInt64: %v", err)
	}
	if _, err := s.CreateDeveloper(scribe.User{ID: maxChosenID + 1}); err == nil || !strings.Contains(err.Error(), "CreateDeveloper: ID must be at most") {
		t.Errorf("CreateDeveloper with id 2^53: %v", err)
	}
	dev, err := s.CreateDeveloper(scribe.User{ID: maxChosenID, EmailAddress: "top@example.com"})
	if err != nil {
		t.Fatalf("CreateDeveloper with id 2^53-1: %v", err)
	}
	if _, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{ID: math.MaxInt64, Name: "P"}); err == nil || !strings.Contains(err.Error(), "CreatePlugin: ID must be at most") {
		t.Errorf("CreatePlugin with id MaxInt64: %v", err)
	}
	if _, err := s.CreateTranscript(dev.User.ID, scribetest.TranscriptParams{Audio: scribe.TranscriptAudio{ID: math.MaxInt64}}); err == nil || !strings.Contains(err.Error(), "CreateTranscript: Audio.ID must be at most") {
		t.Errorf("CreateTranscript with audio id MaxInt64: %v", err)
	}
	if n := len(s.Users()); n != 1 {
		t.Errorf("%d users, want only the one with an allowed id", n)
	}
}
