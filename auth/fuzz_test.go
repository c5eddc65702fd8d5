package auth_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/auth"
)

// FuzzParseSecretKey's committed corpus (testdata/fuzz/...) holds secret
// keys of every refused and accepted kind. Run it with:
//
//	go test ./auth -run '^$' -fuzz FuzzParseSecretKey -fuzztime 30s

// FuzzParseSecretKey checks ParseSecretKey against the grammar, written
// independently here: "ask_live_" and one or more bytes from '!' to '~', not
// holding the redaction marker. An accepted key reveals exactly the input and
// prints redacted; a refusal is ErrInvalidKey and never quotes the input.
func FuzzParseSecretKey(f *testing.F) {
	for _, s := range []string{goldenKey, "ask_live_4eC39HqLyjWDarjtT1zdp7dc", "ask_live_", "", "ask_live_ x",
		"ask_live_x\n", "ask_live_\x7f", "ask_live_\u00e9", "dk_live_abc", "ask_live_[REDACTED]", "ask_live_!~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := auth.ParseSecretKey(s)
		rest, prefixed := strings.CutPrefix(s, auth.SecretKeyPrefix)
		want := prefixed && rest != "" && !strings.Contains(rest, "[REDACTED]")
		for i := 0; want && i < len(rest); i++ {
			want = '!' <= rest[i] && rest[i] <= '~'
		}
		if want != (err == nil) {
			t.Fatalf("ParseSecretKey(%q) error = %v; the grammar says valid = %v", s, err, want)
		}
		if err == nil {
			if k.Reveal() != s {
				t.Fatalf("Reveal() = %q, want %q", k.Reveal(), s)
			}
			const r = "ask_live_[REDACTED]"
			if out, want := fmt.Sprintf("%v %s %q %+v %#v %x", k, k, k, k, k, k), r+" "+r+` "`+r+`" `+r+" "+r+" "+r; out != want {
				t.Fatalf("a printed key shows %s, want %s", out, want)
			}
			return
		}
		if !errors.Is(err, auth.ErrInvalidKey) || !k.IsZero() {
			t.Fatalf("ParseSecretKey(%q) = %v, %v; want a zero key and ErrInvalidKey", s, k, err)
		}
		if prefixed && len(rest) >= 8 && !strings.Contains(rest, "[REDACTED]") && strings.Contains(err.Error(), rest) {
			t.Fatalf("error %q quotes the key", err)
		}
	})
}
