package redact

import (
	"fmt"
	"strings"
	"testing"
)

type secret string

func (s secret) Format(f fmt.State, verb rune) { Format(f, verb, string(s)) }

// TestFormatNeverLeaks protects the rule that no fmt verb prints secret material.
func TestFormatNeverLeaks(t *testing.T) {
	const material = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	for _, raw := range []string{"ask_live_" + material, "dk_live_" + material, "whsec_" + material, material} {
		s := secret(raw)
		for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10s"} {
			out := fmt.Sprintf(verb, s)
			if strings.Contains(out, material) {
				t.Errorf("Sprintf(%q) = %q: leaks the secret", verb, out)
			}
			if !strings.Contains(out, Marker) {
				t.Errorf("Sprintf(%q) = %q: want the redaction marker", verb, out)
			}
		}
	}
}

func TestStringKeepsOnlyPrefix(t *testing.T) {
	cases := map[string]string{
		"":               "",
		"ask_live_abc":   "ask_live_" + Marker,
		"dk_live_abc":    "dk_live_" + Marker,
		"whsec_abc":      "whsec_" + Marker,
		"eyJhbGciOi.x.y": Marker,
	}
	for in, want := range cases {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
