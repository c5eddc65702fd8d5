package scribe

import (
	"context"
	"strconv"
	"time"
)

// Webhook is an endpoint that receives a plugin's events.
type Webhook struct {
	ID       int64  `json:"id"`
	PluginID int64  `json:"plugin_id"`
	URI      string `json:"uri"`
	// SigningSecret is the secret deliveries to URI are signed with: a
	// webhook.Secret (WebhookSecret is the same type), ready for
	// webhook.NewVerifier or webhook.NewHandler. It prints redacted; decoding
	// a response validates it.
	SigningSecret WebhookSecret `json:"signing_secret"`
	CreatedOn     time.Time     `json:"created_on"`
	UpdatedOn     time.Time     `json:"updated_on"`
}

// ListWebhooksParams are the parameters of ListWebhooks.
type ListWebhooksParams struct {
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
	p := newPager(ctx, c, "ListWebhooks", []string{"plugins", strconv.FormatInt(pluginID, 10), "webhooks"}, lp,
		func(w Webhook) int64 { return w.ID }, opts)
	p.check = func() error { return checkID("ListWebhooks", "pluginID", pluginID) }
	return p
}
