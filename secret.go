package scribe

import (
	"encoding/base64"

	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/scribehq/scribe-go/auth"
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
//   - WithDeveloperKey takes an auth.DeveloperKey: parse a string with
//     auth.ParseDeveloperKey.
//
// Every one holds its text in a redact.Secret, which prints redacted (fmt,
// slog, JSON and text marshalling), and decoding validates: the redacted form
// of a secret is refused, not taken for a key.

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
	s redact.Secret // behind a pointer: fmt shows an address from an unexported field
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
	return WebhookSecret{redact.NewSecret(s)}, nil
}

// Reveal returns the secret as given, "whsec_" included. Pass it only where it
// is needed (a secret store, the sender's configuration), never to a log.
func (s WebhookSecret) Reveal() string { return s.s.Reveal() }

// IsZero reports whether s is the zero WebhookSecret, which holds no key.
func (s WebhookSecret) IsZero() bool { return s.s.IsZero() }

// Equal reports whether s and o hold the same secret, like ==. It lets go-cmp
// compare structs holding a secret, such as two Webhooks.
func (s WebhookSecret) Equal(o WebhookSecret) bool { return s == o }

// String returns the redacted form "whsec_[REDACTED]" (or "" for the zero
// WebhookSecret).
func (s WebhookSecret) String() string { return s.s.String() }

// GoString returns the redacted form, so %#v hides the secret too.
func (s WebhookSecret) GoString() string { return s.s.String() }

// Format writes the redacted form for every fmt verb.
func (s WebhookSecret) Format(f fmt.State, verb rune) { s.s.Format(f, verb) }

// LogValue implements slog.LogValuer with the redacted form.
func (s WebhookSecret) LogValue() slog.Value { return s.s.LogValue() }

// MarshalJSON writes the redacted form, so a resource or a configuration
// marshalled for a log or a cache never carries the secret. Store the value of
// Reveal instead.
func (s WebhookSecret) MarshalJSON() ([]byte, error) { return s.s.MarshalJSON() }

// UnmarshalJSON parses a JSON string with ParseWebhookSecret, so a Webhook
// decodes its signing_secret ready for use, and a WebhookSecret can be a field
// of a configuration file. The redacted form is refused.
func (s *WebhookSecret) UnmarshalJSON(b []byte) error {
	return redact.UnmarshalJSON(b, s, ParseWebhookSecret, fmt.Errorf("%w: it must be a JSON string", ErrInvalidWebhookSecret))
}

// MarshalText writes the redacted form, for encoders that use
// encoding.TextMarshaler.
func (s WebhookSecret) MarshalText() ([]byte, error) { return s.s.MarshalText() }

// UnmarshalText parses a secret like ParseWebhookSecret, so configuration
// loaders that use encoding.TextUnmarshaler can fill a WebhookSecret field.
func (s *WebhookSecret) UnmarshalText(b []byte) error {
	return redact.UnmarshalText(b, s, ParseWebhookSecret)
}

// WithDeveloperKey authorizes requests with a developer key (the operations
// on /plugins), as auth.ParseDeveloperKey or scribetest hands it out. It
// replaces any credential given before it. The zero key is an
// *ArgumentError from NewClient or WithOptions. It configures a client: a
// call refuses it.
//
// A key read from the environment is parsed first, which says what is
// wrong with a malformed one without quoting it:
//
//	key, err := auth.ParseDeveloperKey(os.Getenv("SCRIBE_DEVELOPER_KEY"))
func WithDeveloperKey(key auth.DeveloperKey) Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithDeveloperKey"); err != nil {
			return err
		}
		if key.IsZero() {
			return &ArgumentError{Func: "WithDeveloperKey", Arg: "key", Reason: "is the zero auth.DeveloperKey; pass the developer key (dk_live_...) the platform issued, parsed with auth.ParseDeveloperKey"}
		}
		s.credential = &developerKey{key}
		return nil
	}}
}
