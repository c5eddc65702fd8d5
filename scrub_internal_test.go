package scribe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestScrubField protects the three steps of scrubbing a field the service
// sent: redaction before the cut, escapes for control and invisible
// formatting characters, and a bound that never splits a character.
func TestScrubField(t *testing.T) {
	t.Parallel()
	const cred = "tok.en.value-1234"
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"plain", "not found", 64, "not found"},
		{"empty", "", 64, ""},
		{"ANSI and CR LF", "a\x1b[31mb\r\nc", 64, `a\x1b[31mb\r\nc`},
		{"BEL, DEL and C1", "a\x07b\x7fc\u0085d", 64, `a\ab\x7fc\u0085d`},
		{"bidi override and line separator", "x\u202ey\u2028z", 64, `x\u202ey\u2028z`},
		{"zero-width space", "a\u200bb", 64, `a\u200bb`},
		{"invalid UTF-8", "a\xffb", 64, "a\uFFFDb"},
		{"own credential", "bad token " + cred, 64, "bad token [REDACTED]"},
		{"credential-shaped", "key ask_live_abcdefghijklmnop", 64, "key ask_live_[REDACTED]"},
		{"redacted before the cut", strings.Repeat("x", 10) + cred, 14, strings.Repeat("x", 10) + "[RED…"},
		{"cut at a character boundary", strings.Repeat("é", 10), 5, "éé…"},
	}
	for _, tt := range tests {
		got := scrubField(tt.in, cred, tt.limit)
		if got != tt.want {
			t.Errorf("%s: scrubField(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: %q is not valid UTF-8", tt.name, got)
		}
	}
}

// TestExcerptRedactsBeforeTheCut protects Error.Body: a credential that the
// 512-byte cut would split is redacted whole, not shown in part; an invalid
// byte early in a long body does not empty the excerpt.
func TestExcerptRedactsBeforeTheCut(t *testing.T) {
	t.Parallel()
	const cred = "opaque-token-0123456789abcdefghijklmnopqrstuvwxyz" // shaped like no known credential
	for _, pad := range []int{maxErrorExcerpt - 30, maxErrorExcerpt - 10, maxErrorExcerpt - 1} {
		body := strings.Repeat("x", pad) + " " + cred + " tail"
		got := excerpt([]byte(body), cred, maxErrorExcerpt)
		if strings.Contains(got, cred[:8]) || len(got) > maxErrorExcerpt {
			t.Errorf("pad %d: excerpt = ...%q (%d bytes); want the credential redacted and at most %d bytes", pad, got[max(0, len(got)-40):], len(got), maxErrorExcerpt)
		}
	}
	body := "<h1>\xffBad gateway</h1>" + strings.Repeat(" padding", 100)
	if got := excerpt([]byte(body), "", maxErrorExcerpt); !strings.HasPrefix(got, "<h1>\uFFFDBad gateway</h1>") || len(got) > maxErrorExcerpt {
		t.Errorf("excerpt of a long body with an invalid byte = %q (%d bytes)", got, len(got))
	}
}
