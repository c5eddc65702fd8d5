package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unique"

	"github.com/scribehq/scribe-go/internal/redact"
)

// SecretPrefix begins every signing secret. The rest of the secret is the
// standard base64 (RFC 4648, with padding) encoding of the HMAC key.
const SecretPrefix = "whsec_"

// ErrInvalidSecret is wrapped by every error ParseSecret returns.
var ErrInvalidSecret = errors.New("webhook: invalid signing secret")

// Secret is a webhook signing secret ("whsec_" followed by the base64 of the
// HMAC key). Every way of printing it (fmt verbs, slog, JSON) shows
// "whsec_[REDACTED]"; call Reveal to get the secret itself. Obtain one with
// ParseSecret or NewSecret; the zero Secret holds no key and verifies nothing.
type Secret struct {
	// Handles are pointers to the strings: fmt prints a nested pointer as an
	// address, so the secret cannot leak through reflection on a struct that
	// holds the Secret in an unexported field.
	value unique.Handle[string] // "whsec_..." as given
	key   unique.Handle[string] // the decoded HMAC key
}

// newSecret builds a Secret from its text and decoded key.
func newSecret(value string, key []byte) Secret {
	return Secret{value: unique.Make(value), key: unique.Make(string(key))}
}

// str returns the secret text, "" for the zero Secret.
func (s Secret) str() string {
	if s.IsZero() {
		return ""
	}
	return s.value.Value()
}

// hmacKey returns the decoded HMAC key, nil for the zero Secret.
func (s Secret) hmacKey() []byte {
	if s.IsZero() {
		return nil
	}
	return []byte(s.key.Value())
}

// ParseSecret parses a signing secret such as the SigningSecret of a
// scribe.Webhook (pass its Reveal()). It requires the "whsec_" prefix followed
// by a non-empty key in standard base64. The error says what is wrong without
// repeating the secret.
func ParseSecret(s string) (Secret, error) {
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	switch {
	case s == "":
		return Secret{}, fmt.Errorf("%w: it is empty; pass the webhook's signing_secret, which begins with %q", ErrInvalidSecret, SecretPrefix)
	case !ok:
		return Secret{}, fmt.Errorf("%w: it must begin with %q (got %s); pass the webhook's signing_secret, not another credential", ErrInvalidSecret, SecretPrefix, redact.String(s))
	case rest == "":
		return Secret{}, fmt.Errorf("%w: nothing follows %q; the key is missing", ErrInvalidSecret, SecretPrefix)
	case strings.ContainsAny(rest, " \t\r\n"):
		return Secret{}, fmt.Errorf("%w: it contains whitespace; trim the value (for example a trailing newline from a file or an environment variable)", ErrInvalidSecret)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		// err names an offset, never the input; still keep it out of the message.
		return Secret{}, fmt.Errorf("%w: the part after %q is not standard base64 (RFC 4648 with padding)", ErrInvalidSecret, SecretPrefix)
	}
	if len(key) == 0 {
		return Secret{}, fmt.Errorf("%w: the key after %q is empty", ErrInvalidSecret, SecretPrefix)
	}
	return newSecret(s, key), nil
}

// NewSecret returns a fresh signing secret: "whsec_" followed by the standard
// base64 of 32 random bytes from crypto/rand (Standard Webhooks asks at least
// 24). The error is always nil today; it is there so that a future source of
// randomness that can fail need not change the signature.
func NewSecret() (Secret, error) {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails since Go 1.24; it crashes the program instead.
	return newSecret(SecretPrefix+base64.StdEncoding.EncodeToString(key), key), nil
}

// Reveal returns the secret as given, "whsec_" included. Pass it only where it
// is needed (a secret store, the sender's configuration), never to a log.
func (s Secret) Reveal() string { return s.str() }

// IsZero reports whether s is the zero Secret, which holds no key.
func (s Secret) IsZero() bool { return s == Secret{} }

// String returns the redacted form "whsec_[REDACTED]" (or "" for the zero Secret).
func (s Secret) String() string { return redact.String(s.str()) }

// GoString returns the redacted form, so %#v hides the secret too.
func (s Secret) GoString() string { return redact.String(s.str()) }

// Format writes the redacted form for every fmt verb.
func (s Secret) Format(f fmt.State, verb rune) { redact.Format(f, verb, s.str()) }

// LogValue implements slog.LogValuer with the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redact.String(s.str())) }

// MarshalJSON writes the redacted form, so a configuration marshalled for a
// log never carries the secret. Store the value of Reveal instead.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redact.String(s.str())) }

// UnmarshalJSON parses a JSON string with ParseSecret, so a Secret can be a
// field of a configuration file. A redacted value does not parse.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: it must be a JSON string", ErrInvalidSecret)
	}
	p, err := ParseSecret(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}
