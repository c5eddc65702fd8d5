package scribetest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// The fixture document of CONTRACT §8. Every member is optional but those a
// reference needs (a plugin's user_id, ...); omitted ids, timestamps and
// secrets are generated.

type fixtureDoc struct {
	Users         []json.RawMessage `json:"users"`
	Plugins       []json.RawMessage `json:"plugins"`
	SecretKeys    []json.RawMessage `json:"secret_keys"`
	Installations []json.RawMessage `json:"installations"`
	Transcripts   []json.RawMessage `json:"transcripts"`
	Webhooks      []json.RawMessage `json:"webhooks"`
}

type fixtureUser struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
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
	CRMIntegrationID *int64    `json:"crm_integration_id"`
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
	DeletedOn *time.Time `json:"deleted_on"`
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
	Users         []scribe.User // every user, developers included
	Developers    []Developer
	Plugins       []scribe.Plugin
	SecretKeys    []SecretKey
	Installations []scribe.PluginInstallation
	Transcripts   []scribe.Transcript
	Webhooks      []scribe.Webhook
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
// checked whole before anything is added: an unknown member, a bad value or
// a dangling reference is an error naming the member, such as
// "fixtures: plugins[0].user_id: no user with id 9", and leaves the server
// as it was. Ids may not clash with resources already on the server.
// Loading emits no events: fixtures are the state the server starts from.
func (s *Server) LoadFixtures(r io.Reader) (Fixtures, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Fixtures{}, fmt.Errorf("fixtures: reading: %w", err)
	}
	var doc fixtureDoc
	if err := strictUnmarshal(data, &doc); err != nil {
		return Fixtures{}, fmt.Errorf("fixtures: %w", err)
	}
	var l fixtureLoad
	if err := l.decode(&doc); err != nil {
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
	users         []fixtureUser
	plugins       []fixturePlugin
	secretKeys    []fixtureSecretKey
	installations []fixtureInstallation
	transcripts   []fixtureTranscript
	webhooks      []fixtureWebhook

	devKeys    []auth.DeveloperKey // per user; zero for a non-developer
	keys       []auth.SecretKey    // per secret key
	signingKey []string            // per webhook
}

func decodeSection[T any](name string, raws []json.RawMessage) ([]T, error) {
	out := make([]T, len(raws))
	for i, raw := range raws {
		if err := strictUnmarshal(raw, &out[i]); err != nil {
			if fe, ok := err.(*fieldError); ok {
				return nil, fixtureError(fmt.Sprintf("%s[%d].%s", name, i, fe.Field), "%s", fe.Reason)
			}
			return nil, fixtureError(fmt.Sprintf("%s[%d]", name, i), "%v", err)
		}
	}
	return out, nil
}

func (l *fixtureLoad) decode(doc *fixtureDoc) error {
	var err error
	if l.users, err = decodeSection[fixtureUser]("users", doc.Users); err != nil {
		return err
	}
	if l.plugins, err = decodeSection[fixturePlugin]("plugins", doc.Plugins); err != nil {
		return err
	}
	if l.secretKeys, err = decodeSection[fixtureSecretKey]("secret_keys", doc.SecretKeys); err != nil {
		return err
	}
	if l.installations, err = decodeSection[fixtureInstallation]("installations", doc.Installations); err != nil {
		return err
	}
	if l.transcripts, err = decodeSection[fixtureTranscript]("transcripts", doc.Transcripts); err != nil {
		return err
	}
	l.webhooks, err = decodeSection[fixtureWebhook]("webhooks", doc.Webhooks)
	return err
}

// idSet checks the explicit ids of one section: positive, unique in the
// document, free on the server. It returns them.
func idSet[T any](name string, ids []int64, existing *collection[T]) (map[int64]bool, error) {
	seen := map[int64]bool{}
	for i, id := range ids {
		path := fmt.Sprintf("%s[%d].id", name, i)
		if err := checkChosenID(id); err != nil {
			return nil, fixtureError(path, "%v", err)
		}
		switch {
		case id == 0:
			continue // generated
		case seen[id]:
			return nil, fixtureError(path, "id %d appears twice", id)
		case existing.taken(id):
			return nil, fixtureError(path, "id %d is already taken on the server", id)
		}
		seen[id] = true
	}
	return seen, nil
}

func ids[T any](items []T, id func(T) int64) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

// check validates the whole document against itself and the store (held
// locked by the caller), without changing anything.
func (l *fixtureLoad) check(st *store) error {
	userIDs, err := idSet("users", ids(l.users, func(u fixtureUser) int64 { return u.ID }), &st.users)
	if err != nil {
		return err
	}
	developers := map[int64]bool{}
	keyHashes := map[[32]byte]bool{}
	l.devKeys = make([]auth.DeveloperKey, len(l.users))
	for i, u := range l.users {
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
	isDeveloper := func(id int64) bool { return developers[id] || (st.users.taken(id) && st.users.rows[id].developer) }

	pluginIDs, err := idSet("plugins", ids(l.plugins, func(p fixturePlugin) int64 { return p.ID }), &st.plugins)
	if err != nil {
		return err
	}
	pluginExists := func(id int64) bool { return pluginIDs[id] || st.plugins.taken(id) }
	for i, p := range l.plugins {
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

	if _, err := idSet("secret_keys", ids(l.secretKeys, func(k fixtureSecretKey) int64 { return k.ID }), &st.secretKeys); err != nil {
		return err
	}
	l.keys = make([]auth.SecretKey, len(l.secretKeys))
	for i, k := range l.secretKeys {
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

	if _, err := idSet("installations", ids(l.installations, func(in fixtureInstallation) int64 { return in.ID }), &st.installs); err != nil {
		return err
	}
	uuids := map[string]bool{}
	type pair struct{ plugin, user int64 }
	active := map[pair]bool{}
	for i, in := range l.installations {
		path := fmt.Sprintf("installations[%d]", i)
		switch {
		case !pluginExists(in.PluginID):
			return fixtureError(path+".plugin_id", "no plugin with id %d", in.PluginID)
		case !userExists(in.UserID):
			return fixtureError(path+".user_id", "no user with id %d", in.UserID)
		}
		if in.UUID != "" {
			_, taken := st.uuids[in.UUID]
			switch {
			case !validUUID(in.UUID):
				return fixtureError(path+".uuid", "%q is not a lower-case RFC 4122 uuid (8-4-4-4-12 hex digits)", in.UUID)
			case taken || uuids[in.UUID]:
				return fixtureError(path+".uuid", "uuid %s appears twice", in.UUID)
			}
			uuids[in.UUID] = true
		}
		if in.DeletedOn == nil {
			k := pair{in.PluginID, in.UserID}
			if _, dup := st.activeInstallationLocked(in.PluginID, in.UserID); dup || active[k] {
				return fixtureError(path, "user %d already has plugin %d installed; set deleted_on on all but one", in.UserID, in.PluginID)
			}
			active[k] = true
		}
	}

	if _, err := idSet("transcripts", ids(l.transcripts, func(t fixtureTranscript) int64 { return t.ID }), &st.transcripts); err != nil {
		return err
	}
	for i, t := range l.transcripts {
		path := fmt.Sprintf("transcripts[%d]", i)
		switch {
		case !userExists(t.UserID):
			return fixtureError(path+".user_id", "no user with id %d", t.UserID)
		case checkChosenID(t.Job.ID) != nil:
			return fixtureError(path+".job.id", "%v", checkChosenID(t.Job.ID))
		case t.Job.Lines < 0:
			return fixtureError(path+".job.lines", "must be 0 or more, got %d", t.Job.Lines)
		case checkChosenID(t.Audio.ID) != nil:
			return fixtureError(path+".audio.id", "%v", checkChosenID(t.Audio.ID))
		case t.Audio.LengthInSeconds < 0:
			return fixtureError(path+".audio.length_in_seconds", "must be 0 or more, got %d", t.Audio.LengthInSeconds)
		}
	}

	if _, err := idSet("webhooks", ids(l.webhooks, func(w fixtureWebhook) int64 { return w.ID }), &st.webhooks); err != nil {
		return err
	}
	l.signingKey = make([]string, len(l.webhooks))
	for i, w := range l.webhooks {
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
		l.signingKey[i] = secret.Reveal()
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
	reserve := func(last *int64, ids []int64) {
		for _, id := range ids {
			*last = max(*last, id)
		}
	}
	reserve(&st.users.last, ids(l.users, func(u fixtureUser) int64 { return u.ID }))
	reserve(&st.plugins.last, ids(l.plugins, func(p fixturePlugin) int64 { return p.ID }))
	reserve(&st.secretKeys.last, ids(l.secretKeys, func(k fixtureSecretKey) int64 { return k.ID }))
	reserve(&st.installs.last, ids(l.installations, func(in fixtureInstallation) int64 { return in.ID }))
	reserve(&st.transcripts.last, ids(l.transcripts, func(t fixtureTranscript) int64 { return t.ID }))
	reserve(&st.webhooks.last, ids(l.webhooks, func(w fixtureWebhook) int64 { return w.ID }))

	var out Fixtures
	fail := func(err error) (Fixtures, error) {
		return Fixtures{}, fmt.Errorf("fixtures: a checked document failed to load (a bug in scribetest): %w", err)
	}
	for i, fu := range l.users {
		key := ""
		if !l.devKeys[i].IsZero() {
			key = l.devKeys[i].Reveal()
		}
		u, err := st.addUserLocked(scribe.User{ID: fu.ID, FirstName: fu.FirstName, LastName: fu.LastName, EmailAddress: fu.EmailAddress}, key)
		if err != nil {
			return fail(err)
		}
		out.Users = append(out.Users, u)
		if key != "" {
			out.Developers = append(out.Developers, Developer{User: u, Key: l.devKeys[i]})
		}
	}
	for _, fp := range l.plugins {
		p, err := st.addPluginLocked(l.plugin(fp))
		if err != nil {
			return fail(err)
		}
		out.Plugins = append(out.Plugins, p)
	}
	for i, fk := range l.secretKeys {
		k, err := st.addSecretKeyLocked(scribe.PluginSecretKey{
			ID: fk.ID, Description: fk.Description, Value: scribe.NewSecret(l.keys[i].Reveal()), PluginID: fk.PluginID,
			CreatedOn: fk.CreatedOn.UTC(), UpdatedOn: fk.UpdatedOn.UTC(),
		})
		if err != nil {
			return fail(err)
		}
		out.SecretKeys = append(out.SecretKeys, SecretKey{PluginSecretKey: k, Key: l.keys[i]})
	}
	for _, fi := range l.installations {
		in, _, err := st.installLocked(scribe.PluginInstallation{
			ID: fi.ID, UUID: fi.UUID, PluginID: fi.PluginID, UserID: fi.UserID,
			CreatedOn: fi.CreatedOn.UTC(), UpdatedOn: fi.UpdatedOn.UTC(), DeletedOn: utcPtr(fi.DeletedOn),
		})
		if err != nil {
			return fail(err)
		}
		out.Installations = append(out.Installations, in)
	}
	for _, ft := range l.transcripts {
		t, _, err := st.addTranscriptLocked(scribe.Transcript{
			ID: ft.ID, Headline: ft.Headline, Text: ft.Text, Type: ft.Type, CreatedOn: ft.CreatedOn.UTC(),
			Metadata: maps.Clone(ft.Metadata), User: scribe.TranscriptUser{ID: ft.UserID}, Job: ft.Job,
			Audio: scribe.TranscriptAudio{ID: ft.Audio.ID, LengthInSeconds: ft.Audio.LengthInSeconds, CreatedOn: ft.Audio.CreatedOn.UTC()},
		})
		if err != nil {
			return fail(err)
		}
		out.Transcripts = append(out.Transcripts, t)
	}
	for i, fw := range l.webhooks {
		w, err := st.addWebhookLocked(scribe.Webhook{
			ID: fw.ID, PluginID: fw.PluginID, URI: fw.URI, SigningSecret: scribe.NewSecret(l.signingKey[i]),
			CreatedOn: fw.CreatedOn.UTC(), UpdatedOn: fw.UpdatedOn.UTC(),
		})
		if err != nil {
			return fail(err)
		}
		out.Webhooks = append(out.Webhooks, w)
	}
	return out, nil
}
