package scribetest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
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
	// filled in from the users, as they were when loaded.
	Transcripts FixtureTranscripts
	// Webhooks are the webhooks registered, with their signing secrets
	// (generated where the document omitted them).
	Webhooks []scribe.Webhook
}

// FixtureTranscripts are the transcripts a fixture load created, in
// document order, as they were when loaded: a later update or delete on the
// server does not change what At returns; Server.Transcripts reads the
// current state. It shares the values the server stored (which never change
// once stored) rather than holding a copy of a million transcripts, and
// copies one for the caller when asked.
type FixtureTranscripts struct {
	ts []scribe.Transcript // shared with the server, which never changes a stored value in place
}

// Len returns how many transcripts the load created.
func (ft FixtureTranscripts) Len() int { return len(ft.ts) }

// At returns the i-th transcript of the document (0 ≤ i < Len), a copy of
// its own: the value, its metadata map included, is the caller's.
func (ft FixtureTranscripts) At(i int) scribe.Transcript { return state.CloneTranscript(ft.ts[i]) }

// All yields every transcript with its index, in document order, each as At
// returns it.
func (ft FixtureTranscripts) All() iter.Seq2[int, scribe.Transcript] {
	return func(yield func(int, scribe.Transcript) bool) {
		for i := range ft.ts {
			if !yield(i, ft.At(i)) {
				return
			}
		}
	}
}

// String says how many transcripts there are, rather than printing them
// all.
func (ft FixtureTranscripts) String() string {
	return fmt.Sprintf("%d transcripts", len(ft.ts))
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
	var d fixtureDoc
	if err := d.read(r); err != nil {
		return Fixtures{}, err
	}
	var out Fixtures
	err := s.st.Update(func(tx *state.Tx) (err error) {
		out, err = load(tx, &d)
		return err
	})
	if err != nil {
		return Fixtures{}, err
	}
	return out, nil
}

// The members of a fixture document. Ids are pointers, so that an explicit 0
// is refused; where a resource's members are those of a type of package
// scribe, it is inlined, with the members read differently declared beside it.
type (
	fixtureDoc struct {
		Users         []fixtureUser         `json:"users"`
		Plugins       []fixturePlugin       `json:"plugins"`
		SecretKeys    []fixtureSecretKey    `json:"secret_keys"`
		Installations []fixtureInstallation `json:"installations"`
		Transcripts   []fixtureTranscript   `json:"transcripts"`
		Webhooks      []fixtureWebhook      `json:"webhooks"`
	}
	fixtureUser struct {
		ID           *int64  `json:"id" apijson:"nonull"`
		FirstName    string  `json:"first_name"`
		LastName     string  `json:"last_name"`
		EmailAddress *string `json:"email_address" apijson:"nonull"` // omitted: generated from the id
		DeveloperKey *string `json:"developer_key" apijson:"nonull"` // makes the user a developer; "" generates one
	}
	fixturePlugin struct {
		ID            *int64 `json:"id" apijson:"nonull"`
		scribe.Plugin `json:",inline"`
	}
	fixtureSecretKey struct {
		ID                     *int64 `json:"id" apijson:"nonull"`
		Value                  string `json:"value"` // "": generated
		scribe.PluginSecretKey `json:",inline"`
	}
	fixtureInstallation struct {
		ID        *int64     `json:"id" apijson:"nonull"`
		UUID      string     `json:"uuid"`
		PluginID  int64      `json:"plugin_id"`
		UserID    int64      `json:"user_id"`
		CreatedOn time.Time  `json:"created_on"`
		UpdatedOn time.Time  `json:"updated_on"`
		DeletedOn *time.Time `json:"deleted_on"` // null: active
	}
	fixtureTranscript struct {
		ID        *int64                     `json:"id" apijson:"nonull"`
		UserID    int64                      `json:"user_id"`
		Headline  string                     `json:"headline"`
		Text      string                     `json:"text"`
		Type      string                     `json:"type"`
		Metadata  map[string]json.RawMessage `json:"metadata"`
		Job       fixtureJob                 `json:"job"`
		Audio     fixtureAudio               `json:"audio"`
		CreatedOn time.Time                  `json:"created_on"`
	}
	fixtureJob struct {
		ID    *int64 `json:"id" apijson:"nonull"`
		Lines int    `json:"lines"`
	}
	fixtureAudio struct {
		ID                     *int64 `json:"id" apijson:"nonull"`
		scribe.TranscriptAudio `json:",inline"`
	}
	fixtureWebhook struct {
		ID             *int64 `json:"id" apijson:"nonull"`
		SigningSecret  string `json:"signing_secret"` // "": generated
		scribe.Webhook `json:",inline"`
	}
)

// fixtureJSON decodes a document strictly, naming the member refused.
var fixtureJSON = apijson.Strict(apijson.Fields[fixtureDoc](), apijson.Fields[fixtureUser](), apijson.Fields[fixturePlugin](),
	apijson.Fields[scribe.Permissions](), apijson.Fields[fixtureSecretKey](), apijson.Fields[fixtureInstallation](),
	apijson.Fields[fixtureTranscript](), apijson.Fields[fixtureJob](), apijson.Fields[fixtureAudio](), apijson.Fields[fixtureWebhook]())

var bom = []byte("\xef\xbb\xbf")

// read decodes the document from r as it is read.
func (d *fixtureDoc) read(r io.Reader) error {
	src := &errReader{r: r}
	br := bufio.NewReader(src)
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		return errors.New("fixtures: the document begins with a UTF-8 byte order mark, which JSON text must not (RFC 8259 §8.1); save it without one")
	}
	dec := jsontext.NewDecoder(br, fixtureJSON)
	err := d.decode(dec)
	if src.err != nil {
		return fmt.Errorf("fixtures: reading: %w", src.err)
	}
	return err
}

func (d *fixtureDoc) decode(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case jsontext.BeginObject.Kind():
	case 0:
		if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
			return describe(err)
		}
		return errors.New("fixtures: not valid JSON: the document is empty")
	default:
		return errors.New("fixtures: the document must be a JSON object of sections (users, plugins, ...)")
	}
	if err := apijson.UnmarshalDecode(dec, d); err != nil {
		if dec.PeekKind() == 0 { // the document ended, or is malformed, where a value was due
			_, err = dec.ReadToken()
		}
		return describe(err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return errors.New("fixtures: not valid JSON: unexpected data after the document")
	}
	return nil
}

// errReader keeps the first error of the reader itself, which the decoder's
// error does not tell from one of the JSON.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && e.err == nil {
		e.err = err
	}
	return n, err
}

// describe words a decoder's error with the member's path (users[0].id).
func describe(err error) error {
	var e *apijson.Error
	if !errors.As(apijson.Explain(err), &e) {
		return fmt.Errorf("fixtures: not valid JSON: %w", err)
	}
	path := pathOf(e.Pointer)
	switch {
	case e.Reason == "duplicate member name" && !strings.Contains(path, "."):
		return fmt.Errorf("fixtures: %s: appears twice; give each section once", path)
	case e.Reason == "duplicate member name":
		return fmt.Errorf("fixtures: %s: appears twice in its object; give each member once", path)
	case e.Want == "" && e.Missing == "" && e.Reason != "unknown member":
		if path == "" {
			return fmt.Errorf("fixtures: not valid JSON: %s (byte %d)", e.Reason, e.Offset)
		}
		return fmt.Errorf("fixtures: not valid JSON in %s: %s (byte %d)", path, e.Reason, e.Offset)
	}
	return fmt.Errorf("fixtures: %s: %s", path, e.Reason)
}

// pathOf turns /users/0/id into users[0].id.
func pathOf(pointer string) string {
	var b strings.Builder
	for i, seg := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch {
		case seg == "":
		case strings.Trim(seg, "0123456789") == "":
			b.WriteString("[" + seg + "]")
		case i > 0:
			b.WriteString("." + seg)
		default:
			b.WriteString(seg)
		}
	}
	return b.String()
}
