package scribe

import (
	"encoding/base64"

	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unique"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
)

// One type per secret, end to end: a response decodes each secret straight
// into the type that uses it, so no caller re-parses Reveal().
//
//   - PluginSecretKey.Value is an auth.SecretKey: pass it to auth.NewCache,
//     auth.NewTokenSource or NewInstallationClient.
//   - Webhook.SigningSecret is a WebhookSecret, the type package webhook
//     names webhook.Secret: pass it to webhook.NewVerifier or
//     webhook.NewHandler.
//   - WithDeveloperKey takes an auth.DeveloperKey (or its string).
//
// Every one prints redacted (fmt, slog, MarshalJSON), and decoding validates:
// the redacted form of a secret is refused, not taken for a key.

// webhookSecretPrefix begins every signing secret; package webhook exports it
// as webhook.SecretPrefix.
const webhookSecretPrefix = "whsec_"

// ErrInvalidWebhookSecret is wrapped by every error ParseWebhookSecret (and
// so webhook.ParseSecret, and decoding a Webhook) returns. Package webhook
// exports it as webhook.ErrInvalidSecret.
var ErrInvalidWebhookSecret = errors.New("webhook: invalid signing secret")

// WebhookSecret is a webhook's signing secret: "whsec_" followed by the
// standard base64 (RFC 4648, with padding) of the HMAC key. It is the type of
// Webhook.SigningSecret, and package webhook calls it webhook.Secret (the
// same type, declared here because package webhook imports this one).
//
// Every way of printing it (fmt verbs, slog, JSON) shows "whsec_[REDACTED]",
// even from an unexported field of another struct; Reveal returns the secret
// itself. Obtain one by decoding a Webhook, with ParseWebhookSecret
// (webhook.ParseSecret) or webhook.NewSecret. The zero WebhookSecret holds no
// key and verifies nothing. Two WebhookSecrets are == when they hold the same
// secret.
type WebhookSecret struct {
	// A handle is a pointer to the string: fmt prints a nested pointer as an
	// address, so the secret cannot leak through reflection on a struct that
	// holds it in an unexported field.
	h unique.Handle[string]
}

// ParseWebhookSecret parses a signing secret: the "whsec_" prefix followed by
// a non-empty key in standard base64. The redacted form "whsec_[REDACTED]" is
// refused. The error wraps ErrInvalidWebhookSecret and says what is wrong
// without repeating the secret. webhook.ParseSecret is the same function.
func ParseWebhookSecret(s string) (WebhookSecret, error) {
	rest, ok := strings.CutPrefix(s, webhookSecretPrefix)
	switch {
	case s == "":
		return WebhookSecret{}, fmt.Errorf("%w: it is empty; pass the webhook's signing_secret, which begins with %q", ErrInvalidWebhookSecret, webhookSecretPrefix)
	case strings.Contains(s, redact.Marker):
		return WebhookSecret{}, fmt.Errorf("%w: it is the redacted placeholder %s, which is what printing or marshalling a secret gives; pass the secret itself (Reveal() where it was stored)", ErrInvalidWebhookSecret, redact.Marker)
	case !ok:
		return WebhookSecret{}, fmt.Errorf("%w: it must begin with %q (got %s); pass the webhook's signing_secret, not another credential", ErrInvalidWebhookSecret, webhookSecretPrefix, redact.String(s))
	case rest == "":
		return WebhookSecret{}, fmt.Errorf("%w: nothing follows %q; the key is missing", ErrInvalidWebhookSecret, webhookSecretPrefix)
	case strings.ContainsAny(rest, " \t\r\n"):
		return WebhookSecret{}, fmt.Errorf("%w: it contains whitespace; trim the value (for example a trailing newline from a file or an environment variable)", ErrInvalidWebhookSecret)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		// err names an offset, never the input; still keep it out of the message.
		return WebhookSecret{}, fmt.Errorf("%w: the part after %q is not standard base64 (RFC 4648 with padding)", ErrInvalidWebhookSecret, webhookSecretPrefix)
	}
	if len(key) == 0 {
		return WebhookSecret{}, fmt.Errorf("%w: the key after %q is empty", ErrInvalidWebhookSecret, webhookSecretPrefix)
	}
	return WebhookSecret{unique.Make(s)}, nil
}

// Reveal returns the secret as given, "whsec_" included. Pass it only where it
// is needed (a secret store, the sender's configuration), never to a log.
func (s WebhookSecret) Reveal() string {
	if s.IsZero() {
		return ""
	}
	return s.h.Value()
}

// IsZero reports whether s is the zero WebhookSecret, which holds no key.
func (s WebhookSecret) IsZero() bool { return s == WebhookSecret{} }

// Equal reports whether s and o hold the same secret, like ==. It lets go-cmp
// compare structs holding a secret, such as two Webhooks.
func (s WebhookSecret) Equal(o WebhookSecret) bool { return s == o }

// String returns the redacted form "whsec_[REDACTED]" (or "" for the zero
// WebhookSecret).
func (s WebhookSecret) String() string { return redact.String(s.Reveal()) }

// GoString returns the redacted form, so %#v hides the secret too.
func (s WebhookSecret) GoString() string { return redact.String(s.Reveal()) }

// Format writes the redacted form for every fmt verb.
func (s WebhookSecret) Format(f fmt.State, verb rune) { redact.Format(f, verb, s.Reveal()) }

// LogValue implements slog.LogValuer with the redacted form.
func (s WebhookSecret) LogValue() slog.Value { return slog.StringValue(redact.String(s.Reveal())) }

// MarshalJSON writes the redacted form, so a resource or a configuration
// marshalled for a log or a cache never carries the secret. Store the value of
// Reveal instead.
func (s WebhookSecret) MarshalJSON() ([]byte, error) {
	return apijson.Marshal(redact.String(s.Reveal()))
}

// UnmarshalJSON parses a JSON string with ParseWebhookSecret, so a Webhook
// decodes its signing_secret ready for use, and a WebhookSecret can be a field
// of a configuration file. The redacted form is refused.
func (s *WebhookSecret) UnmarshalJSON(b []byte) error {
	var v string
	if err := apijson.Unmarshal(b, &v, responseJSON); err != nil {
		return fmt.Errorf("%w: it must be a JSON string", ErrInvalidWebhookSecret)
	}
	p, err := ParseWebhookSecret(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// WithDeveloperKey authorizes requests with a developer key (the operations
// on /plugins). It replaces any credential given before it. The key is kept
// in a type that never prints.
//
// It takes the key as an auth.DeveloperKey (what auth.ParseDeveloperKey and
// scribetest hand out) or as a string (such as os.Getenv's), checked alike:
// not empty, no whitespace or control characters, not the redacted form
// "dk_live_[REDACTED]". A bad key is an *ArgumentError from NewClient or the
// call it is passed to.
func WithDeveloperKey[K string | auth.DeveloperKey](key K) Option {
	var dk auth.DeveloperKey
	var err error
	switch v := any(key).(type) {
	case string:
		dk, err = auth.ParseDeveloperKey(v) // the one rule for a developer key
	case auth.DeveloperKey:
		if dk = v; dk.IsZero() {
			err = errors.New("is empty")
		}
	}
	return Option{func(s *settings) error {
		if err != nil {
			return &ArgumentError{Func: "WithDeveloperKey", Arg: "key", Reason: developerKeyReason(err)}
		}
		k := developerKey(dk.Reveal())
		s.credential = &k
		return nil
	}}
}

// developerKeyReason turns auth.ParseDeveloperKey's error (which never quotes
// the key) into an ArgumentError's reason.
func developerKeyReason(err error) string {
	reason := strings.TrimPrefix(err.Error(), "auth: "+auth.ErrInvalidKey.Error()+": developer key ")
	if reason == "is empty" {
		reason += "; pass the developer key (dk_live_...) the platform issued"
	}
	return reason
}
