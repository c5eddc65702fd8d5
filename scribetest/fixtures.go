package scribetest

import (
	"bytes"
	_ "embed"
	"io"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/fixture"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Fixtures is what LoadFixtures created, in document order, with the
// credentials (generated ones included). Its secrets print redacted.
type Fixtures struct {
	// Users is every user, developers included.
	Users []scribe.User
	// Developers are the users the document gave a developer_key, each with
	// that key, ready for DeveloperClient.
	Developers []Developer
	// Plugins are the plugins created, with generated ids and timestamps
	// filled in.
	Plugins []scribe.Plugin
	// SecretKeys are the plugin secret keys, each also parsed for package auth
	// (Key); a key whose value the document omitted holds the generated one.
	SecretKeys []SecretKey
	// Installations are the installations created, with their uuids (generated
	// where the document omitted them).
	Installations []scribe.PluginInstallation
	// Transcripts are the transcripts created, with their owners' names
	// filled in from the users, as they were when loaded: each a copy of
	// its own (its metadata included), which a later update or delete on
	// the server does not change (Server.Transcripts reads the current
	// state).
	Transcripts []scribe.Transcript
	// Webhooks are the webhooks registered, with their signing secrets
	// (generated where the document omitted them).
	Webhooks []scribe.Webhook
}

//go:embed demo.json
var demoJSON []byte

// DemoFixtures returns the built-in demo data set, a fixture document with
// known credentials that cmd/scribe-server loads by default. docs/server.md
// lists what it holds. Its secrets are public: use it on a local machine only.
func DemoFixtures() io.Reader { return bytes.NewReader(demoJSON) }

// LoadFixtures adds the resources of the fixture document read from r
// (docs/server.md, "Fixtures") and returns them with their credentials. The
// document is decoded as it is read, into plain structs, then each resource
// is checked, against the server and the resources before it, and added. An
// unknown member, a null where the resource has none, a bad value or a
// dangling reference is an error naming the member, such as "fixtures:
// plugins[0].user_id: no user with id 9", and leaves the server as it was:
// what the document added before is undone. Ids may not clash with resources
// already on the server. Loading emits no events: fixtures are the state the
// server starts from.
func (s *Server) LoadFixtures(r io.Reader) (Fixtures, error) {
	out, err := s.loadFixtures(r)
	for i, t := range out.Transcripts { // the server's own stay the server's
		out.Transcripts[i] = state.CloneTranscript(t)
	}
	return out, err
}

// loadFixtures is LoadFixtures, with transcripts that share their metadata
// with the server's: for a server started with fixtures, which returns
// none.
func (s *Server) loadFixtures(r io.Reader) (Fixtures, error) {
	d, err := fixture.Read(r)
	if err != nil {
		return Fixtures{}, err
	}
	var out Fixtures
	err = s.st.Update(func(tx *state.Tx) (err error) {
		out, err = load(tx, d)
		return err
	})
	if err != nil {
		return Fixtures{}, err
	}
	return out, nil
}
