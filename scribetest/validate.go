package scribetest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/mail"
	"net/url"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
)

// fieldError says which field of a request body or a fixture is wrong and
// why. Field is a path such as "permissions.user" or "plugins[0].user_id".
type fieldError struct {
	Field  string
	Reason string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Reason }

// maxChosenID is the largest id a caller may choose for a new resource, in
// fixtures or a seeding call: 2^53-1, the largest integer a JSON reader
// that reads numbers as doubles (JavaScript's, jq) keeps exact. Ids the
// server assigns follow the largest one taken, so they stay far from the
// top of int64: reaching it would take 2^63-2^53 creations. An id near
// math.MaxInt64 would make the next assigned id wrap to a negative one.
const maxChosenID = 1<<53 - 1

// checkChosenID checks an id a caller chose (0 asks for an assigned one).
func checkChosenID(id int64) error {
	switch {
	case id < 0:
		return fmt.Errorf("ids are positive, got %d", id)
	case id > maxChosenID:
		return fmt.Errorf("must be at most %d (2^53-1), got %d", int64(maxChosenID), id)
	}
	return nil
}

// maxPluginName is the longest plugin name, in characters (CONTRACT §2).
const maxPluginName = 100

// validatePlugin checks the fields a developer chooses.
func validatePlugin(p scribe.Plugin) error {
	if n := utf8.RuneCountInString(p.Name); n < 1 || n > maxPluginName {
		return &fieldError{"name", fmt.Sprintf("must be 1 to %d characters, got %d", maxPluginName, n)}
	}
	if err := validatePermission("permissions.user", p.Permissions.User); err != nil {
		return err
	}
	if err := validatePermission("permissions.transcript", p.Permissions.Transcript); err != nil {
		return err
	}
	if p.LogoURI != "" {
		if err := validateHTTPURL(p.LogoURI); err != nil {
			return &fieldError{"logo_uri", err.Error()}
		}
	}
	if p.CRMIntegrationID != nil && *p.CRMIntegrationID <= 0 {
		return &fieldError{"crm_integration_id", "must be a positive integer or null"}
	}
	return nil
}

func validatePermission(field string, p scribe.Permission) error {
	if p != scribe.PermissionNone && p != scribe.PermissionRead {
		return &fieldError{field, fmt.Sprintf(`must be "none" or "read", got %q`, p)}
	}
	return nil
}

// maxEmail is the longest e-mail address (RFC 5321 §4.5.3.1.3's path of
// 256 octets, less its angle brackets).
const maxEmail = 254

// validateEmail checks an email_address against the document's format:
// email: a bare addr-spec (RFC 5322, as net/mail parses it) of printable
// ASCII, such as ada@example.com; no display name, no angle brackets, not
// empty.
func validateEmail(s string) error {
	if len(s) > maxEmail {
		return fmt.Errorf("must be an e-mail address of at most %d characters, got %d", maxEmail, len(s))
	}
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("must be an e-mail address such as ada@example.com (printable ASCII, no spaces), got %q", s)
		}
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("must be an e-mail address such as ada@example.com, got %q", s)
	}
	return nil
}

// generatedEmail is the address of a user created without one.
func generatedEmail(id int64) string { return fmt.Sprintf("user%d@example.com", id) }

// validateHTTPURL accepts an absolute http or https URL with a host.
func validateHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL, got %q", s)
	}
	return nil
}

// newUUID returns a random (version 4) UUID in its RFC 4122 text form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])  // never fails (crypto/rand, Go 1.24+)
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// validUUID reports whether s is a UUID in the lower-case RFC 4122 text form
// (8-4-4-4-12 hex digits), which is how the server writes and compares them.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
