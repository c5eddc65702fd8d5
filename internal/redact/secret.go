package redact

import (
	"fmt"
	"log/slog"
	"unique"

	"github.com/go-json-experiment/json/jsontext"
)

// Secret holds a credential (a plugin secret key, a developer key, a
// webhook signing secret) so that nothing prints it: every way of printing
// it (fmt verbs, slog, JSON and text marshalling) gives its redacted form,
// String, and Reveal is the one way to the text. auth.SecretKey,
// auth.DeveloperKey and auth.WebhookSecret each hold one in an unexported
// field and forward their methods to it: one implementation, and each type
// still lists its methods in go doc (which does not show the methods of an
// embedded type of an internal package).
//
// The text sits behind a unique.Handle, which is a pointer: fmt, printing a
// struct that holds a Secret in an unexported field (where it cannot call
// the Secret's methods), shows an address, never the text. Handles of equal
// texts are equal, so Secrets, and the types that hold one, compare with ==
// by their text, as a *string would not. The zero Secret holds nothing.
type Secret struct{ h unique.Handle[string] }

// NewSecret returns a Secret holding s, which the caller has validated.
func NewSecret(s string) Secret { return Secret{unique.Make(s)} }

// Reveal returns the text, or "" for the zero Secret.
func (s Secret) Reveal() string {
	if s.IsZero() {
		return ""
	}
	return s.h.Value()
}

// IsZero reports whether s holds nothing.
func (s Secret) IsZero() bool { return s == Secret{} }

// String returns the redacted form, such as "ask_live_[REDACTED]", or "" for
// the zero Secret.
func (s Secret) String() string { return String(s.Reveal()) }

// Format writes the redacted form for every fmt verb.
func (s Secret) Format(f fmt.State, verb rune) { Format(f, verb, s.Reveal()) }

// LogValue is the redacted form, for slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the redacted form as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return jsontext.AppendQuote(nil, s.String()) }

// MarshalText writes the redacted form.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalJSON sets *dst to what parse makes of the JSON string b, for the
// UnmarshalJSON method of a type that holds a Secret; notString is its error
// when b is not a JSON string, and null leaves *dst as it is. parse's error
// is returned as it is.
func UnmarshalJSON[T any](b []byte, dst *T, parse func(string) (T, error), notString error) error {
	if string(b) == "null" {
		return nil // as encoding/json's Unmarshalers do: null leaves the value as it is
	}
	s, err := jsontext.AppendUnquote(nil, b)
	if err != nil {
		return notString
	}
	return UnmarshalText(s, dst, parse)
}

// UnmarshalText sets *dst to what parse makes of b, for the UnmarshalText
// method of a type that holds a Secret.
func UnmarshalText[T any](b []byte, dst *T, parse func(string) (T, error)) error {
	v, err := parse(string(b))
	if err == nil {
		*dst = v
	}
	return err
}
