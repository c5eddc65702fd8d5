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
	Users []scribe.User // every user, developers included
	// Developers are the users the document gave a developer_key, each
	// with that key, ready for DeveloperClient.
	Developers []Developer
	// Plugins are the plugins created, with generated ids and timestamps
	// filled in.
	Plugins []scribe.Plugin
	// SecretKeys are the plugin secret keys, each also parsed for package
	// auth (Key); a key whose value the document omitted holds the
	// generated one.
	SecretKeys []SecretKey
	// Installations are the installations created, with their uuids
	// (generated where the document omitted them).
	Installations []scribe.PluginInstallation
	// Transcripts are the transcripts created, with their owners' names
	// filled in from the users. They are read from the server's stored
	// form, not held as a second copy (see FixtureTranscripts).
	Transcripts FixtureTranscripts
	// Webhooks are the webhooks registered, with their signing secrets
	// (generated where the document omitted them).
	Webhooks []scribe.Webhook
}

// FixtureTranscripts are the transcripts a fixture load created, in
// document order, as they were when loaded. It holds no decoded copy: it
// refers to the encodings the server stored (which never change once
// written), 12 bytes per transcript, and decodes a transcript when
// asked. A loader that returned a million decoded transcripts beside the
// server's own copy would more than double the memory of the load
// (docs/server.md, "Fixtures"). A later update or delete on the
// server does not change what At returns; Server.Transcripts reads the
// current state.
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

// String says how many transcripts there are, rather than printing the
// stored bytes they refer to.
func (ft FixtureTranscripts) String() string {
	return fmt.Sprintf("%d transcripts", len(ft.refs))
}

//go:embed demo.json
var demoJSON []byte

// DemoFixtures returns the built-in demo data set, a fixture document with
// known credentials that cmd/scribe-server loads by default. docs/server.md
// lists what it holds. Its secrets are public: use it on a local machine only.
func DemoFixtures() io.Reader { return bytes.NewReader(demoJSON) }

// LoadFixtures adds the resources of the fixture document read from r
// (docs/server.md, "Fixtures") and returns them with their credentials. The document is
// checked whole before anything is added: an unknown member, a null where
// the resource has none, a bad value or a dangling reference is an error
// naming the member, such as "fixtures: plugins[0].user_id: no user with
// id 9", and leaves the server as it was. Ids may not clash with resources
// already on the server. Loading emits no events: fixtures are the state
// the server starts from.
//
// The document is read as a stream, one resource at a time, so a file of a
// million transcripts is never held whole in memory, and a large one is
// garbage-collected as it is added, so that the load's peak stays near what
// the server keeps (docs/server.md, "Fixtures").
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
