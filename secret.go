package scribe

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"unique"

	"github.com/scribehq/scribe-go/internal/redact"
)

// Secret holds secret material returned by the service, such as the value of
// a new plugin secret key or a webhook's signing secret. Every way of printing
// it (fmt verbs, slog, JSON marshalling) shows a redacted form, even when the
// Secret sits in an unexported field of another struct; call Reveal to get
// the material itself.
//
// The zero Secret holds nothing. Secrets compare with == and Equal.
type Secret struct {
	// A handle is a pointer to the string: fmt prints a nested pointer as an
	// address, so the material cannot leak through reflection on a struct
	// that holds the Secret in an unexported field.
	h unique.Handle[string]
}

// NewSecret returns a Secret holding material. It is for tests and for code
// that builds resources itself (such as the reference server); secrets
// normally arrive decoded from the service's responses.
func NewSecret(material string) Secret {
	if material == "" {
		return Secret{}
	}
	return Secret{unique.Make(material)}
}

// Reveal returns the secret material. Pass it only where it is needed (to
// package auth or webhook, or to a secret store), never to a log.
func (s Secret) Reveal() string {
	if s.IsZero() {
		return ""
	}
	return s.h.Value()
}

// IsZero reports whether s holds no material.
func (s Secret) IsZero() bool { return s == Secret{} }

// Equal reports whether s and o hold the same material.
func (s Secret) Equal(o Secret) bool { return s == o }

// String returns the redacted form, such as "ask_live_[REDACTED]".
func (s Secret) String() string { return redact.String(s.Reveal()) }

// GoString returns the redacted form, so %#v hides the secret too.
func (s Secret) GoString() string { return redact.String(s.Reveal()) }

// Format writes the redacted form for every fmt verb.
func (s Secret) Format(f fmt.State, verb rune) { redact.Format(f, verb, s.Reveal()) }

// LogValue implements slog.LogValuer with the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redact.String(s.Reveal())) }

// MarshalJSON writes the redacted form, so a resource marshalled for a log or
// a cache never carries the secret. Store the value of Reveal instead.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redact.String(s.Reveal())) }

// UnmarshalJSON reads the secret material from a JSON string.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("scribe: a secret must be a JSON string: %w", err)
	}
	*s = NewSecret(v)
	return nil
}
