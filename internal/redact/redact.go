// Package redact is the module's one sanitizer. It renders secrets safely:
// the well-known prefix of a credential (which says what kind of secret it
// is) followed by a fixed marker, never the secret material itself; every
// secret type of the SDK holds a Secret, so that fmt, slog and JSON output
// all agree. And it makes text a peer sent fit to print or keep, by a policy
// named at each call for what the text becomes: Field (an error's field:
// controls escaped), Line and Head (one line: controls blanked), Excerpt (a
// peer's text as written: newlines kept), Quote (a refused value in a
// message), Path (the member names of a JSON pointer); Text and Known only
// redact.
package redact

import (
	"encoding/base64"
	"fmt"
	"iter"
	"net/url"
	"regexp"
	"strconv"
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
// is any printable, non-space ASCII (docs/contract.md, "Resources": the service promises only
// the prefix), so after "ask_live_" everything up to a space or a control
// character is redacted, punctuation included, except a trailing run of
// sentence punctuation (such as the comma or the closing quote after a key
// quoted in a message), which Text gives back: it reveals at most those few
// characters of a key that happens to end with them.
//
// Its other spellings are redacted whole too, so that no part of the secret
// is left under a label that looks redacted: percent-encoded (a key in a
// URL's query, "whsec_ab%2Bcd%3D", its underscores as %5F even), and a
// base64 run holding the encoding of a known prefix at any of the three
// alignments (a key inside HTTP Basic credentials or a base64 blob).
var credentialPattern = regexp.MustCompile(`ask` + underscore + `live` + underscore + `[!-~]+|(?:` + prefixAlternatives() + `)(?:[A-Za-z0-9_\-+/=]|%[0-9A-Fa-f]{2})+|eyJ[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]*|` +
	`[A-Za-z0-9+/_\-]*(?:` + strings.Join(base64Fragments(), "|") + `)[A-Za-z0-9+/_\-]*(?:%3[Dd]|=)*`)

// underscore matches "_" and its percent-encoding.
const underscore = `(?:_|%5[Ff])`

func prefixAlternatives() string {
	quoted := make([]string, len(knownPrefixes))
	for i, p := range knownPrefixes {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), "_", underscore)
	}
	return strings.Join(quoted, "|")
}

// base64Fragments returns, for each known prefix and each of the three
// byte offsets it may start at in encoded data, the base64 characters
// (standard and URL alphabets) that encode bytes of the prefix alone.
func base64Fragments() []string {
	var out []string
	for _, p := range knownPrefixes {
		for k := range 3 {
			enc := base64.StdEncoding.EncodeToString(append(make([]byte, k), p...))
			first, end := (8*k+5)/6, 8*(k+len(p))/6 // characters wholly inside the prefix's bits
			frag := enc[first:end]
			out = append(out, regexp.QuoteMeta(frag))
			if url := strings.NewReplacer("+", "-", "/", "_").Replace(frag); url != frag {
				out = append(out, regexp.QuoteMeta(url))
			}
		}
	}
	return out
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
// base64 without the prefix, and that base64 without its padding, each
// also percent-encoded (as a URL's query carries it).
func WebhookSecretForms(secret string) []string {
	bare := strings.TrimPrefix(secret, "whsec_")
	forms := []string{secret, bare, strings.TrimRight(bare, "=")}
	for _, f := range forms[:2] {
		if q := url.QueryEscape(f); q != f {
			forms = append(forms, q)
		}
	}
	return forms
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

// Text a peer sent (a server's answer, a receiver's, an error's message that
// may quote either) is made fit to print or keep by one of the policies
// below, named at each call for what the text becomes. Each replaces invalid
// UTF-8 by U+FFFD, redacts the secrets the caller holds and anything shaped
// like a credential before anything is cut (a credential the cut would
// split is redacted whole), treats the control characters (C0, DEL, C1) and
// the invisible formatting characters (bidirectional overrides, zero-width
// characters, line and paragraph separators) as its name says, and cuts at
// a character boundary.

// Field returns s for a field of an error that the caller keeps (an Error's
// Detail, a request id): control and invisible characters written as Go
// escapes (\x1b, \r, \u202e), so the reader sees exactly what came; at most
// limit bytes, escapes included, and "…" where anything was cut.
func Field[S ~string | ~[]byte](s S, limit int, secrets ...string) string {
	return marked(sanitize(s, limit, secrets, func(b *strings.Builder, r rune) {
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}))
}

// Line returns s for one line of a log record or of a message (an error a
// handler logs, the start of a body that was not JSON): control and
// invisible characters replaced by spaces, so nothing forges a line or
// rewrites the terminal, and the spaces around trimmed; at most limit bytes
// and "…" where anything was cut.
func Line[S ~string | ~[]byte](s S, limit int, secrets ...string) string {
	return strings.TrimSpace(marked(sanitize(s, limit, secrets, blank)))
}

// Head returns the start of s, a body a peer sent, on one line as Line does
// but without a mark: for the excerpt of a body an error keeps, which says
// it is one.
func Head[S ~string | ~[]byte](s S, limit int, secrets ...string) string {
	line, _ := sanitize(s, limit, secrets, blank)
	return strings.TrimSpace(line)
}

func blank(b *strings.Builder, _ rune) { b.WriteByte(' ') }

// Excerpt returns the start of s, text a peer sent as text (a webhook
// receiver's answer, say), to show as it was written: control and invisible
// characters but newline and tab replaced by spaces; at most limit bytes.
// "…" marks a cut, or more text after s that the caller did not pass (more).
func Excerpt[S ~string | ~[]byte](s S, limit int, more bool, secrets ...string) string {
	text, cut := sanitize(s, limit, secrets, func(b *strings.Builder, r rune) {
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	})
	return marked(text, cut || more)
}

// Quote returns s, a value a request or a document gave and that is being
// refused, quoted for an error message (Go syntax, control characters
// escaped), credentials redacted, at most limit bytes of it, with its length
// when it was cut.
func Quote(s string, limit int) string {
	cut, short := Cut(Text(s), limit)
	if short {
		return strconv.Quote(cut) + "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.Quote(cut)
}

// window is how far past its limit a policy reads s: room for any secret
// that begins within the limit to be redacted whole, without scanning a
// megabyte body to show 64 bytes of it.
const window = 8 << 10

// sanitize is what the policies share: s, at most limit bytes of it, with
// every control and invisible character written by control; and whether
// anything was left out.
func sanitize[S ~string | ~[]byte](text S, limit int, secrets []string, control func(b *strings.Builder, r rune)) (string, bool) {
	reach := limit + window
	for _, k := range secrets {
		reach = max(reach, limit+len(k))
	}
	more := len(text) > reach
	s := Known(strings.ToValidUTF8(string(text[:min(len(text), reach)]), "\uFFFD"), secrets...)
	if strings.ContainsFunc(s, invisible) {
		var b strings.Builder
		b.Grow(len(s) + 8)
		for _, r := range s {
			if invisible(r) {
				control(&b, r)
			} else {
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	s, cut := Cut(s, limit)
	return s, cut || more
}

// invisible reports whether r is a control character or one that changes
// how text around it shows without showing itself.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

func marked(s string, cut bool) string {
	if cut {
		return s + "…"
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
