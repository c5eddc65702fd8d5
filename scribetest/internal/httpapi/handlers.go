package httpapi

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// reply is a success body, encoded; write ends it with a newline.
type reply []byte

// encode encodes a success body with apijson.Marshal.
func encode(v any) (reply, *problem) { return encodeWith(apijson.Marshal, v) }

// encodeWith encodes a success body with marshal, such as
// apijson.MarshalRevealed for one that carries a secret.
func encodeWith(marshal func(any) ([]byte, error), v any) (reply, *problem) {
	b, err := marshal(v)
	if err != nil {
		return nil, internalError("encoding the response failed")
	}
	return b, nil
}

// list answers the page the request asks for of owner's resources, as
// pageOf returns them, in the envelope of every list operation, encoded
// with marshal.
func list[T any](c *call, marshal func(any) ([]byte, error), owner int64, pageOf func(owner, afterID int64, limit int) ([]T, bool, int)) (reply, *problem) {
	limit, after, p := parsePage(c.r)
	if p != nil {
		return nil, p
	}
	data, hasMore, total := pageOf(owner, after, limit)
	return encodeWith(marshal, wire.List[T]{HasMore: hasMore, TotalCount: total, Data: data})
}

func permissionDenied(field string) *problem {
	return newProblem(http.StatusForbidden, scribe.CodePermissionDenied,
		fmt.Sprintf("the plugin's permissions.%s is \"none\"; the developer must ask for \"read\"", field))
}

// ---- installation JWT operations

func (a *API) listTranscripts(c *call) (reply, *problem) {
	return list(c, apijson.Marshal, c.caller.Installation.UserID, a.cfg.State.TranscriptPage)
}

func (a *API) getTranscript(c *call) (reply, *problem) {
	id, p := pathID(c)
	if p != nil {
		return nil, p
	}
	t, ok := a.cfg.State.Transcript(c.caller.Installation.UserID, id)
	if !ok {
		return nil, notFound(fmt.Sprintf("there is no transcript %d", id))
	}
	return encode(t)
}

func (a *API) getMe(c *call) (reply, *problem) {
	u, ok := a.cfg.State.User(c.caller.Installation.UserID)
	if !ok { // a user is deleted with their installations, whose JWTs fail first; kept for safety
		return nil, notFound("the installation's user no longer exists")
	}
	return encode(u)
}

// ---- developer key operations

// ofPlugin runs handle with the caller's plugin the path names; another's
// is a 404.
func (a *API) ofPlugin(handle func(c *call, pl scribe.Plugin) (reply, *problem)) func(c *call) (reply, *problem) {
	return func(c *call) (reply, *problem) {
		id, p := pathID(c)
		if p != nil {
			return nil, p
		}
		pl, ok := a.cfg.State.Plugin(id)
		if !ok || pl.UserID != c.caller.Developer.ID {
			return nil, notFound(fmt.Sprintf("there is no plugin %d", id))
		}
		return handle(c, pl)
	}
}

func (a *API) listPlugins(c *call) (reply, *problem) {
	return list(c, apijson.Marshal, c.caller.Developer.ID, a.cfg.State.PagePlugins)
}

func (a *API) getPlugin(_ *call, pl scribe.Plugin) (reply, *problem) { return encode(pl) }

// requestJSON decodes request bodies strictly (decodeBody).
var requestJSON = apijson.Strict()

func (a *API) createPlugin(c *call) (reply, *problem) {
	// A permission level omitted stays "none"; one given as "" is refused
	// (ValidatePlugin). Unlike the JSON library, POST /plugins requires a
	// name, and lets only crm_integration_id be null.
	b := scribe.CreatePluginParams{Permissions: scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionNone}}
	if p := decodeBody(c.body, &b, func(o *apijson.Object) error {
		return o.Members(&b, apijson.Members{Required: []string{"name"}, Nullable: []string{"crm_integration_id"},
			Nested: func([]byte) error { return o.Members(&b.Permissions, apijson.Members{}) }})
	}); p != nil {
		return nil, p
	}
	pl := scribe.Plugin{
		Name: b.Name, Description: b.Description, Permissions: b.Permissions, LogoURI: b.LogoURI,
		CRMIntegrationID: b.CRMIntegrationID, UserID: c.caller.Developer.ID, CreatedOn: c.info.at.UTC().Truncate(time.Second),
	}
	if err := state.ValidatePlugin(pl); err != nil {
		return nil, validationFailed(err.Error())
	}
	created, err := state.Write(a.cfg.State, func(tx *state.Tx) (scribe.Plugin, error) { return tx.AddPlugin(pl) })
	if err != nil { // the developer was authenticated a moment ago
		return nil, internalError("creating the plugin failed")
	}
	return encode(created)
}

func (a *API) createSecretKey(c *call, pl scribe.Plugin) (reply, *problem) {
	var b scribe.CreatePluginSecretKeyParams
	if p := decodeBody(c.body, &b, func(o *apijson.Object) error { return o.Members(&b, apijson.Members{}) }); p != nil {
		return nil, p
	}
	if n := utf8.RuneCountInString(b.Description); n > state.MaxDescription {
		return nil, validationFailed(fmt.Sprintf("description: must be at most %d characters, got %d", state.MaxDescription, n))
	}
	k, err := NewSecretKey(a.cfg.State, pl.ID, b.Description)
	if err != nil {
		return nil, internalError("creating the secret key failed")
	}
	return encodeWith(apijson.MarshalRevealed, k)
}

// NewSecretKey creates a fresh ask_live_ key for plugin.
func NewSecretKey(st *state.Store, plugin int64, description string) (scribe.PluginSecretKey, error) {
	key, err := keygen.SecretKey()
	if err != nil {
		return scribe.PluginSecretKey{}, err
	}
	return state.Write(st, func(tx *state.Tx) (scribe.PluginSecretKey, error) {
		return tx.AddSecretKey(scribe.PluginSecretKey{PluginID: plugin, Description: description, Value: key})
	})
}

func (a *API) listInstallations(c *call, pl scribe.Plugin) (reply, *problem) {
	return list(c, apijson.Marshal, pl.ID, a.cfg.State.PageInstallations)
}

func (a *API) listWebhooks(c *call, pl scribe.Plugin) (reply, *problem) {
	return list(c, apijson.MarshalRevealed, pl.ID, a.cfg.State.PageWebhooks)
}
