package auth

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/scribehq/scribe-go/internal/redact"
)

// SecretKeyPrefix begins every plugin secret key.
const SecretKeyPrefix = "ask_live_"

// DeveloperKeyPrefix begins the developer keys the reference server issues.
// Developer keys are opaque: ParseDeveloperKey does not require it.
const DeveloperKeyPrefix = "dk_live_"

// WebhookSecretPrefix begins every webhook signing secret.
const WebhookSecretPrefix = "whsec_"

// ErrInvalidKey is matched by errors.Is for every error about the form of a
// secret key, a developer key or a webhook signing secret.
var ErrInvalidKey = errors.New("invalid key")

// keyError says what is wrong with a key without ever quoting it.
func keyError(kind, problem string) error {
	return fmt.Errorf("auth: %w: %s %s", ErrInvalidKey, kind, problem)
}

// redactedProblem is the error of a key that holds the redaction marker: what
// printing or marshalling a key gives, which carries no secret.
const redactedProblem = "is the redacted placeholder " + redact.Marker + ", which is what printing or marshalling a key gives; pass the key itself (Reveal() where it was stored)"

// A key holds its text in a redact.Secret, the one implementation of the
// three secret types: fmt, even printing a struct that holds a
// key in an unexported field, shows an address and never the text, and keys
// compare with == by their text.

// SecretKey is a plugin secret key ("ask_live_..."), the HMAC key that signs
// installation JWTs. Every way of printing it (fmt verbs, slog, JSON and text
// marshalling) shows "ask_live_[REDACTED]"; Reveal returns the key itself.
//
// The zero SecretKey holds no key; Mint and NewTokenSource refuse it. Two
// SecretKeys are == when they hold the same key.
type SecretKey struct{ s redact.Secret }

// ParseSecretKey checks that s is a plugin secret key: "ask_live_" followed
// by one or more printable, non-space ASCII characters ('!' to '~'). That is
// all the service promises; the keys the reference server issues are
// "ask_live_" and the URL-safe base64 of 32 random bytes, and the service may
// issue others (such as "ask_live_4eC39HqLyjWDarjtT1zdp7dc"). The redacted
// form "ask_live_[REDACTED]" is refused. The error says what is wrong and
// never quotes s. Surrounding whitespace is an error, not trimmed, because
// the key signs with its exact bytes.
func ParseSecretKey(s string) (SecretKey, error) {
	const kind = "secret key"
	if s == "" {
		return SecretKey{}, keyError(kind, "is empty")
	}
	if strings.TrimSpace(s) != s {
		return SecretKey{}, keyError(kind, "has leading or trailing whitespace; trim it")
	}
	rest, ok := strings.CutPrefix(s, SecretKeyPrefix)
	if !ok {
		return SecretKey{}, keyError(kind, `must begin with "`+SecretKeyPrefix+`"; is this a developer key or a webhook secret?`)
	}
	if rest == "" {
		return SecretKey{}, keyError(kind, `has nothing after "`+SecretKeyPrefix+`"; pass the whole key`)
	}
	for i := 0; i < len(rest); i++ {
		if problem := keyByteProblem(rest[i]); problem != "" {
			return SecretKey{}, keyError(kind, fmt.Sprintf("has %s at position %d; a secret key is printable ASCII without spaces", problem, len(SecretKeyPrefix)+i))
		}
	}
	if strings.Contains(rest, redact.Marker) {
		return SecretKey{}, keyError(kind, redactedProblem)
	}
	return SecretKey{redact.NewSecret(s)}, nil
}

// keyByteProblem names what is wrong with byte c of a secret key, or returns
// "" for printable, non-space ASCII.
func keyByteProblem(c byte) string {
	switch {
	case c == ' ' || '\t' <= c && c <= '\r':
		return "whitespace"
	case c < ' ' || c == 0x7f:
		return "a control character"
	case c > 0x7f:
		return "a non-ASCII byte"
	}
	return ""
}

// Reveal returns the key itself. Pass it only where it is needed (a secret
// store, an environment variable), never to a log.
func (k SecretKey) Reveal() string { return k.s.Reveal() }

// bytes returns the HMAC key: the key's UTF-8 bytes, prefix included.
func (k SecretKey) bytes() []byte { return []byte(k.Reveal()) }

// IsZero reports whether k holds no key.
func (k SecretKey) IsZero() bool { return k.s.IsZero() }

// Equal reports whether k and o hold the same key, like ==. It lets go-cmp
// compare structs holding a key.
func (k SecretKey) Equal(o SecretKey) bool { return k == o }

// String returns the redacted form "ask_live_[REDACTED]", or "" for the zero key.
func (k SecretKey) String() string { return k.s.String() }

// GoString returns the redacted form, so %#v hides the key too.
func (k SecretKey) GoString() string { return k.s.String() }

// Format writes the redacted form for every fmt verb.
func (k SecretKey) Format(f fmt.State, verb rune) { k.s.Format(f, verb) }

// LogValue implements slog.LogValuer with the redacted form.
func (k SecretKey) LogValue() slog.Value { return k.s.LogValue() }

// MarshalJSON writes the redacted form, so a configuration struct marshalled
// for a log never carries the key. Store the value of Reveal instead.
func (k SecretKey) MarshalJSON() ([]byte, error) { return k.s.MarshalJSON() }

// UnmarshalJSON reads a key from a JSON string and validates it like
// ParseSecretKey.
func (k *SecretKey) UnmarshalJSON(b []byte) error {
	return redact.UnmarshalJSON(b, k, ParseSecretKey, keyError("secret key", "must be a JSON string"))
}

// MarshalText writes the redacted form, for encoders that use
// encoding.TextMarshaler.
func (k SecretKey) MarshalText() ([]byte, error) { return k.s.MarshalText() }

// UnmarshalText parses a key like ParseSecretKey, so configuration loaders
// that use encoding.TextUnmarshaler can fill a SecretKey field.
func (k *SecretKey) UnmarshalText(b []byte) error { return redact.UnmarshalText(b, k, ParseSecretKey) }

// DeveloperKey is a developer key ("dk_live_..."), the bearer token of the
// developer operations (GET /plugins and the calls under it). It is opaque to
// clients. Every way of printing it shows a redacted form such as
// "dk_live_[REDACTED]"; Reveal returns the key itself.
type DeveloperKey struct{ s redact.Secret }

// ParseDeveloperKey checks that s can be a developer key: not empty,
// printable ASCII without whitespace (it travels as a bearer token in an
// Authorization header), and not the redacted form "dk_live_[REDACTED]". It
// does not require the "dk_live_" prefix. The error never quotes s.
func ParseDeveloperKey(s string) (DeveloperKey, error) {
	const kind = "developer key"
	if s == "" {
		return DeveloperKey{}, keyError(kind, "is empty")
	}
	for i := 0; i < len(s); i++ {
		if problem := keyByteProblem(s[i]); problem != "" {
			return DeveloperKey{}, keyError(kind, fmt.Sprintf("has %s at byte %d; pass the key exactly as issued", problem, i))
		}
	}
	if strings.Contains(s, redact.Marker) {
		return DeveloperKey{}, keyError(kind, redactedProblem)
	}
	return DeveloperKey{redact.NewSecret(s)}, nil
}

// Reveal returns the key itself, for the Authorization header.
func (k DeveloperKey) Reveal() string { return k.s.Reveal() }

// IsZero reports whether k holds no key.
func (k DeveloperKey) IsZero() bool { return k.s.IsZero() }

// Equal reports whether k and o hold the same key, like ==. It lets go-cmp
// compare structs holding a key.
func (k DeveloperKey) Equal(o DeveloperKey) bool { return k == o }

// String returns the redacted form, such as "dk_live_[REDACTED]".
func (k DeveloperKey) String() string { return k.s.String() }

// GoString returns the redacted form, so %#v hides the key too.
func (k DeveloperKey) GoString() string { return k.s.String() }

// Format writes the redacted form for every fmt verb.
func (k DeveloperKey) Format(f fmt.State, verb rune) { k.s.Format(f, verb) }

// LogValue implements slog.LogValuer with the redacted form.
func (k DeveloperKey) LogValue() slog.Value { return k.s.LogValue() }

// MarshalJSON writes the redacted form. Store the value of Reveal instead.
func (k DeveloperKey) MarshalJSON() ([]byte, error) { return k.s.MarshalJSON() }

// UnmarshalJSON reads a key from a JSON string and validates it like
// ParseDeveloperKey.
func (k *DeveloperKey) UnmarshalJSON(b []byte) error {
	return redact.UnmarshalJSON(b, k, ParseDeveloperKey, keyError("developer key", "must be a JSON string"))
}

// MarshalText writes the redacted form.
func (k DeveloperKey) MarshalText() ([]byte, error) { return k.s.MarshalText() }

// UnmarshalText parses a key like ParseDeveloperKey.
func (k *DeveloperKey) UnmarshalText(b []byte) error {
	return redact.UnmarshalText(b, k, ParseDeveloperKey)
}

// WebhookSecret is a webhook's signing secret: "whsec_" followed by the
// standard base64 (RFC 4648, with padding) of the HMAC key. It is the type of
// scribe.Webhook's SigningSecret, so a webhook read from the service is
// ready for webhook.NewVerifier. Every way of printing it shows
// "whsec_[REDACTED]"; Reveal returns the secret itself.
//
// The zero WebhookSecret holds no key; webhook.NewVerifier refuses it. Two
// WebhookSecrets are == when they hold the same secret.
type WebhookSecret struct{ s redact.Secret }

// ParseWebhookSecret checks that s is a signing secret: "whsec_" followed by
// a non-empty key in standard base64. The redacted form "whsec_[REDACTED]"
// is refused. The error never quotes s.
func ParseWebhookSecret(s string) (WebhookSecret, error) {
	const kind = "webhook signing secret"
	rest, ok := strings.CutPrefix(s, WebhookSecretPrefix)
	switch {
	case s == "":
		return WebhookSecret{}, keyError(kind, `is empty; pass the webhook's signing_secret, which begins with "`+WebhookSecretPrefix+`"`)
	case strings.Contains(s, redact.Marker):
		return WebhookSecret{}, keyError(kind, redactedProblem)
	case !ok:
		return WebhookSecret{}, keyError(kind, `must begin with "`+WebhookSecretPrefix+`" (got `+redact.String(s)+`); pass the webhook's signing_secret, not another credential`)
	case rest == "":
		return WebhookSecret{}, keyError(kind, `has nothing after "`+WebhookSecretPrefix+`"; the key is missing`)
	case strings.ContainsAny(rest, " \t\r\n"):
		return WebhookSecret{}, keyError(kind, "has whitespace; trim the value (such as the trailing newline of a file)")
	}
	// DecodeString's error names an offset, never the input; still, keep it out.
	if key, err := base64.StdEncoding.DecodeString(rest); err != nil || len(key) == 0 {
		return WebhookSecret{}, keyError(kind, `is not a key in standard base64 (RFC 4648, with padding) after "`+WebhookSecretPrefix+`"`)
	}
	return WebhookSecret{redact.NewSecret(s)}, nil
}

// Reveal returns the secret as given, "whsec_" included. Pass it only where
// it is needed (a secret store), never to a log.
func (s WebhookSecret) Reveal() string { return s.s.Reveal() }

// IsZero reports whether s holds no secret.
func (s WebhookSecret) IsZero() bool { return s.s.IsZero() }

// Equal reports whether s and o hold the same secret, like ==. It lets go-cmp
// compare structs holding a secret, such as two Webhooks.
func (s WebhookSecret) Equal(o WebhookSecret) bool { return s == o }

// String returns the redacted form "whsec_[REDACTED]", or "" for the zero secret.
func (s WebhookSecret) String() string { return s.s.String() }

// GoString returns the redacted form, so %#v hides the secret too.
func (s WebhookSecret) GoString() string { return s.s.String() }

// Format writes the redacted form for every fmt verb.
func (s WebhookSecret) Format(f fmt.State, verb rune) { s.s.Format(f, verb) }

// LogValue implements slog.LogValuer with the redacted form.
func (s WebhookSecret) LogValue() slog.Value { return s.s.LogValue() }

// MarshalJSON writes the redacted form. Store the value of Reveal instead.
func (s WebhookSecret) MarshalJSON() ([]byte, error) { return s.s.MarshalJSON() }

// UnmarshalJSON reads a secret from a JSON string and validates it like
// ParseWebhookSecret, so a Webhook decodes its signing_secret ready for use.
func (s *WebhookSecret) UnmarshalJSON(b []byte) error {
	return redact.UnmarshalJSON(b, s, ParseWebhookSecret, keyError("webhook signing secret", "must be a JSON string"))
}

// MarshalText writes the redacted form.
func (s WebhookSecret) MarshalText() ([]byte, error) { return s.s.MarshalText() }

// UnmarshalText parses a secret like ParseWebhookSecret.
func (s *WebhookSecret) UnmarshalText(b []byte) error {
	return redact.UnmarshalText(b, s, ParseWebhookSecret)
}
