package scribe

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/scribehq/scribe-go/internal/redact"
)

// Secret holds secret material returned by the service, such as the value of
// a new plugin secret key or a webhook's signing secret. Every way of printing
// it (fmt verbs, slog, JSON marshalling) shows a redacted form; call Reveal to
// get the material itself.
type Secret string

// Reveal returns the secret material. Pass it only where it is needed (to
// package auth, or to a secret store), never to a log.
func (s Secret) Reveal() string { return string(s) }

// String returns the redacted form, such as "ask_live_[REDACTED]".
func (s Secret) String() string { return redact.String(string(s)) }

// GoString returns the redacted form, so %#v hides the secret too.
func (s Secret) GoString() string { return redact.String(string(s)) }

// Format writes the redacted form for every fmt verb.
func (s Secret) Format(f fmt.State, verb rune) { redact.Format(f, verb, string(s)) }

// LogValue implements slog.LogValuer with the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redact.String(string(s))) }

// MarshalJSON writes the redacted form, so a resource marshalled for a log or
// a cache never carries the secret. Store the value of Reveal instead.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redact.String(string(s))) }

// UnmarshalJSON reads the secret material from a JSON string.
func (s *Secret) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("scribe: secret must be a JSON string: %w", err)
	}
	*s = Secret(v)
	return nil
}
