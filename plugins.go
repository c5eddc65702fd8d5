package scribe

import (
	"context"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/scribehq/scribe-go/auth"
)

// Permission is the access a plugin asks for on one kind of data.
type Permission string

// Known permission levels. The zero value is not valid on the wire; the
// service treats an omitted permission as PermissionNone.
const (
	PermissionNone Permission = "none"
	PermissionRead Permission = "read"
)

// Permissions says what a plugin may read of the users who install it.
type Permissions struct {
	// User is the access to the installing user's profile (wire field
	// permissions.user): PermissionRead lets the installation's tokens
	// call GetMe; with PermissionNone GetMe answers 403 (ErrForbidden).
	User Permission `json:"user"`
	// Transcript is the access to the installing user's transcripts
	// (permissions.transcript): PermissionRead lets the installation's
	// tokens list and fetch them and sends transcript events to the
	// plugin's webhooks; with PermissionNone the transcript operations
	// answer 403 (ErrForbidden).
	Transcript Permission `json:"transcript"`
}

// Plugin is an integration a developer builds and users install.
type Plugin struct {
	// ID identifies the plugin (wire field id): positive, assigned in
	// increasing order. Pass it to GetPlugin, CreatePluginSecretKey,
	// ListPluginInstallations and ListWebhooks.
	ID int64 `json:"id"`
	// Name is the plugin's display name (name), 1 to MaxPluginNameLength
	// characters.
	Name string `json:"name"`
	// Description is the developer's free-text description (description);
	// "" when none was given.
	Description string `json:"description"`
	// Permissions is what the plugin may read of the users who install it
	// (permissions); in a response each level is PermissionNone or
	// PermissionRead, never "".
	Permissions Permissions `json:"permissions"`
	// Published reports whether the plugin has been published
	// (published). CreatePlugin makes an unpublished plugin (false), and
	// no operation of this interface publishes one.
	Published bool `json:"published"`
	// Disabled reports that the plugin has been disabled (disabled): the
	// service then refuses its installation tokens with 403
	// CodePluginDisabled, while its developer still manages it. A new
	// plugin is enabled (false).
	Disabled bool `json:"disabled"`
	// CRMIntegrationID is nil when the plugin has no CRM integration.
	CRMIntegrationID *int64 `json:"crm_integration_id"`
	// LogoURI is the absolute http or https URL of the plugin's logo
	// (logo_uri); "" when it has none.
	LogoURI string `json:"logo_uri"`
	// UserID is the id of the developer who owns the plugin (user_id).
	UserID int64 `json:"user_id"`
	// CreatedOn is when the plugin was created (created_on), in UTC.
	CreatedOn time.Time `json:"created_on"`
	// UpdatedOn is when the plugin last changed (updated_on), in UTC;
	// equal to CreatedOn until it first changes.
	UpdatedOn time.Time `json:"updated_on"`
}

func (p *Plugin) unidentified([]byte) (string, string) { return positiveID(p.ID) }

// PluginSecretKey is a key a plugin's backend signs installation JWTs with.
type PluginSecretKey struct {
	// ID identifies the key (wire field id): positive, assigned in
	// increasing order.
	ID int64 `json:"id"`
	// Description is the developer's note on the key (description), such
	// as "production, rotated 2026-11"; "" when none was given.
	Description string `json:"description"`
	// Value is the key itself (value): "ask_live_" followed by the key
	// material, decoded and validated like auth.ParseSecretKey. Pass it to
	// auth.NewCache, auth.NewTokenSource or NewInstallationClient to sign
	// installation JWTs. It prints redacted. The service hands it out in the
	// answer to CreatePluginSecretKey; keep it in a secret store.
	Value auth.SecretKey `json:"value"`
	// PluginID is the id of the plugin whose installation JWTs the key
	// signs (plugin_id).
	PluginID int64 `json:"plugin_id"`
	// CreatedOn is when the key was created (created_on), in UTC.
	CreatedOn time.Time `json:"created_on"`
	// UpdatedOn is when the key last changed (updated_on), in UTC.
	UpdatedOn time.Time `json:"updated_on"`
}

func (k *PluginSecretKey) unidentified([]byte) (string, string) { return positiveID(k.ID) }

// ListPluginsParams are the parameters of ListPlugins.
type ListPluginsParams struct {
	// ListParams sets the page size, the id to start after and a cap on
	// the items walked; its zero value walks every plugin, 20 per page.
	ListParams
}

// ListPlugins lists the developer's plugins, in ascending id order; it needs
// a developer key. Nothing is sent until the Pager is iterated, with ctx. Nil
// params mean the defaults.
//
// It sends GET /plugins.
func (c *Client) ListPlugins(ctx context.Context, params *ListPluginsParams, opts ...Option) *Pager[Plugin] {
	var lp ListParams
	if params != nil {
		lp = params.ListParams
	}
	return newPager(ctx, c, newRequest("ListPlugins", http.MethodGet, "/plugins"), lp,
		func(p Plugin) int64 { return p.ID }, opts)
}

// GetPlugin fetches one of the developer's plugins; it needs a developer key.
// Another developer's plugin is ErrNotFound, like one that does not exist.
//
// It sends GET /plugins/{id}.
func (c *Client) GetPlugin(ctx context.Context, id int64, opts ...Option) (*Plugin, error) {
	if err := checkID("GetPlugin", "id", id); err != nil {
		return nil, err
	}
	var p Plugin
	if _, err := c.do(ctx, newRequest("GetPlugin", http.MethodGet, "/plugins/{id}", id), &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// MaxPluginNameLength is the longest plugin name, in characters, the service
// accepts.
const MaxPluginNameLength = 100

// CreatePluginParams are the fields of a new plugin.
type CreatePluginParams struct {
	// Name is required: 1 to 100 characters.
	Name string `json:"name"`
	// Description is optional free text shown with the plugin; "" leaves
	// it empty.
	Description string `json:"description"`
	// Permissions default to none for both user and transcript: a zero
	// Permission is sent as PermissionNone.
	Permissions Permissions `json:"permissions"`
	// LogoURI is optional: the absolute http or https URL of the plugin's
	// logo, or "" for none. The service refuses anything else with 400
	// CodeValidationFailed.
	LogoURI string `json:"logo_uri"`
	// CRMIntegrationID is nil for a plugin without CRM integration.
	CRMIntegrationID *int64 `json:"crm_integration_id"`
}

// CreatePlugin creates a plugin, unpublished and enabled, owned by the
// developer; it needs a developer key. The name is checked before anything is
// sent (an *ArgumentError if it is empty or longer than 100 characters). The
// request carries an Idempotency-Key (see WithIdempotencyKey), so a retry
// never creates a second plugin.
//
// It sends POST /plugins.
func (c *Client) CreatePlugin(ctx context.Context, params *CreatePluginParams, opts ...Option) (*Plugin, error) {
	if params == nil {
		return nil, &ArgumentError{Func: "CreatePlugin", Arg: "params", Reason: "is nil; a plugin needs at least a Name"}
	}
	n := utf8.RuneCountInString(params.Name)
	switch {
	case n == 0:
		return nil, &ArgumentError{Func: "CreatePlugin", Arg: "params.Name", Reason: "is required (1 to 100 characters)"}
	case !utf8.ValidString(params.Name):
		return nil, &ArgumentError{Func: "CreatePlugin", Arg: "params.Name", Reason: "is not valid UTF-8"}
	case n > MaxPluginNameLength:
		return nil, &ArgumentError{Func: "CreatePlugin", Arg: "params.Name", Reason: fmt.Sprintf("is %d characters long; at most %d are allowed", n, MaxPluginNameLength)}
	}
	body := *params // the JSON body of POST /plugins, with the permissions checked
	var err error
	if body.Permissions.User, err = checkPermission("params.Permissions.User", params.Permissions.User); err != nil {
		return nil, err
	}
	if body.Permissions.Transcript, err = checkPermission("params.Permissions.Transcript", params.Permissions.Transcript); err != nil {
		return nil, err
	}
	r := newRequest("CreatePlugin", http.MethodPost, "/plugins")
	r.body = body
	var p Plugin
	if _, err := c.do(ctx, r, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// checkPermission maps the zero Permission to PermissionNone and refuses
// unknown levels.
func checkPermission(arg string, p Permission) (Permission, error) {
	switch p {
	case "":
		return PermissionNone, nil
	case PermissionNone, PermissionRead:
		return p, nil
	}
	return "", &ArgumentError{Func: "CreatePlugin", Arg: arg, Reason: fmt.Sprintf("is %q; want PermissionNone or PermissionRead", string(p))}
}

// CreatePluginSecretKeyParams are the fields of a new plugin secret key.
type CreatePluginSecretKeyParams struct {
	// Description is optional, such as "production, rotated 2026-11".
	Description string `json:"description,omitempty"`
}

// CreatePluginSecretKey adds a secret key to one of the developer's plugins;
// it needs a developer key. A plugin may hold several keys at once, so keys
// can be rotated without downtime. The returned Value (ask_live_...) is the
// only copy the service hands out; it prints redacted, and Reveal gives it.
// Nil params mean no description. The request carries an Idempotency-Key (see
// WithIdempotencyKey), so a retry never creates a second key.
//
// It sends POST /plugins/{id}/secret_keys.
func (c *Client) CreatePluginSecretKey(ctx context.Context, pluginID int64, params *CreatePluginSecretKeyParams, opts ...Option) (*PluginSecretKey, error) {
	if err := checkID("CreatePluginSecretKey", "pluginID", pluginID); err != nil {
		return nil, err
	}
	body := CreatePluginSecretKeyParams{}
	if params != nil {
		body = *params
	}
	r := newRequest("CreatePluginSecretKey", http.MethodPost, "/plugins/{id}/secret_keys", pluginID)
	r.body = body
	var k PluginSecretKey
	if _, err := c.do(ctx, r, &k, opts); err != nil {
		return nil, err
	}
	return &k, nil
}
