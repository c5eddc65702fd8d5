package scribe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/scribehq/scribe-go/internal/redact"
)

// What the service (or whatever answered in its place) sends is made fit to
// print before an error or a log line holds it: credentials redacted,
// control and invisible characters escaped, every field bounded.

// scrub removes credentials from text taken from a response: the one the
// request carried, and anything shaped like one.
func scrub(s, credential string) string { return redact.Known(s, credential) }

// scrubField makes a value the service sent fit to print: the request's own
// credential and anything shaped like a credential redacted, control and
// invisible formatting characters escaped, invalid UTF-8 replaced, and the
// result cut to at most limit bytes (plus "…").
func scrubField(s, credential string, limit int) string {
	if s == "" {
		return s
	}
	s, cutShort := redact.Cut(escapeControls(scrub(s, credential)), limit)
	if cutShort {
		s += "…"
	}
	return s
}

// escapeControls returns s with every control character (C0, DEL, C1) and
// every invisible formatting character (bidirectional overrides, zero-width
// characters, line and paragraph separators) written as a Go escape, such as
// \x1b or \u202e, and invalid UTF-8 replaced by U+FFFD.
func escapeControls(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if needsEscape(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// excerpt returns at most limit bytes of b as valid, printable text, with
// credential and anything shaped like a credential redacted before the cut:
// a credential the cut would split is redacted whole, not shown in part.
// The window scrubbed reaches 8 KiB past the cut, so that it holds whole
// any credential that begins within the excerpt.
func excerpt(b []byte, credential string, limit int) string {
	s := scrub(strings.ToValidUTF8(string(b[:min(len(b), limit+max(len(credential), 8<<10))]), "\uFFFD"), credential)
	s, _ = redact.Cut(s, limit)
	return escapeControls(strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)))
}
