package scribe

import "time"

// Webhook is an endpoint that receives a plugin's events. SigningSecret begins
// with "whsec_" and prints redacted; package webhook verifies deliveries with it.
type Webhook struct {
	ID            int64     `json:"id"`
	PluginID      int64     `json:"plugin_id"`
	URI           string    `json:"uri"`
	SigningSecret Secret    `json:"signing_secret"`
	CreatedOn     time.Time `json:"created_on"`
	UpdatedOn     time.Time `json:"updated_on"`
}
