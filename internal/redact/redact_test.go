package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestKnown protects the one redaction of secrets a caller holds: every
// occurrence of each is replaced by its redacted form, strings too short to
// be a secret are left alone (they would garble the text), and what is
// shaped like a credential is redacted too.
func TestKnown(t *testing.T) {
	got := Known("token opaque-123456 again opaque-123456, key ask_live_abc, short AQ==", "opaque-123456", "AQ==", "")
	want := "token " + Marker + " again " + Marker + ", key ask_live_" + Marker + ", short AQ=="
	if got != want {
		t.Errorf("Known = %q\nwant    %q", got, want)
	}
}

// TestWebhookSecretForms protects that each form a receiver may quote a
// signing secret in is redacted: whole, bare base64, unpadded base64.
func TestWebhookSecretForms(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	const key = "c2VjcmV0LWtleS1ieXRlcw=="
	for _, quoted := range []string{secret, "whsec_" + key, key, "c2VjcmV0LWtleS1ieXRlcw"} {
		s := "receiver said: " + quoted + "!"
		full := secret
		if quoted != secret {
			full = "whsec_" + key
		}
		if got := Known(s, WebhookSecretForms(full)...); strings.Contains(got, strings.TrimPrefix(quoted, "whsec_")) {
			t.Errorf("Known(%q) = %q: the secret is still there", s, got)
		}
	}
}

// TestCut protects that a cut never splits a character and reports itself.
func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s     string
		limit int
		want  string
		cut   bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aé", 2, "a", true}, // é is two bytes: not split
		{"éé", 3, "é", true},
		{"abc", 0, "", true},
		{"", 0, "", false},
	} {
		got, cut := Cut(tt.s, tt.limit)
		if got != tt.want || cut != tt.cut {
			t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", tt.s, tt.limit, got, cut, tt.want, tt.cut)
		}
	}
}

// Excerpt keeps what a reader needs of a peer's text and nothing that could
// leak or garble: secrets redacted before the cut, control characters but
// newline and tab blanked, valid UTF-8, at most limit bytes and "…" where
// anything was left out.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	for _, c := range []struct {
		name, in string
		limit    int
		more     bool
		want     string
	}{
		{"plain", "ok\n", 10, false, "ok\n"},
		{"controls", "a\x1b[31m\rb\tc\x00", 20, false, "a [31m b\tc "},
		{"secret before the cut", "key " + secret + " end", 12, false, "key whsec_[R…"},
		{"invalid UTF-8", "a\xffb", 10, false, "a\uFFFDb"},
		{"cut at a character", "ééé", 3, false, "é…"},
		{"more text after", "short", 10, true, "short…"},
	} {
		if got := Excerpt(c.in, c.limit, c.more, secret); got != c.want {
			t.Errorf("%s: Excerpt(%q, %d, %v) = %q, want %q", c.name, c.in, c.limit, c.more, got, c.want)
		}
	}
}

// Path shows the names of a path a peer sent only when they are short and
// plain, never a credential, and bounds the whole.
func TestPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		names []string
		limit int
		want  string
	}{
		{nil, 10, ""},
		{[]string{"data", "3", "created_on"}, 100, "/data/3/created_on"},
		{[]string{"user", "a b", "", strings.Repeat("n", 41)}, 100, "/user/<name>/<name>/<name>"},
		{[]string{"ask_live_c2VjcmV0LWtleQ"}, 100, "/ask_live_[REDACTED]"},
		{[]string{"abcdef", "ghijkl"}, 10, "/abcdef/gh…"},
	} {
		if got := Path(slices.Values(c.names), c.limit); got != c.want {
			t.Errorf("Path(%q, %d) = %q, want %q", c.names, c.limit, got, c.want)
		}
	}
}

// TestField protects the policy of a value kept in an error's field:
// redaction before the cut, escapes for control and invisible formatting
// characters, and a bound that never splits a character.
func TestField(t *testing.T) {
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
		got := Field(tt.in, tt.limit, cred)
		if got != tt.want {
			t.Errorf("%s: Field(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: %q is not valid UTF-8", tt.name, got)
		}
	}
}

// TestLine protects the policy of text put on one line: controls and
// invisible characters blanked, the spaces around trimmed, a credential the
// cut would split redacted whole, and an invalid byte early in a long text
// kept as U+FFFD.
func TestLine(t *testing.T) {
	t.Parallel()
	const limit = 512
	const cred = "opaque-token-0123456789abcdefghijklmnopqrstuvwxyz" // shaped like no known credential
	for _, pad := range []int{limit - 30, limit - 10, limit - 1} {
		body := strings.Repeat("x", pad) + " " + cred + " tail"
		got := Line([]byte(body), limit, cred)
		if strings.Contains(got, cred[:8]) || len(got) > limit+len("…") {
			t.Errorf("pad %d: Line = ...%q (%d bytes); want the credential redacted and at most %d bytes", pad, got[max(0, len(got)-40):], len(got), limit)
		}
	}
	body := "\r\n <h1>\xffBad\x1b[2J gateway\u202e</h1>" + strings.Repeat(" padding", 2000)
	if got := Line(body, limit); !strings.HasPrefix(got, "<h1>\uFFFDBad [2J gateway </h1>") || !strings.HasSuffix(got, "…") || len(got) > limit+len("…") {
		t.Errorf("Line of a long body with controls = %q (%d bytes)", got, len(got))
	}
	// Head is Line without the mark: an error's excerpt of a body.
	if got := Head(body, limit); !strings.HasPrefix(got, "<h1>\uFFFDBad [2J gateway </h1>") || strings.HasSuffix(got, "…") || len(got) > limit {
		t.Errorf("Head of a long body with controls = %q (%d bytes)", got, len(got))
	}
}

// TestQuote protects the policy of a refused value quoted in a message:
// Go-quoted, credentials redacted, and its length said when cut.
func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"text/html":                         `"text/html"`,
		"a\x1bb":                            `"a\x1bb"`,
		"key ask_live_abcdefghijklmnop":     `"key ask_li"… (29 bytes)`, // redacted before the cut
		strings.Repeat("é", 40):             `"` + strings.Repeat("é", 5) + `"… (80 bytes)`,
		"x" + strings.Repeat("y", 20) + ",": `"xyyyyyyyyy"… (22 bytes)`,
	} {
		if got := Quote(in, 10); got != want {
			t.Errorf("Quote(%q, 10) = %s, want %s", in, got, want)
		}
	}
}

// TestTextRedactsOtherSpellings protects issue 49's finding: a credential
// percent-encoded (as a URL's query carries it, "%2B" for "+", even its
// underscore as "%5F") or base64-encoded (HTTP Basic credentials, a blob)
// at any alignment is redacted whole: no character of its material is left.
func TestTextRedactsOtherSpellings(t *testing.T) {
	const material = "ab+cd/efGHijklMNopqrSTuvwxYZ0123456789AB="
	for _, key := range []string{"whsec_" + material, "dk_live_c2NyaWJlLWRlbW8", "ask_live_4eC39HqLyjWDarjtT1zdp7dc"} {
		forms := []string{url.QueryEscape(key), strings.ReplaceAll(url.QueryEscape(key), "_", "%5F"), url.PathEscape(key)}
		for pad := range 3 {
			blob := strings.Repeat("u", pad) + ":" + key
			forms = append(forms, base64.StdEncoding.EncodeToString([]byte(blob)), base64.RawURLEncoding.EncodeToString([]byte(blob)))
		}
		for _, form := range forms {
			got := Text("secret=" + form + " end")
			if strings.Count(got, Marker) != 1 || !strings.HasPrefix(got, "secret=") || !strings.HasSuffix(got, Marker+" end") {
				t.Errorf("Text(%q) = %q, want secret=<prefix>%s end", form, got, Marker)
			}
			rest := strings.TrimSuffix(strings.TrimPrefix(got, "secret="), Marker+" end") // the prefix kept, if any
			for i := len(rest) + 3; i+6 <= len(form); i++ {
				if strings.Contains(got, form[i:i+6]) {
					t.Errorf("Text(%q) = %q: %q of it is left", form, got, form[i:i+6])
				}
			}
		}
	}
	if got := Text("a plain base64 blob aGVsbG8gd29ybGQ= stays"); got != "a plain base64 blob aGVsbG8gd29ybGQ= stays" {
		t.Errorf("Text of a base64 blob holding no credential = %q, want it unchanged", got)
	}
}
