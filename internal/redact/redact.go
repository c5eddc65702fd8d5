// Package redact renders secrets safely: the well-known prefix of a credential
// (which says what kind of secret it is) followed by a fixed marker, never the
// secret material itself. Every secret type of the SDK formats through here so
// that fmt, slog and JSON output all agree.
package redact

import (
	"fmt"
	"iter"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Marker stands in place of secret material.
const Marker = "[REDACTED]"

// knownPrefixes are the public, non-secret prefixes of the platform's credentials.
var knownPrefixes = []string{"ask_live_", "dk_live_", "whsec_"}

// credentialPattern matches text shaped like a credential: a known prefix
// followed by key material, or the three base64url segments of a JWT (whose
// header always begins "eyJ", the encoding of `{"`). A secret key's material
// is any printable, non-space ASCII (docs/contract.md, "Tokens": the service promises only
// the prefix), so after "ask_live_" everything up to a space or a control
// character is redacted, punctuation included, except a trailing run of
// sentence punctuation (such as the comma or the closing quote after a key
// quoted in a message), which Text gives back: it reveals at most those few
// characters of a key that happens to end with them.
var credentialPattern = regexp.MustCompile(`ask_live_[!-~]+|(?:` + prefixAlternatives() + `)[A-Za-z0-9_\-+/=]+|eyJ[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*`)

func prefixAlternatives() string {
	quoted := make([]string, len(knownPrefixes))
	for i, p := range knownPrefixes {
		quoted[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(quoted, "|")
}

// Text returns s with everything shaped like a credential replaced by its
// redacted form. It is for free text a secret may have reached, such as an
// error body the service echoed or a validator's message quoting a value.
func Text(s string) string { return credentialPattern.ReplaceAllStringFunc(s, redactMatch) }

// trailingPunctuation is given back after a secret key's redacted form.
const trailingPunctuation = `.,;:!?)]}>"'` + "`"

func redactMatch(m string) string {
	if !strings.HasPrefix(m, "ask_live_") {
		return String(m)
	}
	if tail, ok := strings.CutPrefix(m, "ask_live_"+Marker); ok && strings.Trim(tail, trailingPunctuation) == "" {
		return m // already redacted
	}
	key := strings.TrimRight(m, trailingPunctuation)
	if len(key) == len("ask_live_") { // nothing but punctuation after the prefix
		return m
	}
	return String(key) + m[len(key):]
}

// String returns the redacted form of s: its known prefix, if any, followed by
// Marker. An empty secret renders as the empty string so that "unset" stays visible.
func String(s string) string {
	if s == "" {
		return ""
	}
	for _, p := range knownPrefixes {
		if strings.HasPrefix(s, p) {
			return p + Marker
		}
	}
	return Marker
}

// Format writes the redacted form of s for any fmt verb, so %s, %v, %+v, %#v,
// %q and %x all hide the secret.
func Format(f fmt.State, verb rune, s string) {
	r := String(s)
	switch verb {
	case 'q':
		fmt.Fprintf(f, "%q", r)
	default:
		_, _ = f.Write([]byte(r))
	}
}

// MinKnownLen is the shortest secret Known replaces: a shorter string is no
// real secret, and replacing it would garble unrelated text.
const MinKnownLen = 8

// Known returns s with every occurrence of each of the given secrets (those
// of at least MinKnownLen bytes) replaced by its redacted form, then
// everything else shaped like a credential (Text). It is for free text that
// may quote a secret the caller holds, in forms Text cannot recognise (an
// opaque token, a key's bare base64).
func Known(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= MinKnownLen {
			s = strings.ReplaceAll(s, k, String(k))
		}
	}
	return Text(s)
}

// WebhookSecretForms returns the texts a webhook signing secret may be
// quoted as: the secret itself ("whsec_" + base64 of the key), the key's
// base64 without the prefix, and that base64 without its padding.
func WebhookSecretForms(secret string) []string {
	bare := strings.TrimPrefix(secret, "whsec_")
	return []string{secret, bare, strings.TrimRight(bare, "=")}
}

// Cut returns s cut to at most limit bytes at a UTF-8 character boundary,
// and whether anything was cut. It never splits a character.
func Cut(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	i := max(limit, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// Excerpt returns the start of s, text a peer sent (a webhook receiver's
// answer, say), fit to print or keep: invalid UTF-8 replaced by U+FFFD, each
// of secrets and anything shaped like a credential redacted before the cut,
// control characters other than newline and tab replaced by spaces, and at
// most limit bytes, cut at a character boundary. "…" marks a cut, or more
// text after s that the caller did not pass (more).
func Excerpt(s string, limit int, more bool, secrets ...string) string {
	s = Known(strings.ToValidUTF8(s, "\uFFFD"), secrets...)
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s, cut := Cut(s, limit)
	if cut || more {
		s += "…"
	}
	return s
}

// maxPathName is the longest name Path repeats.
const maxPathName = 40

// Path returns names, the segments of a path a peer sent (the member names
// of a JSON pointer, say), as "/a/b", fit to print: a name that is not
// short and plain (letters, digits, '_', '-', '.') is shown as "<name>",
// anything shaped like a credential is redacted (Text), and the whole is
// cut at limit bytes, with "…".
func Path(names iter.Seq[string], limit int) string {
	var b strings.Builder
	for n := range names {
		if n == "" || len(n) > maxPathName || strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
			n = "<name>"
		}
		b.WriteString("/" + n)
	}
	s, cut := Cut(Text(b.String()), limit)
	if cut {
		s += "…"
	}
	return s
}
