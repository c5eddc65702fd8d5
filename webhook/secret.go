package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"strings"

	scribe "github.com/scribehq/scribe-go"
)

// SecretPrefix begins every signing secret. The rest of the secret is the
// standard base64 (RFC 4648, with padding) encoding of the HMAC key.
const SecretPrefix = "whsec_"

// ErrInvalidSecret is wrapped by every error ParseSecret returns, and by the
// error of decoding a malformed signing_secret. It is
// scribe.ErrInvalidWebhookSecret.
var ErrInvalidSecret = scribe.ErrInvalidWebhookSecret

// Secret is a webhook signing secret ("whsec_" followed by the base64 of the
// HMAC key). It is the type of scribe.Webhook's SigningSecret field, so a
// webhook read from the service is ready to verify with:
//
//	v, err := webhook.NewVerifier(hook.SigningSecret)
//
// Every way of printing it (fmt verbs, slog, JSON and text) shows
// "whsec_[REDACTED]"; Reveal returns the secret itself. Decoding a JSON
// string validates it like ParseSecret and refuses the redacted form. Obtain
// one with ParseSecret or NewSecret, or by decoding a scribe.Webhook; the
// zero Secret holds no key and verifies nothing.
//
// Secret is an alias, so go doc lists its methods under [scribe.WebhookSecret]
// (go doc github.com/scribehq/scribe-go.WebhookSecret): Reveal, IsZero,
// Equal, String, GoString, Format, LogValue, MarshalJSON, UnmarshalJSON,
// MarshalText and UnmarshalText. The type is declared in package scribe,
// which this package imports, because scribe.Webhook holds one.
type Secret = scribe.WebhookSecret

// ParseSecret parses a signing secret from configuration or a secret store.
// It requires the "whsec_" prefix followed by a non-empty key in standard
// base64, and refuses the redacted form "whsec_[REDACTED]". The error wraps
// ErrInvalidSecret and says what is wrong without repeating the secret.
// A scribe.Webhook's SigningSecret is already a Secret: no need to parse it.
func ParseSecret(s string) (Secret, error) { return scribe.ParseWebhookSecret(s) }

// NewSecret returns a fresh signing secret: "whsec_" followed by the standard
// base64 of 32 random bytes from crypto/rand (Standard Webhooks asks at least
// 24). The error is always nil today; it is there so that a future source of
// randomness that can fail need not change the signature.
func NewSecret() (Secret, error) {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails since Go 1.24; it crashes the program instead.
	return scribe.ParseWebhookSecret(SecretPrefix + base64.StdEncoding.EncodeToString(key))
}

// hmacKey returns the HMAC key of s: the decoded base64 after the prefix, or
// nil for the zero Secret. A Secret is only ever built by ParseSecret (or
// decoding, which calls it), so the decoding cannot fail here.
func hmacKey(s Secret) []byte {
	if s.IsZero() {
		return nil
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(s.Reveal(), SecretPrefix))
	return key
}
