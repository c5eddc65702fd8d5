package scribe

import (
	"context"
	"net/http"
	"time"

	"github.com/scribehq/scribe-go/internal/apijson"
)

// PluginInstallation is one user's installation of a plugin. The UUID is what
// an installation JWT names in its plugin_installation_uuid claim.
type PluginInstallation struct {
	// ID identifies the installation (wire field id): positive, assigned
	// in increasing order; the cursor ListPluginInstallations pages by.
	ID int64 `json:"id"`
	// UUID is the installation's public identifier (uuid): the
	// plugin_installation_uuid claim of its installation JWTs and of its
	// webhook events. Pass it to NewInstallationClient or
	// InstallationClients.For.
	UUID string `json:"uuid"`
	// PluginID is the id of the installed plugin (plugin_id).
	PluginID int64 `json:"plugin_id"`
	// UserID is the id of the user who installed the plugin (user_id),
	// the user whose transcripts the installation's tokens read.
	UserID int64 `json:"user_id"`
	// FirstName is the installing user's first name (first_name); "" when
	// the user has none.
	FirstName string `json:"first_name"`
	// LastName is the installing user's last name (last_name); "" when
	// the user has none.
	LastName string `json:"last_name"`
	// EmailAddress is the installing user's email address
	// (email_address); "" when the user has none.
	EmailAddress string `json:"email_address"`
	// CreatedOn is when the user installed the plugin (created_on), in
	// UTC.
	CreatedOn time.Time `json:"created_on"`
	// UpdatedOn is when the installation last changed (updated_on), in
	// UTC; an uninstall sets it to the time of DeletedOn.
	UpdatedOn time.Time `json:"updated_on"`
	// DeletedOn is nil while the plugin is installed, and the time of the
	// uninstall afterwards.
	DeletedOn *time.Time `json:"deleted_on"`
}

// check holds a decoded PluginInstallation to api/openapi.yaml: every
// member present, none null but deleted_on (decode.go).
func (p *PluginInstallation) check(o *apijson.Object) error {
	return o.Members(p, apijson.Members{
		Required: []string{"id", "uuid", "plugin_id", "user_id", "first_name", "last_name", "email_address",
			"created_on", "updated_on", "deleted_on"},
		Nullable: []string{"deleted_on"},
	})
}

// ListPluginInstallationsParams are the parameters of ListPluginInstallations.
type ListPluginInstallationsParams struct {
	// ListParams sets the page size, the id to start after and a cap on
	// the items walked; its zero value walks every installation, 20 per
	// page.
	ListParams
}

// ListPluginInstallations lists the installations of one of the developer's
// plugins, uninstalled ones included (DeletedOn set), in ascending id order;
// it needs a developer key. Nothing is sent until the Pager is iterated, with
// ctx. Nil params mean the defaults.
//
// It sends GET /plugins/{id}/installations.
func (c *Client) ListPluginInstallations(ctx context.Context, pluginID int64, params *ListPluginInstallationsParams, opts ...Option) *Pager[PluginInstallation] {
	var lp ListParams
	if params != nil {
		lp = params.ListParams
	}
	p := newPager(ctx, c, newRequest("ListPluginInstallations", http.MethodGet, "/plugins/{id}/installations", pluginID), lp,
		func(i PluginInstallation) int64 { return i.ID }, opts)
	p.check = func() error { return checkID("ListPluginInstallations", "pluginID", pluginID) }
	return p
}
