package scribe_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go"
)

const material = "ask_live_Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg"

// holder keeps a Secret in an unexported field, where fmt cannot call the
// Secret's own methods.
type holder struct {
	name   string
	secret scribe.Secret
}

// TestSecretNeverPrints protects the rule that secret material never reaches
// fmt, slog or JSON output, whether the Secret is printed itself, as an
// exported field of a resource, or from an unexported field.
func TestSecretNeverPrints(t *testing.T) {
	s := scribe.NewSecret(material)
	key := scribe.PluginSecretKey{ID: 1, Value: s}
	h := holder{name: "h", secret: s}
	values := map[string]any{"secret": s, "resource": key, "&resource": &key, "unexported": h, "&unexported": &h}
	for name, v := range values {
		for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%d"} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, material) || strings.Contains(out, material[9:]) {
				t.Errorf("%s with %s leaks: %s", name, verb, out)
			}
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "v", v)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "v", v)
		if strings.Contains(buf.String(), material[9:]) {
			t.Errorf("%s leaks through slog: %s", name, buf.String())
		}
	}
	b, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), material[9:]) || !strings.Contains(string(b), `"ask_live_[REDACTED]"`) {
		t.Errorf("json.Marshal = %s, want the value redacted", b)
	}
}

// TestSecretDecodesAndReveals protects that a decoded response keeps the
// material for Reveal, and that the zero Secret is empty.
func TestSecretDecodesAndReveals(t *testing.T) {
	var key scribe.PluginSecretKey
	if err := json.Unmarshal([]byte(`{"value":"`+material+`"}`), &key); err != nil {
		t.Fatal(err)
	}
	if got := key.Value.Reveal(); got != material {
		t.Errorf("Reveal() = %q, want the decoded material", got)
	}
	if !key.Value.Equal(scribe.NewSecret(material)) {
		t.Error("Equal: a decoded secret differs from NewSecret of the same material")
	}
	var zero scribe.Secret
	if !zero.IsZero() || zero.Reveal() != "" || scribe.NewSecret("") != zero {
		t.Error("the zero Secret must be empty, and NewSecret(\"\") must be the zero Secret")
	}
	if err := json.Unmarshal([]byte(`{"value":42}`), &key); err == nil {
		t.Error("a non-string secret decoded without error")
	}
}
