// Package webhook verifies, signs and decodes the events the Plugin Integration
// Service delivers to a plugin's webhooks, following the Standard Webhooks
// scheme (https://www.standardwebhooks.com).
//
// Every delivery is a POST whose body is a JSON [Event], with three headers:
// webhook-id (the event id, the same on every retry), webhook-timestamp
// (integer Unix seconds of the attempt) and webhook-signature (one or more
// space-separated "v1,<base64>" entries). Each v1 entry is
// base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)), where the key is
// the base64-decoded part of the webhook's "whsec_" signing secret.
//
// A receiver usually needs only [NewHandler]: it caps the body size, verifies
// the signature and the timestamp with a [Verifier], decodes the [Event],
// drops duplicate deliveries through a [DedupeStore], calls your function, and
// answers with the status code that makes the service retry exactly when it
// should: 2xx once handled, 500 to be retried when your function fails, 422
// when it returns a [Permanent] error that no retry can fix. Your function's
// errors are logged (slog.Default at Warn unless [WithLogger]), redacted, and
// kept out of the answer unless [WithErrorDetails] asks. [Verifier.Verify] and
// [ParseEvent] are there for receivers built on another router; [Sign] and
// [SignHeaders] produce deliveries, for tests and for the reference server in
// package scribetest.
//
// The signing secret is an [auth.WebhookSecret], the type of
// scribe.Webhook's SigningSecret: it never prints, and
// [auth.ParseWebhookSecret] reads one from configuration. Constructors refuse
// what cannot work (a zero secret, a nil Verifier or function, a bad option)
// with an error, before the first delivery.
package webhook
