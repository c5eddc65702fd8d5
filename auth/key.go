package auth

import (
	"crypto/rand"
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

// minSecretBytes is how much random material the keys NewSecretKey and
// NewDeveloperKey generate: RFC 7518 section 3.2 asks for a key of at least
// 256 bits for HS256.
const minSecretBytes = 32

// ErrInvalidKey is matched by errors.Is for every error about the form of a
// secret key or developer key.
var ErrInvalidKey = errors.New("invalid key")

// keyError says what is wrong with a key without ever quoting it.
func keyError(kind, problem string) error {
	return fmt.Errorf("auth: %w: %s %s", ErrInvalidKey, kind, problem)
}

// redactedProblem is the error of a key that holds the redaction marker: what
// printing or marshalling a key gives, which carries no secret.
const redactedProblem = "is the redacted placeholder " + redact.Marker + ", which is what printing or marshalling a key gives; pass the key itself (Reveal() where it was stored)"

// A key holds its text in a redact.Secret, the one implementation of every
// key and secret type of the SDK: fmt, even printing a struct that holds a
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

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// NewSecretKey returns a fresh random secret key: "ask_live_" followed by 32
// bytes from crypto/rand in URL-safe base64. Servers and tests use it; a
// plugin gets its keys from the service (POST /plugins/{id}/secret_keys).
func NewSecretKey() (SecretKey, error) {
	s, err := randomKey(SecretKeyPrefix)
	if err != nil {
		return SecretKey{}, err
	}
	return SecretKey{redact.NewSecret(s)}, nil
}

func randomKey(prefix string) (string, error) {
	var b [minSecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: reading random bytes for a new key: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
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

// NewDeveloperKey returns a fresh random developer key: "dk_live_" followed by
// 32 bytes from crypto/rand in URL-safe base64. Servers and tests use it.
func NewDeveloperKey() (DeveloperKey, error) {
	s, err := randomKey(DeveloperKeyPrefix)
	if err != nil {
		return DeveloperKey{}, err
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
