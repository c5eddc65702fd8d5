package scribetest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
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
// Each resource's check refuses null for every member but those the
// document may leave null (apijson.Members, Strict).
type (
	// fixtureDoc is the document's sections, each decoded as it is read
	// (decode).
	fixtureDoc struct {
		Users         []fixtureUser
		Plugins       []fixturePlugin
		SecretKeys    []fixtureSecretKey
		Installations []fixtureInstallation
		Transcripts   []fixtureTranscript
		Webhooks      []fixtureWebhook
	}
	fixtureUser struct {
		ID           *int64  `json:"id"`
		FirstName    string  `json:"first_name"`
		LastName     string  `json:"last_name"`
		EmailAddress *string `json:"email_address"`          // omitted: generated from the id
		DeveloperKey *string `json:"developer_key,omitzero"` // makes the user a developer; "" generates one
	}
	fixturePlugin struct {
		ID            *int64 `json:"id"`
		scribe.Plugin `json:",inline"`
	}
	fixtureSecretKey struct {
		ID                     *int64 `json:"id"`
		Value                  string `json:"value"` // "": generated
		scribe.PluginSecretKey `json:",inline"`
	}
	fixtureInstallation struct {
		ID        *int64     `json:"id"`
		UUID      string     `json:"uuid"`
		PluginID  int64      `json:"plugin_id"`
		UserID    int64      `json:"user_id"`
		CreatedOn time.Time  `json:"created_on"`
		UpdatedOn time.Time  `json:"updated_on"`
		DeletedOn *time.Time `json:"deleted_on"` // null: active
	}
	fixtureTranscript struct {
		ID        *int64                     `json:"id"`
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
		ID    *int64 `json:"id"`
		Lines int    `json:"lines"`
	}
	fixtureAudio struct {
		ID                     *int64 `json:"id"`
		scribe.TranscriptAudio `json:",inline"`
	}
	fixtureWebhook struct {
		ID             *int64 `json:"id"`
		SigningSecret  string `json:"signing_secret"` // "": generated
		scribe.Webhook `json:",inline"`
	}
)

func (u *fixtureUser) check(o *apijson.Object) error { return o.Members(u, apijson.Members{}) }

func (p *fixturePlugin) check(o *apijson.Object) error {
	return o.Members(p, apijson.Members{
		Nullable: []string{"crm_integration_id"},
		Nested:   func([]byte) error { return o.Members(&p.Permissions, apijson.Members{}) },
	})
}

func (k *fixtureSecretKey) check(o *apijson.Object) error { return o.Members(k, apijson.Members{}) }

func (in *fixtureInstallation) check(o *apijson.Object) error {
	return o.Members(in, apijson.Members{Nullable: []string{"deleted_on"}})
}

func (t *fixtureTranscript) check(o *apijson.Object) error {
	return o.Members(t, apijson.Members{Nested: func(name []byte) error {
		switch string(name) {
		case "job":
			return o.Members(&t.Job, apijson.Members{})
		case "audio":
			return o.Members(&t.Audio, apijson.Members{})
		}
		return o.Skip() // metadata, free-form
	}})
}

func (w *fixtureWebhook) check(o *apijson.Object) error { return o.Members(w, apijson.Members{}) }

// fixtureJSON decodes a document strictly, naming the member refused.
var fixtureJSON = apijson.Strict()

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

// decode reads the document: an object of sections, each an array of
// resources, each decoded and checked as it is read, so that a document of
// a million transcripts is never held whole.
func (d *fixtureDoc) decode(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case jsontext.KindBeginObject:
	case 0:
		if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
			return describe(err)
		}
		return errors.New("fixtures: not valid JSON: the document is empty")
	default:
		return errors.New("fixtures: the document must be a JSON object of sections (users, plugins, ...)")
	}
	_, err := dec.ReadToken()
	for err == nil && dec.PeekKind() == jsontext.KindString {
		var name jsontext.Token
		if name, err = dec.ReadToken(); err != nil {
			break
		}
		switch name.String() {
		case "users":
			err = readSection(dec, &d.Users)
		case "plugins":
			err = readSection(dec, &d.Plugins)
		case "secret_keys":
			err = readSection(dec, &d.SecretKeys)
		case "installations":
			err = readSection(dec, &d.Installations)
		case "transcripts":
			err = readSection(dec, &d.Transcripts)
		case "webhooks":
			err = readSection(dec, &d.Webhooks)
		default:
			err = &apijson.Error{Pointer: redact.Path(dec.StackPointer().Tokens(), 256), Reason: "unknown member"}
		}
	}
	if err == nil {
		_, err = dec.ReadToken() // the end of the document's object
	}
	if err != nil {
		return describe(err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return errors.New("fixtures: not valid JSON: unexpected data after the document")
	}
	return nil
}

// readSection reads a section of the document, an array of resources,
// into s.
func readSection[T any, P interface {
	*T
	check(*apijson.Object) error
}](dec *jsontext.Decoder, s *[]T) error {
	switch k := dec.PeekKind(); k {
	case jsontext.KindBeginArray:
	case 0: // not JSON
		_, err := dec.ReadToken()
		return err
	default:
		e := &apijson.Error{Pointer: string(dec.StackPointer()), Want: "an array", Reason: "must be an array of the section's resources"}
		if k == jsontext.KindNull {
			e.Got, e.Reason = "null", "must be an array, not null"
		}
		return e
	}
	_, err := dec.ReadToken()
	for err == nil && dec.PeekKind() != jsontext.KindEndArray {
		var v T
		if err = apijson.UnmarshalDecode(dec, &v, P(&v).check); err == nil {
			*s = append(*s, v)
		}
	}
	if err == nil {
		_, err = dec.ReadToken()
	}
	return err
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
