package scribetest

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"iter"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/fixtures"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Fixtures is what LoadFixtures created, with credentials that print redacted.
type Fixtures struct {
	Users         []scribe.User               // every user, developers included
	Developers    []Developer                 // the users given a developer_key, with it
	Plugins       []scribe.Plugin             // with generated ids and timestamps filled in
	SecretKeys    []SecretKey                 // each also parsed for package auth
	Installations []scribe.PluginInstallation // with their (generated) uuids
	Transcripts   FixtureTranscripts          // read from the server's stored form
	Webhooks      []scribe.Webhook            // with their (generated) signing secrets
}

// FixtureTranscripts are the transcripts a load created, as loaded: 12
// bytes each referring to the server's encodings, decoded when asked.
type FixtureTranscripts struct {
	snapshot state.Snapshot // the server's stored encodings at the end of the load
	refs     []state.Ref
}

// Len returns how many transcripts the load created.
func (ft FixtureTranscripts) Len() int { return len(ft.refs) }

// At returns the i-th transcript of the document, decoded afresh.
func (ft FixtureTranscripts) At(i int) scribe.Transcript {
	return state.DecodeTranscript(ft.snapshot.Get(ft.refs[i]))
}

// All yields every transcript with its index, as At decodes it.
func (ft FixtureTranscripts) All() iter.Seq2[int, scribe.Transcript] {
	return func(yield func(int, scribe.Transcript) bool) {
		for i := range ft.refs {
			if !yield(i, ft.At(i)) {
				return
			}
		}
	}
}

// String says how many transcripts there are.
func (ft FixtureTranscripts) String() string {
	return fmt.Sprintf("%d transcripts", len(ft.refs))
}

//go:embed demo.json
var demoJSON []byte

// DemoFixtures returns the demo fixture document cmd/scribe-server loads by
// default (docs/server.md). Its secrets are public: use it locally only.
func DemoFixtures() io.Reader { return bytes.NewReader(demoJSON) }

// LoadFixtures adds the fixture document read from r (docs/server.md,
// "Fixtures") and returns what it created. It is streamed and checked whole
// first: an error names the member, such as "fixtures: plugins[0].user_id:
// no user with id 9", and changes nothing. Loading emits no events.
func (s *Server) LoadFixtures(r io.Reader) (Fixtures, error) {
	res, err := fixtures.Load(r, s.st)
	if err != nil {
		return Fixtures{}, err
	}
	out := Fixtures{Users: res.Users, Plugins: res.Plugins, Installations: res.Installations, Webhooks: res.Webhooks,
		Transcripts: FixtureTranscripts{snapshot: res.Snapshot, refs: res.Transcripts}}
	for _, d := range res.Developers {
		out.Developers = append(out.Developers, Developer(d))
	}
	for _, k := range res.SecretKeys {
		out.SecretKeys = append(out.SecretKeys, SecretKey(k))
	}
	return out, nil
}
