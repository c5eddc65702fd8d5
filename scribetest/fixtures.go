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

// Fixtures is what LoadFixtures created, in document order, with the
// credentials (generated ones included). Its secrets print redacted.
type Fixtures struct {
	Users         []scribe.User // every user, developers included
	Developers    []Developer   // the users given a developer_key, with it
	Plugins       []scribe.Plugin
	SecretKeys    []SecretKey
	Installations []scribe.PluginInstallation
	Transcripts   FixtureTranscripts
	Webhooks      []scribe.Webhook
}

// FixtureTranscripts are the transcripts a fixture load created, in
// document order, as they were when loaded. It refers to the server's
// stored encodings, 12 bytes per transcript, and decodes one when asked,
// so a million loaded transcripts are not held twice.
type FixtureTranscripts struct {
	snapshot state.Snapshot // the server's stored encodings at the end of the load
	refs     []state.Ref
}

// Len returns how many transcripts the load created.
func (ft FixtureTranscripts) Len() int { return len(ft.refs) }

// At returns the i-th transcript of the document (0 ≤ i < Len), decoded
// afresh: the value, its metadata map included, is the caller's.
func (ft FixtureTranscripts) At(i int) scribe.Transcript {
	return state.DecodeTranscript(ft.snapshot.Get(ft.refs[i]))
}

// All yields every transcript with its index, in document order, each
// decoded as At does.
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

// DemoFixtures returns the built-in demo fixture document that
// cmd/scribe-server loads by default (docs/server.md). Its secrets are
// public: use it on a local machine only.
func DemoFixtures() io.Reader { return bytes.NewReader(demoJSON) }

// LoadFixtures adds the resources of the fixture document read from r
// (docs/server.md, "Fixtures") and returns them with their credentials,
// generated ones included. The document is read as a stream and checked
// whole first: any error, such as "fixtures: plugins[0].user_id: no user
// with id 9", names the member and leaves the server as it was. Loading
// emits no events.
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
