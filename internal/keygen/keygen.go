// Package keygen makes fresh credentials, as the service issues them, for
// the reference server, the commands and tests. A plugin gets its keys from
// the service (POST /plugins/{id}/secret_keys, POST /plugins/{id}/webhooks),
// so this is no part of package auth.
package keygen

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/scribehq/scribe-go/auth"
)

// SecretKey returns a fresh plugin secret key: "ask_live_" and the URL-safe
// base64 of 32 random bytes (RFC 7518 §3.2 asks at least 256 bits for HS256).
func SecretKey() (auth.SecretKey, error) {
	return auth.ParseSecretKey(auth.SecretKeyPrefix + base64.RawURLEncoding.EncodeToString(random()))
}

// DeveloperKey returns a fresh developer key: "dk_live_" and the URL-safe
// base64 of 32 random bytes.
func DeveloperKey() (auth.DeveloperKey, error) {
	return auth.ParseDeveloperKey(auth.DeveloperKeyPrefix + base64.RawURLEncoding.EncodeToString(random()))
}

// WebhookSecret returns a fresh webhook signing secret: "whsec_" and the
// standard base64 of 32 random bytes (Standard Webhooks asks at least 24).
func WebhookSecret() (auth.WebhookSecret, error) {
	return auth.ParseWebhookSecret(auth.WebhookSecretPrefix + base64.StdEncoding.EncodeToString(random()))
}

// random returns 32 bytes from crypto/rand, whose Read never fails (since
// Go 1.24 it crashes the program instead).
func random() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}
