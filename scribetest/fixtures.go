package scribetest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"slices"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// The fixture document of CONTRACT §8. Every member is optional but those a
// reference needs (a plugin's user_id, ...); omitted ids, timestamps and
// secrets are generated.

type fixtureUser struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// EmailAddress, when omitted, is generated from the id.
	EmailAddress *string `json:"email_address"`
	// DeveloperKey makes the user a developer; "" asks for a generated key.
	DeveloperKey *string `json:"developer_key"`
}

type fixturePlugin struct {
	ID          int64  `json:"id"`
	UserID      int64  `json:"user_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Permissions struct {
		User       scribe.Permission `json:"user"`
		Transcript scribe.Permission `json:"transcript"`
	} `json:"permissions"`
	Published        bool      `json:"published"`
	Disabled         bool      `json:"disabled"`
	CRMIntegrationID *int64    `json:"crm_integration_id" null:"ok"`
	LogoURI          string    `json:"logo_uri"`
	CreatedOn        time.Time `json:"created_on"`
	UpdatedOn        time.Time `json:"updated_on"`
}

// A fixture's secret key and webhook have exactly the members the service
// answers with (secrets as plain strings), so they share its wire structs.
type fixtureSecretKey = secretKeyJSON

type fixtureInstallation struct {
	ID        int64      `json:"id"`
	UUID      string     `json:"uuid"`
	PluginID  int64      `json:"plugin_id"`
	UserID    int64      `json:"user_id"`
	CreatedOn time.Time  `json:"created_on"`
	UpdatedOn time.Time  `json:"updated_on"`
	DeletedOn *time.Time `json:"deleted_on" null:"ok"`
}

type fixtureTranscript struct {
	ID        int64                      `json:"id"`
	UserID    int64                      `json:"user_id"`
	Headline  string                     `json:"headline"`
	Text      string                     `json:"text"`
	Type      string                     `json:"type"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
	Job       scribe.TranscriptJob       `json:"job"`
	Audio     scribe.TranscriptAudio     `json:"audio"`
	CreatedOn time.Time                  `json:"created_on"`
}

type fixtureWebhook = webhookJSON

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
// written), about 16 bytes per transcript, and decodes a transcript when
// asked. A loader that returned a million decoded transcripts beside the
// server's own copy would more than double the memory of the load
// (docs/performance.md, "Fixtures"). A later update or delete on the
// server does not change what At returns; Server.Transcripts reads the
// current state.
type FixtureTranscripts struct {
	chunks [][]byte // the server's arena chunks at the end of the load
	refs   []jsonRef
}

// Len returns how many transcripts the load created.
func (ft FixtureTranscripts) Len() int { return len(ft.refs) }

// At returns the i-th transcript of the document (0 ≤ i < Len), decoded
// afresh: the value, its metadata map included, is the caller's.
func (ft FixtureTranscripts) At(i int) scribe.Transcript {
	r := ft.refs[i]
	end := r.off + r.n
	return decodeTranscript(ft.chunks[r.chunk][r.off:end:end])
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

// fixtureError names the member of the fixture document that is wrong.
func fixtureError(path, format string, args ...any) error {
	return fmt.Errorf("fixtures: %s: %s", path, fmt.Sprintf(format, args...))
}

// LoadFixtures adds the resources of the fixture document read from r
// (CONTRACT §8) and returns them with their credentials. The document is
// checked whole before anything is added: an unknown member, a null where
// the resource has none, a bad value or a dangling reference is an error
// naming the member, such as "fixtures: plugins[0].user_id: no user with
// id 9", and leaves the server as it was. Ids may not clash with resources
// already on the server. Loading emits no events: fixtures are the state
// the server starts from.
//
// The document is read as a stream, one resource at a time, so a file of a
// million transcripts is never held whole in memory (docs/performance.md).
func (s *Server) LoadFixtures(r io.Reader) (Fixtures, error) {
	var l fixtureLoad
	if err := l.read(r); err != nil {
		return Fixtures{}, err
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if err := l.check(s.st); err != nil {
		return Fixtures{}, err
	}
	return l.apply(s.st)
}

// fixtureLoad is a decoded document on its way into the store.
type fixtureLoad struct {
	users         segments[fixtureUser]
	plugins       segments[fixturePlugin]
	secretKeys    segments[fixtureSecretKey]
	installations segments[fixtureInstallation]
	transcripts   segments[stagedTranscript]
	webhooks      segments[fixtureWebhook]

	// meta holds the encoded metadata of the staged transcripts.
	meta jsonArena
	// scratch is the transcript each element is decoded into, its map
	// reused; metaBuf is where its metadata is encoded.
	scratch fixtureTranscript
	metaBuf []byte

	devKeys    []auth.DeveloperKey // per user; zero for a non-developer
	keys       []auth.SecretKey    // per secret key
	signingKey []webhook.Secret    // per webhook

	// The largest explicit id of each section, found by check: apply
	// reserves them so that generated ids come after every one.
	lastUser, lastPlugin, lastSecretKey, lastInstallation, lastTranscript, lastWebhook int64
}

// sections maps each section of the document to a decoder of its elements.
func (l *fixtureLoad) sections() map[string]sectionFunc {
	return map[string]sectionFunc{
		"users":         sectionDecoder("users", &l.users),
		"plugins":       sectionDecoder("plugins", &l.plugins),
		"secret_keys":   sectionDecoder("secret_keys", &l.secretKeys),
		"installations": sectionDecoder("installations", &l.installations),
		"transcripts":   l.transcriptSection(),
		"webhooks":      sectionDecoder("webhooks", &l.webhooks),
	}
}

// segments is a list that grows by fixed-size segments: appending never
// copies what it holds, so a section of a million resources grows without
// the transient double of a slice's reallocation.
type segments[T any] struct {
	segs [][]T
	n    int
}

const segmentLen = 4096

// next appends a zero element and returns it.
func (l *segments[T]) next() *T {
	if l.n%segmentLen == 0 {
		l.segs = append(l.segs, make([]T, segmentLen))
	}
	e := &l.segs[l.n/segmentLen][l.n%segmentLen]
	l.n++
	return e
}

func (l *segments[T]) len() int { return l.n }

// all yields the elements in order with their index.
func (l *segments[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i := range l.n {
			if !yield(i, l.segs[i/segmentLen][i%segmentLen]) {
				return
			}
		}
	}
}

// drain yields the elements like all, and lets go of each segment once
// its elements are yielded, so that apply's copies replace the decoded
// ones instead of adding to them. The list is empty afterwards.
func (l *segments[T]) drain() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		defer func() { l.segs, l.n = nil, 0 }()
		for i := range l.n {
			seg := l.segs[i/segmentLen]
			if !yield(i, seg[i%segmentLen]) {
				return
			}
			if (i+1)%segmentLen == 0 {
				l.segs[i/segmentLen] = nil
			}
		}
	}
}

// sectionDecoder returns a function that checks and decodes one element of
// section name, appending it to dst: one pass for the strict checks, one
// json.Unmarshal, no copy of the element.
func sectionDecoder[T any](name string, dst *segments[T]) sectionFunc {
	sh := shapeOf(reflect.TypeFor[T]())
	return sectionFunc{sh, func(raw []byte, checked bool) error {
		i := dst.len()
		var err error
		if checked {
			err = decodeChecked(raw, dst.next())
		} else {
			err = checkAndDecode(raw, sh, dst.next())
		}
		if err == nil {
			return nil
		}
		return decodeError(name, i, err)
	}}
}

// decodeError names element i of section name in an error decoding it.
func decodeError(name string, i int, err error) error {
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("fixtures: not valid JSON in %s[%d]: %w", name, i, err)
	}
	return elementError(name, i, err)
}

// stagedTranscript is a decoded transcript waiting to be checked and
// stored: the members of fixtureTranscript with the metadata already
// encoded (in fixtureLoad.meta) rather than held as a map. At a million
// transcripts the maps are most of what a decoded fixtureTranscript
// weighs; this is under half of it.
type stagedTranscript struct {
	ID, UserID           int64
	Headline, Text, Type string
	CreatedOn            time.Time
	Job                  scribe.TranscriptJob
	Audio                scribe.TranscriptAudio
	meta                 jsonRef
}

// transcriptSection decodes the elements of "transcripts" as
// sectionDecoder does, into one reused fixtureTranscript, and stages each.
func (l *fixtureLoad) transcriptSection() sectionFunc {
	const name = "transcripts"
	sh := shapeOf(reflect.TypeFor[fixtureTranscript]())
	return sectionFunc{sh, func(raw []byte, checked bool) error {
		i := l.transcripts.len()
		ft := &l.scratch
		m := ft.Metadata
		clear(m)
		*ft = fixtureTranscript{Metadata: m}
		var err error
		if checked {
			err = decodeChecked(raw, ft)
		} else {
			err = checkAndDecode(raw, sh, ft)
		}
		if err != nil {
			return decodeError(name, i, err)
		}
		meta, err := appendMetadata(l.metaBuf[:0], ft.Metadata)
		if err != nil {
			return fixtureError(fmt.Sprintf("%s[%d].metadata", name, i), "%v", err)
		}
		if cap(meta) <= arenaChunk {
			l.metaBuf = meta[:0]
		}
		*l.transcripts.next() = stagedTranscript{
			ID: ft.ID, UserID: ft.UserID, Headline: ft.Headline, Text: ft.Text, Type: ft.Type,
			CreatedOn: ft.CreatedOn, Job: ft.Job, Audio: ft.Audio, meta: l.meta.put(meta),
		}
		return nil
	}}
}

// sectionFunc decodes the elements of one section. decode's raw is one
// element; checked says sh's strict checks have passed on it already.
type sectionFunc struct {
	sh     *shape
	decode func(raw []byte, checked bool) error
}

// elementError names element i of section name in a decoding error.
func elementError(name string, i int, err error) error {
	if fe, ok := err.(*fieldError); ok {
		return fixtureError(fmt.Sprintf("%s[%d].%s", name, i, fe.Field), "%s", fe.Reason)
	}
	return fixtureError(fmt.Sprintf("%s[%d]", name, i), "%v", err)
}

// read decodes the document from r in one streaming pass: the document's
// own object and arrays are followed here, and each resource is checked and
// decoded by its section's decoder as soon as its bytes are read.
func (l *fixtureLoad) read(r io.Reader) error {
	js := &jsonStream{r: r, buf: make([]byte, 0, 64<<10)}
	err := l.readDoc(js)
	if js.err != nil {
		return fmt.Errorf("fixtures: reading: %w", js.err)
	}
	return err
}

func (l *fixtureLoad) readDoc(js *jsonStream) error {
	sections := l.sections()
	seen := map[string]bool{}
	c, ok := js.peek()
	switch {
	case !ok:
		return errors.New("fixtures: not valid JSON: the document is empty")
	case c != '{':
		return errors.New("fixtures: the document must be a JSON object of sections (users, plugins, ...)")
	}
	js.pos++
	for first := true; ; first = false {
		c, ok = js.peek()
		switch {
		case !ok:
			return errUnexpectedEnd
		case c == '}' && first:
			js.pos++
			return js.end()
		case c != '"':
			return js.unexpected("a section name")
		}
		raw, err := js.value()
		if err != nil {
			return err
		}
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return fmt.Errorf("fixtures: not valid JSON: %w", err)
		}
		sec, known := sections[name]
		switch {
		case !known:
			return fixtureError(name, "unknown member")
		case seen[name]:
			return fixtureError(name, "appears twice; give each section once")
		}
		seen[name] = true
		if c, ok = js.peek(); !ok {
			return errUnexpectedEnd
		} else if c != ':' {
			return js.unexpected("':'")
		}
		js.pos++
		if err := js.array(name, sec); err != nil {
			return err
		}
		c, ok = js.peek()
		switch {
		case !ok:
			return errUnexpectedEnd
		case c == ',':
			js.pos++
		case c == '}':
			js.pos++
			return js.end()
		default:
			return js.unexpected("',' or '}'")
		}
	}
}

var errUnexpectedEnd = errors.New("fixtures: not valid JSON: unexpected end of JSON input")

// jsonStream reads a JSON document through a buffer that grows to hold the
// largest single value, so memory follows the largest resource, not the
// document.
type jsonStream struct {
	r   io.Reader
	buf []byte
	pos int
	eof bool
	err error // a read error other than io.EOF
}

// more reads more bytes, keeping buf[pos:]; false when there are none.
func (js *jsonStream) more() bool {
	if js.eof {
		return false
	}
	n := copy(js.buf, js.buf[js.pos:])
	js.buf, js.pos = js.buf[:n], 0
	if len(js.buf) == cap(js.buf) {
		js.buf = slices.Grow(js.buf, cap(js.buf))
	}
	for {
		m, err := js.r.Read(js.buf[len(js.buf):cap(js.buf)])
		js.buf = js.buf[:len(js.buf)+m]
		if err != nil {
			js.eof = true
			if err != io.EOF {
				js.err = err
			}
			return m > 0
		}
		if m > 0 {
			return true
		}
	}
}

// peek returns the next byte that is not whitespace, without consuming it.
func (js *jsonStream) peek() (byte, bool) {
	for {
		js.pos = skipSpace(js.buf, js.pos)
		if js.pos < len(js.buf) {
			return js.buf[js.pos], true
		}
		if !js.more() {
			return 0, false
		}
	}
}

// value returns the bytes of the value at pos (after peek), valid until the
// next read, and consumes them.
func (js *jsonStream) value() ([]byte, error) {
	for {
		end, err := skipValue(js.buf, js.pos)
		switch {
		case err == nil:
			v := js.buf[js.pos:end]
			js.pos = end
			return v, nil
		case err == errShort && js.more():
			continue
		case err == errShort:
			return nil, errUnexpectedEnd
		}
		return nil, js.unexpected("a value")
	}
}

// element returns the bytes of the element at pos (after peek), valid
// until the next read, walking them with sh's strict checks as it finds
// their end: one pass does both. checked is false when the walk stopped at
// bytes that are not JSON; the element is then delimited by structure
// alone, and decoding it reports the syntax error.
func (js *jsonStream) element(sh *shape) (raw []byte, checked bool, err error) {
	if js.buf[js.pos] == 'n' { // null: check refuses it, naming the element
		raw, err = js.value()
		return raw, false, err
	}
	for {
		end, err := sh.walk(js.buf, js.pos)
		switch {
		case err == nil:
			raw := js.buf[js.pos:end]
			js.pos = end
			return raw, true, nil
		case err == errShort && js.more():
			continue
		case err == errShort:
			return nil, false, errUnexpectedEnd
		case err == errMalformed:
			raw, err := js.value()
			return raw, false, err
		}
		return nil, false, err // a *fieldError
	}
}

// array reads the array of section name, handing each element to sec.
func (js *jsonStream) array(name string, sec sectionFunc) error {
	c, ok := js.peek()
	switch {
	case !ok:
		return errUnexpectedEnd
	case c == 'n':
		return fixtureError(name, "must be an array, not null")
	case c != '[':
		return fixtureError(name, "must be an array")
	}
	js.pos++
	for i := 0; ; i++ {
		if c, ok = js.peek(); !ok {
			return errUnexpectedEnd
		}
		if c == ']' && i == 0 {
			js.pos++
			return nil
		}
		raw, checked, err := js.element(sec.sh)
		if _, ok := err.(*fieldError); ok {
			return elementError(name, i, err)
		}
		if err != nil {
			return err
		}
		if err := sec.decode(raw, checked); err != nil {
			return err
		}
		c, ok = js.peek()
		switch {
		case !ok:
			return errUnexpectedEnd
		case c == ',':
			js.pos++
		case c == ']':
			js.pos++
			return nil
		default:
			return js.unexpected("',' or ']'")
		}
	}
}

// end checks that nothing but whitespace follows the document.
func (js *jsonStream) end() error {
	if _, ok := js.peek(); ok {
		return errors.New("fixtures: not valid JSON: unexpected data after the document")
	}
	return nil
}

func (js *jsonStream) unexpected(want string) error {
	return fmt.Errorf("fixtures: not valid JSON: unexpected %q where %s belongs", js.buf[js.pos], want)
}

// idSet checks the explicit ids of section name, each read from an element
// by idOf: positive, unique in the document, free on the server. It returns
// them and the largest (0 when there is none).
func idSet[T, R any](name string, items *segments[T], idOf func(T) int64, existing *collection[R]) (map[int64]bool, int64, error) {
	seen := map[int64]bool{}
	var last int64
	for i, it := range items.all() {
		id := idOf(it)
		path := func() string { return fmt.Sprintf("%s[%d].id", name, i) }
		if err := checkChosenID(id); err != nil {
			return nil, 0, fixtureError(path(), "%v", err)
		}
		switch {
		case id == 0:
			continue // generated
		case seen[id]:
			return nil, 0, fixtureError(path(), "id %d appears twice", id)
		case existing.taken(id):
			return nil, 0, fixtureError(path(), "id %d is already taken on the server", id)
		}
		seen[id] = true
		last = max(last, id)
	}
	return seen, last, nil
}

// check validates the whole document against itself and the store (held
// locked by the caller), without changing anything.
func (l *fixtureLoad) check(st *store) error {
	var err error
	var userIDs, pluginIDs map[int64]bool
	if userIDs, l.lastUser, err = idSet("users", &l.users, func(u fixtureUser) int64 { return u.ID }, &st.users); err != nil {
		return err
	}
	developers := map[int64]bool{}
	keyHashes := map[[32]byte]bool{}
	l.devKeys = make([]auth.DeveloperKey, l.users.len())
	for i, u := range l.users.all() {
		if u.EmailAddress != nil {
			if err := validateEmail(*u.EmailAddress); err != nil {
				return fixtureError(fmt.Sprintf("users[%d].email_address", i), "%v", err)
			}
		}
		if u.DeveloperKey == nil {
			continue
		}
		path := fmt.Sprintf("users[%d].developer_key", i)
		var k auth.DeveloperKey
		if *u.DeveloperKey == "" {
			if k, err = auth.NewDeveloperKey(); err != nil {
				return err
			}
		} else {
			if k, err = auth.ParseDeveloperKey(*u.DeveloperKey); err != nil {
				return fixtureError(path, "%v", err)
			}
			if isJWT(k.Reveal()) {
				return fixtureError(path, "must not look like a JWT (two dots); begin it with %s", auth.DeveloperKeyPrefix)
			}
		}
		h := hashKey(k.Reveal())
		if _, taken := st.devKeys[h]; taken || keyHashes[h] {
			return fixtureError(path, "this key already belongs to another developer")
		}
		keyHashes[h] = true
		l.devKeys[i] = k
		if u.ID != 0 {
			developers[u.ID] = true
		}
	}
	userExists := func(id int64) bool { return userIDs[id] || st.users.taken(id) }
	isDeveloper := func(id int64) bool { return developers[id] || (st.users.taken(id) && st.users.rows.at(id).developer) }

	if pluginIDs, l.lastPlugin, err = idSet("plugins", &l.plugins, func(p fixturePlugin) int64 { return p.ID }, &st.plugins); err != nil {
		return err
	}
	pluginExists := func(id int64) bool { return pluginIDs[id] || st.plugins.taken(id) }
	for i, p := range l.plugins.all() {
		path := fmt.Sprintf("plugins[%d]", i)
		switch {
		case p.UserID == 0:
			return fixtureError(path+".user_id", "is required: the id of the developer who owns the plugin")
		case !userExists(p.UserID):
			return fixtureError(path+".user_id", "no user with id %d", p.UserID)
		case !isDeveloper(p.UserID):
			return fixtureError(path+".user_id", "user %d is not a developer: give them a developer_key", p.UserID)
		}
		if err := validatePlugin(l.plugin(p)); err != nil {
			fe := err.(*fieldError)
			return fixtureError(path+"."+fe.Field, "%s", fe.Reason)
		}
	}

	if _, l.lastSecretKey, err = idSet("secret_keys", &l.secretKeys, func(k fixtureSecretKey) int64 { return k.ID }, &st.secretKeys); err != nil {
		return err
	}
	l.keys = make([]auth.SecretKey, l.secretKeys.len())
	for i, k := range l.secretKeys.all() {
		path := fmt.Sprintf("secret_keys[%d]", i)
		if !pluginExists(k.PluginID) {
			return fixtureError(path+".plugin_id", "no plugin with id %d", k.PluginID)
		}
		if k.Value == "" {
			if l.keys[i], err = auth.NewSecretKey(); err != nil {
				return err
			}
		} else if l.keys[i], err = auth.ParseSecretKey(k.Value); err != nil {
			return fixtureError(path+".value", "%v", err)
		}
	}

	if _, l.lastInstallation, err = idSet("installations", &l.installations, func(in fixtureInstallation) int64 { return in.ID }, &st.installs); err != nil {
		return err
	}
	uuids := map[string]bool{}
	type pair struct{ plugin, user int64 }
	active := map[pair]bool{}
	for i, in := range l.installations.all() {
		path := func(member string) string { return fmt.Sprintf("installations[%d]%s", i, member) }
		switch {
		case !pluginExists(in.PluginID):
			return fixtureError(path(".plugin_id"), "no plugin with id %d", in.PluginID)
		case !userExists(in.UserID):
			return fixtureError(path(".user_id"), "no user with id %d", in.UserID)
		}
		if in.UUID != "" {
			_, taken := st.uuids[in.UUID]
			switch {
			case !validUUID(in.UUID):
				return fixtureError(path(".uuid"), "%q is not a lower-case RFC 4122 uuid (8-4-4-4-12 hex digits)", in.UUID)
			case taken || uuids[in.UUID]:
				return fixtureError(path(".uuid"), "uuid %s appears twice", in.UUID)
			}
			uuids[in.UUID] = true
		}
		if in.DeletedOn == nil {
			k := pair{in.PluginID, in.UserID}
			if _, dup := st.activeInstallationLocked(in.PluginID, in.UserID); dup || active[k] {
				return fixtureError(path(""), "user %d already has plugin %d installed; set deleted_on on all but one", in.UserID, in.PluginID)
			}
			active[k] = true
		}
	}

	if _, l.lastTranscript, err = idSet("transcripts", &l.transcripts, func(t stagedTranscript) int64 { return t.ID }, &st.transcripts); err != nil {
		return err
	}
	for i, t := range l.transcripts.all() {
		path := func(member string) string { return fmt.Sprintf("transcripts[%d]%s", i, member) }
		switch {
		case !userExists(t.UserID):
			return fixtureError(path(".user_id"), "no user with id %d", t.UserID)
		case checkChosenID(t.Job.ID) != nil:
			return fixtureError(path(".job.id"), "%v", checkChosenID(t.Job.ID))
		case t.Job.Lines < 0:
			return fixtureError(path(".job.lines"), "must be 0 or more, got %d", t.Job.Lines)
		case checkChosenID(t.Audio.ID) != nil:
			return fixtureError(path(".audio.id"), "%v", checkChosenID(t.Audio.ID))
		case t.Audio.LengthInSeconds < 0:
			return fixtureError(path(".audio.length_in_seconds"), "must be 0 or more, got %d", t.Audio.LengthInSeconds)
		}
	}

	if _, l.lastWebhook, err = idSet("webhooks", &l.webhooks, func(w fixtureWebhook) int64 { return w.ID }, &st.webhooks); err != nil {
		return err
	}
	l.signingKey = make([]webhook.Secret, l.webhooks.len())
	for i, w := range l.webhooks.all() {
		path := fmt.Sprintf("webhooks[%d]", i)
		if !pluginExists(w.PluginID) {
			return fixtureError(path+".plugin_id", "no plugin with id %d", w.PluginID)
		}
		if err := validateHTTPURL(w.URI); err != nil {
			return fixtureError(path+".uri", "%v", err)
		}
		var secret webhook.Secret
		if w.SigningSecret == "" {
			if secret, err = webhook.NewSecret(); err != nil {
				return err
			}
		} else if secret, err = webhook.ParseSecret(w.SigningSecret); err != nil {
			return fixtureError(path+".signing_secret", "%v", err)
		}
		l.signingKey[i] = secret
	}
	return nil
}

func (l *fixtureLoad) plugin(p fixturePlugin) scribe.Plugin {
	return scribe.Plugin{
		ID:               p.ID,
		Name:             p.Name,
		Description:      p.Description,
		Permissions:      defaultPermissions(scribe.Permissions{User: p.Permissions.User, Transcript: p.Permissions.Transcript}),
		Published:        p.Published,
		Disabled:         p.Disabled,
		CRMIntegrationID: p.CRMIntegrationID,
		LogoURI:          p.LogoURI,
		UserID:           p.UserID,
		CreatedOn:        p.CreatedOn.UTC(),
		UpdatedOn:        p.UpdatedOn.UTC(),
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// apply adds a checked document to the store (held locked by the caller).
// Explicit ids are reserved first, so generated ones come after them.
func (l *fixtureLoad) apply(st *store) (Fixtures, error) {
	st.users.last = max(st.users.last, l.lastUser)
	st.plugins.last = max(st.plugins.last, l.lastPlugin)
	st.secretKeys.last = max(st.secretKeys.last, l.lastSecretKey)
	st.installs.last = max(st.installs.last, l.lastInstallation)
	st.transcripts.last = max(st.transcripts.last, l.lastTranscript)
	st.webhooks.last = max(st.webhooks.last, l.lastWebhook)

	out := Fixtures{
		Users:         make([]scribe.User, 0, l.users.len()),
		Plugins:       make([]scribe.Plugin, 0, l.plugins.len()),
		SecretKeys:    make([]SecretKey, 0, l.secretKeys.len()),
		Installations: make([]scribe.PluginInstallation, 0, l.installations.len()),
		Webhooks:      make([]scribe.Webhook, 0, l.webhooks.len()),
	}
	fail := func(err error) (Fixtures, error) {
		return Fixtures{}, fmt.Errorf("fixtures: a checked document failed to load (a bug in scribetest): %w", err)
	}
	for i, fu := range l.users.all() {
		key := ""
		if !l.devKeys[i].IsZero() {
			key = l.devKeys[i].Reveal()
		}
		id, email := fu.ID, ""
		if fu.EmailAddress != nil {
			email = *fu.EmailAddress
		} else {
			if id == 0 {
				id = st.users.last + 1 // the id the store would assign
			}
			email = generatedEmail(id)
		}
		u, err := st.addUserLocked(scribe.User{ID: id, FirstName: fu.FirstName, LastName: fu.LastName, EmailAddress: email}, key)
		if err != nil {
			return fail(err)
		}
		out.Users = append(out.Users, u)
		if key != "" {
			out.Developers = append(out.Developers, Developer{User: u, Key: l.devKeys[i]})
		}
	}
	for _, fp := range l.plugins.all() {
		p, err := st.addPluginLocked(l.plugin(fp))
		if err != nil {
			return fail(err)
		}
		out.Plugins = append(out.Plugins, p)
	}
	for i, fk := range l.secretKeys.all() {
		k, err := st.addSecretKeyLocked(scribe.PluginSecretKey{
			ID: fk.ID, Description: fk.Description, Value: l.keys[i], PluginID: fk.PluginID,
			CreatedOn: fk.CreatedOn.UTC(), UpdatedOn: fk.UpdatedOn.UTC(),
		})
		if err != nil {
			return fail(err)
		}
		out.SecretKeys = append(out.SecretKeys, SecretKey{PluginSecretKey: k, Key: l.keys[i]})
	}
	for _, fi := range l.installations.drain() {
		in, _, err := st.installLocked(scribe.PluginInstallation{
			ID: fi.ID, UUID: fi.UUID, PluginID: fi.PluginID, UserID: fi.UserID,
			CreatedOn: fi.CreatedOn.UTC(), UpdatedOn: fi.UpdatedOn.UTC(), DeletedOn: utcPtr(fi.DeletedOn),
		})
		if err != nil {
			return fail(err)
		}
		out.Installations = append(out.Installations, in)
	}
	perOwner := map[int64]int{}
	for _, ft := range l.transcripts.all() {
		perOwner[ft.UserID]++
	}
	st.reserveTranscriptsLocked(l.transcripts.len(), perOwner)
	refs := make([]jsonRef, 0, l.transcripts.len())
	for _, ft := range l.transcripts.drain() {
		// The metadata goes in as the bytes staged for it: no map is
		// built, cloned or kept on the way into the store.
		ref, err := st.insertTranscriptLocked(&scribe.Transcript{
			ID: ft.ID, Headline: ft.Headline, Text: ft.Text, Type: ft.Type, CreatedOn: ft.CreatedOn.UTC(),
			User: scribe.TranscriptUser{ID: ft.UserID}, Job: ft.Job,
			Audio: scribe.TranscriptAudio{ID: ft.Audio.ID, LengthInSeconds: ft.Audio.LengthInSeconds, CreatedOn: ft.Audio.CreatedOn.UTC()},
		}, l.meta.get(ft.meta))
		if err != nil {
			return fail(err)
		}
		refs = append(refs, ref)
	}
	l.meta = jsonArena{}
	if len(refs) > 0 {
		// The chunks as they are now hold every encoding just stored, and
		// their bytes never change (wirecache.go).
		out.Transcripts = FixtureTranscripts{chunks: slices.Clone(st.tjson.chunks), refs: refs}
	}
	for i, fw := range l.webhooks.all() {
		w, err := st.addWebhookLocked(scribe.Webhook{
			ID: fw.ID, PluginID: fw.PluginID, URI: fw.URI, SigningSecret: l.signingKey[i],
			CreatedOn: fw.CreatedOn.UTC(), UpdatedOn: fw.UpdatedOn.UTC(),
		})
		if err != nil {
			return fail(err)
		}
		out.Webhooks = append(out.Webhooks, w)
	}
	return out, nil
}
