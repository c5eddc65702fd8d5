package scribe

import (
	"context"
	"strconv"
	"time"
)

// PluginInstallation is one user's installation of a plugin. The UUID is what
// an installation JWT names in its plugin_installation_uuid claim.
type PluginInstallation struct {
	ID           int64     `json:"id"`
	UUID         string    `json:"uuid"`
	PluginID     int64     `json:"plugin_id"`
	UserID       int64     `json:"user_id"`
	FirstName    string    `json:"first_name"`
	LastName     string    `json:"last_name"`
	EmailAddress string    `json:"email_address"`
	CreatedOn    time.Time `json:"created_on"`
	UpdatedOn    time.Time `json:"updated_on"`
	// DeletedOn is nil while the plugin is installed, and the time of the
	// uninstall afterwards.
	DeletedOn *time.Time `json:"deleted_on"`
}

// ListPluginInstallationsParams are the parameters of ListPluginInstallations.
type ListPluginInstallationsParams struct {
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
	p := newPager(ctx, c, "ListPluginInstallations", []string{"plugins", strconv.FormatInt(pluginID, 10), "installations"}, lp,
		func(i PluginInstallation) int64 { return i.ID }, opts)
	p.check = func() error { return checkID("ListPluginInstallations", "pluginID", pluginID) }
	return p
}
