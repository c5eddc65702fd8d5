package scribetest

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/wire"
)

// The wire forms of the resources that carry a secret: auth.SecretKey and
// webhook.Secret marshal redacted by design, and the service must send the
// material.

type secretKeyJSON struct {
	ID          int64     `json:"id"`
	Description string    `json:"description"`
	Value       string    `json:"value"`
	PluginID    int64     `json:"plugin_id"`
	CreatedOn   time.Time `json:"created_on"`
	UpdatedOn   time.Time `json:"updated_on"`
}

func secretKeyWire(k scribe.PluginSecretKey) secretKeyJSON {
	return secretKeyJSON{k.ID, k.Description, k.Value.Reveal(), k.PluginID, k.CreatedOn, k.UpdatedOn}
}

type webhookJSON struct {
	ID            int64     `json:"id"`
	PluginID      int64     `json:"plugin_id"`
	URI           string    `json:"uri"`
	SigningSecret string    `json:"signing_secret"`
	CreatedOn     time.Time `json:"created_on"`
	UpdatedOn     time.Time `json:"updated_on"`
}

func webhookWire(w scribe.Webhook) webhookJSON {
	return webhookJSON{w.ID, w.PluginID, w.URI, w.SigningSecret.Reveal(), w.CreatedOn, w.UpdatedOn}
}

func list[T any](data []T, hasMore bool, total int) wire.List[T] {
	if data == nil {
		data = []T{}
	}
	return wire.List[T]{HasMore: hasMore, TotalCount: total, Data: data}
}

func permissionDenied(field string) *problem {
	return newProblem(http.StatusForbidden, scribe.CodePermissionDenied,
		fmt.Sprintf("the plugin's permissions.%s is \"none\"; the developer must ask for \"read\"", field))
}

// ---- installation JWT operations

func (s *Server) listTranscripts(c *call) result {
	if c.caller.plugin.Permissions.Transcript != scribe.PermissionRead {
		return fail(permissionDenied("transcript"))
	}
	pp, p := parsePage(c.r)
	if p != nil {
		return fail(p)
	}
	buf := getBuf()
	*buf = s.st.appendTranscriptPage(*buf, c.caller.installation.UserID, pp.afterID, pp.limit)
	return okEncoded(buf)
}

func (s *Server) getTranscript(c *call) result {
	if c.caller.plugin.Permissions.Transcript != scribe.PermissionRead {
		return fail(permissionDenied("transcript"))
	}
	id, p := pathID(c)
	if p != nil {
		return fail(p)
	}
	buf := getBuf()
	body, found := s.st.appendTranscript(*buf, c.caller.installation.UserID, id)
	if !found {
		putBuf(buf)
		return fail(notFound(fmt.Sprintf("there is no transcript %d", id)))
	}
	*buf = body
	return okEncoded(buf)
}

func (s *Server) getMe(c *call) result {
	if c.caller.plugin.Permissions.User != scribe.PermissionRead {
		return fail(permissionDenied("user"))
	}
	u, found := s.st.user(c.caller.installation.UserID)
	if !found { // users are never deleted; kept for safety
		return fail(notFound("the installation's user no longer exists"))
	}
	return ok(u)
}

// ---- developer key operations

// ownPlugin returns the caller's plugin named by the path, or 404 exactly as
// if another developer's plugin did not exist.
func (s *Server) ownPlugin(c *call) (scribe.Plugin, *problem) {
	id, p := pathID(c)
	if p != nil {
		return scribe.Plugin{}, p
	}
	pl, found := s.st.plugin(id)
	if !found || pl.UserID != c.caller.developer.ID {
		return scribe.Plugin{}, notFound(fmt.Sprintf("there is no plugin %d", id))
	}
	return pl, nil
}

func (s *Server) listPlugins(c *call) result {
	pp, p := parsePage(c.r)
	if p != nil {
		return fail(p)
	}
	return ok(list(s.st.pagePlugins(c.caller.developer.ID, pp.afterID, pp.limit)))
}

func (s *Server) getPlugin(c *call) result {
	pl, p := s.ownPlugin(c)
	if p != nil {
		return fail(p)
	}
	return okPlugin(&pl)
}

// createPluginBody is the body of POST /plugins. Pointers tell an omitted
// member from an empty one; null is refused (400) except where tagged
// `null:"ok"` (strict.go).
type createPluginBody struct {
	Name        *string `json:"name"`
	Description string  `json:"description"`
	Permissions *struct {
		User       *scribe.Permission `json:"user"`
		Transcript *scribe.Permission `json:"transcript"`
	} `json:"permissions"`
	LogoURI          string `json:"logo_uri"`
	CRMIntegrationID *int64 `json:"crm_integration_id" null:"ok"` // null: no CRM integration
}

// Lengths api/openapi.yaml sets on request members.
const (
	maxDescription = 1000
	maxLogoURI     = 2048
)

func (s *Server) createPlugin(c *call) result {
	var b createPluginBody
	if p := decodeCreatePlugin(c.body, &b); p != nil {
		return fail(p)
	}
	if b.Name == nil {
		return fail(validationFailed("name: is required"))
	}
	pl := scribe.Plugin{
		// The request's time, as the store would stamp it (store.now),
		// without reading the clock again.
		CreatedOn:        s.requestTime(c.info).UTC().Truncate(time.Second),
		Name:             *b.Name,
		Description:      b.Description,
		Permissions:      scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionNone},
		LogoURI:          b.LogoURI,
		CRMIntegrationID: b.CRMIntegrationID,
		UserID:           c.caller.developer.ID,
	}
	if b.Permissions != nil {
		if b.Permissions.User != nil {
			pl.Permissions.User = *b.Permissions.User
		}
		if b.Permissions.Transcript != nil {
			pl.Permissions.Transcript = *b.Permissions.Transcript
		}
	}
	if err := validateRequestLengths(pl); err != nil {
		return fail(validationFailed(err.Error()))
	}
	if err := validatePlugin(pl); err != nil {
		return fail(validationFailed(err.Error()))
	}
	newPlugin, err := s.st.addPlugin(pl)
	if err != nil { // the developer was authenticated a moment ago
		return fail(newProblem(http.StatusInternalServerError, scribe.CodeInternalError, "creating the plugin failed; report the request id"))
	}
	return okPlugin(&newPlugin)
}

// validateRequestLengths checks the limits a request body has beyond the
// resource's own rules.
func validateRequestLengths(pl scribe.Plugin) error {
	if n := utf8.RuneCountInString(pl.Description); n > maxDescription {
		return &fieldError{"description", fmt.Sprintf("must be at most %d characters, got %d", maxDescription, n)}
	}
	if len(pl.LogoURI) > maxLogoURI {
		return &fieldError{"logo_uri", fmt.Sprintf("must be at most %d characters, got %d", maxLogoURI, len(pl.LogoURI))}
	}
	return nil
}

type createSecretKeyBody struct {
	Description string `json:"description"`
}

func (s *Server) createSecretKey(c *call) result {
	pl, p := s.ownPlugin(c)
	if p != nil {
		return fail(p)
	}
	var b createSecretKeyBody
	if p := decodeBody(c.body, &b); p != nil {
		return fail(p)
	}
	if n := utf8.RuneCountInString(b.Description); n > maxDescription {
		return fail(validationFailed(fmt.Sprintf("description: must be at most %d characters, got %d", maxDescription, n)))
	}
	k, err := s.newSecretKey(pl.ID, b.Description)
	if err != nil {
		return fail(newProblem(http.StatusInternalServerError, scribe.CodeInternalError, "creating the secret key failed; report the request id"))
	}
	return ok(secretKeyWire(k.PluginSecretKey))
}

// newSecretKey creates a fresh ask_live_ key for a plugin.
func (s *Server) newSecretKey(pluginID int64, description string) (SecretKey, error) {
	key, err := auth.NewSecretKey()
	if err != nil {
		return SecretKey{}, err
	}
	res, err := s.st.addSecretKey(scribe.PluginSecretKey{PluginID: pluginID, Description: description, Value: key})
	if err != nil {
		return SecretKey{}, err
	}
	return SecretKey{PluginSecretKey: res, Key: key}, nil
}

func (s *Server) listInstallations(c *call) result {
	pl, p := s.ownPlugin(c)
	if p != nil {
		return fail(p)
	}
	pp, p := parsePage(c.r)
	if p != nil {
		return fail(p)
	}
	return ok(list(s.st.pageInstallations(pl.ID, pp.afterID, pp.limit)))
}

func (s *Server) listWebhooks(c *call) result {
	pl, p := s.ownPlugin(c)
	if p != nil {
		return fail(p)
	}
	pp, p := parsePage(c.r)
	if p != nil {
		return fail(p)
	}
	hooks, more, total := s.st.pageWebhooks(pl.ID, pp.afterID, pp.limit)
	out := make([]webhookJSON, len(hooks))
	for i, h := range hooks {
		out[i] = webhookWire(h)
	}
	return ok(list(out, more, total))
}
