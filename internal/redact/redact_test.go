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

// TestTextScrubsCredentialShapes protects free-text scrubbing: every kind of
// credential inside a sentence is replaced, and the rest is kept.
func TestTextScrubsCredentialShapes(t *testing.T) {
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJpYXQiOjF9.c2lnbmF0dXJl"
	in := "key ask_live_QUJD-_x, dev dk_live_abc123, hook whsec_MfKQ9r8G+/==, token " + jwt + "; done"
	want := "key ask_live_" + Marker + ", dev dk_live_" + Marker + ", hook whsec_" + Marker + ", token " + Marker + "; done"
	if got := Text(in); got != want {
		t.Errorf("Text() =\n%q\nwant\n%q", got, want)
	}
	if got := Text("ask_live_" + Marker); got != "ask_live_"+Marker {
		t.Errorf("Text of an already redacted value = %q; want it unchanged", got)
	}
}

// TestTextRedactsServiceStyleKeys protects that a secret key with
// punctuation in its material (the service promises only the ask_live_
// prefix) is redacted whole, not cut at the first character outside base64.
func TestTextRedactsServiceStyleKeys(t *testing.T) {
	for _, key := range []string{
		"ask_live_4eC39HqLyjWDarjtT1zdp7dc",
		"ask_live_ab.cd!ef#gh",
		"ask_live_x:y;z[1]{2#",
	} {
		got := Text("key " + key + " refused, \"" + key + "\".")
		if strings.Contains(got, key[len("ask_live_"):]) || got != "key ask_live_"+Marker+" refused, \"ask_live_"+Marker+"\"." {
			t.Errorf("Text(%q) = %q, want the whole key material redacted and the quote and period after it kept", key, got)
		}
	}
}
