package scribe

import (
	"context"
	"net/http"
	"time"
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

// unidentified: an installation is identified by its id and its uuid.
func (p *PluginInstallation) unidentified([]byte) (string, string) {
	if p.UUID == "" {
		return "uuid", "a non-empty string"
	}
	return positiveID(p.ID)
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
