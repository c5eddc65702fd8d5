package keygen_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/keygen"
)

// TestKeys: each generator makes distinct credentials of the documented
// form, 32 random bytes after the prefix, that the type's parser accepted.
func TestKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix string
		enc    *base64.Encoding
		make   func() (string, error)
	}{
		{"ask_live_", base64.RawURLEncoding, func() (string, error) { k, err := keygen.SecretKey(); return k.Reveal(), err }},
		{"dk_live_", base64.RawURLEncoding, func() (string, error) { k, err := keygen.DeveloperKey(); return k.Reveal(), err }},
		{"whsec_", base64.StdEncoding, func() (string, error) { k, err := keygen.WebhookSecret(); return k.Reveal(), err }},
	} {
		a, err := tc.make()
		if err != nil {
			t.Fatalf("%s: %v", tc.prefix, err)
		}
		b, _ := tc.make()
		rest, ok := strings.CutPrefix(a, tc.prefix)
		if raw, err := tc.enc.DecodeString(rest); !ok || err != nil || len(raw) != 32 {
			t.Errorf("%s key: prefix %v, %d random bytes (%v); want the prefix and 32", tc.prefix, ok, len(raw), err)
		}
		if a == b {
			t.Errorf("%s: two keys are the same", tc.prefix)
		}
	}
}
