package scribe

import "time"

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
	User       Permission `json:"user"`
	Transcript Permission `json:"transcript"`
}

// Plugin is an integration a developer builds and users install.
type Plugin struct {
	ID          int64       `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Permissions Permissions `json:"permissions"`
	Published   bool        `json:"published"`
	Disabled    bool        `json:"disabled"`
	// CRMIntegrationID is nil when the plugin has no CRM integration.
	CRMIntegrationID *int64    `json:"crm_integration_id"`
	LogoURI          string    `json:"logo_uri"`
	UserID           int64     `json:"user_id"`
	CreatedOn        time.Time `json:"created_on"`
	UpdatedOn        time.Time `json:"updated_on"`
}

// PluginSecretKey is a key a plugin's backend signs installation JWTs with.
// Its Value begins with "ask_live_" and prints redacted.
type PluginSecretKey struct {
	ID          int64     `json:"id"`
	Description string    `json:"description"`
	Value       Secret    `json:"value"`
	PluginID    int64     `json:"plugin_id"`
	CreatedOn   time.Time `json:"created_on"`
	UpdatedOn   time.Time `json:"updated_on"`
}
