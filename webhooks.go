package scribe

import (
	"context"
	"net/http"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// Webhook is an endpoint that receives a plugin's events.
type Webhook struct {
	// ID identifies the webhook (wire field id): positive, assigned in
	// increasing order.
	ID int64 `json:"id"`
	// PluginID is the id of the plugin whose events the webhook receives
	// (plugin_id).
	PluginID int64 `json:"plugin_id"`
	// URI is the absolute http or https URL the service POSTs each event
	// to (uri).
	URI string `json:"uri"`
	// SigningSecret is the key deliveries to URI are signed with
	// (signing_secret): "whsec_" followed by the base64 key, decoded and
	// validated, ready for webhook.NewVerifier. It prints redacted.
	SigningSecret auth.WebhookSecret `json:"signing_secret"`
	// CreatedOn is when the webhook was registered (created_on), in UTC.
	CreatedOn time.Time `json:"created_on"`
	// UpdatedOn is when the webhook last changed (updated_on), in UTC.
	UpdatedOn time.Time `json:"updated_on"`
}

func (w *Webhook) unidentified([]byte) (string, string) { return positiveID(w.ID) }

// ListWebhooksParams are the parameters of ListWebhooks.
type ListWebhooksParams struct {
	// ListParams sets the page size, the id to start after and a cap on
	// the items walked; its zero value walks every webhook, 20 per page.
	ListParams
}

// ListWebhooks lists the webhooks of one of the developer's plugins, in
// ascending id order; it needs a developer key. Each SigningSecret prints
// redacted. Nothing is sent until the Pager is iterated, with ctx. Nil params
// mean the defaults.
//
// It sends GET /plugins/{id}/webhooks.
func (c *Client) ListWebhooks(ctx context.Context, pluginID int64, params *ListWebhooksParams, opts ...Option) *Pager[Webhook] {
	var lp ListParams
	if params != nil {
		lp = params.ListParams
	}
	p := newPager(ctx, c, newRequest("ListWebhooks", http.MethodGet, "/plugins/{id}/webhooks", pluginID), lp,
		func(w Webhook) int64 { return w.ID }, opts)
	p.check = func() error { return checkID("ListWebhooks", "pluginID", pluginID) }
	return p
}
