package scribe

import "time"

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
