package state

import (
	"cmp"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/redact"
)

// FieldError says which field (such as "permissions.user") is wrong and why,
// as the fixture loader names it. Err, if not nil, is the error as the
// seeding calls word it: what Error says and Unwrap gives.
type FieldError struct {
	Field  string
	Reason string
	Err    error
}

func (e *FieldError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return e.Field + ": " + e.Reason
}

// Unwrap returns Err.
func (e *FieldError) Unwrap() error { return e.Err }

// missing is the error of a member (such as "plugin_id") naming no
// resource of its kind: "no plugin with id 5" to the loader, "plugin 5: not
// found" otherwise.
func missing(member, kind string, id int64) error {
	return &FieldError{member, fmt.Sprintf("no %s with id %d", kind, id), fmt.Errorf("%s %d: %w", kind, id, ErrNotFound)}
}

// MaxChosenID is the largest id a caller may choose: 2^53-1, exact as a double.
const MaxChosenID = 1<<53 - 1

// CheckChosenID checks an id a caller chose (0 asks for an assigned one).
func CheckChosenID(id int64) error {
	switch {
	case id < 0:
		return fmt.Errorf("ids are positive, got %d", id)
	case id > MaxChosenID:
		return fmt.Errorf("must be at most %d (2^53-1), got %d", int64(MaxChosenID), id)
	}
	return nil
}

// Limits of the members a developer chooses (api/openapi.yaml).
const (
	MaxPluginName  = 100
	MaxDescription = 1000
	MaxURI         = 2048
)

// OrNone reads a zero permission level as scribe.PermissionNone, as the seeding
// calls and fixtures do (POST /plugins refuses "" instead).
func OrNone(p scribe.Permissions) scribe.Permissions {
	return scribe.Permissions{User: cmp.Or(p.User, scribe.PermissionNone), Transcript: cmp.Or(p.Transcript, scribe.PermissionNone)}
}

// ValidatePlugin checks the members of a plugin a developer chooses.
func ValidatePlugin(p scribe.Plugin) error {
	if n := utf8.RuneCountInString(p.Name); n < 1 || n > MaxPluginName {
		return &FieldError{"name", fmt.Sprintf("must be 1 to %d characters, got %d", MaxPluginName, n), nil}
	}
	if n := utf8.RuneCountInString(p.Description); n > MaxDescription {
		return &FieldError{"description", fmt.Sprintf("must be at most %d characters, got %d", MaxDescription, n), nil}
	}
	for field, level := range map[string]scribe.Permission{"permissions.user": p.Permissions.User, "permissions.transcript": p.Permissions.Transcript} {
		if level != scribe.PermissionNone && level != scribe.PermissionRead {
			return &FieldError{field, fmt.Sprintf(`must be "none" or "read", got %s`, Excerpt(string(level))), nil}
		}
	}
	if p.LogoURI != "" {
		if err := ValidateHTTPURL(p.LogoURI); err != nil {
			return &FieldError{"logo_uri", err.Error(), nil}
		}
	}
	if p.CRMIntegrationID != nil && (*p.CRMIntegrationID <= 0 || *p.CRMIntegrationID > MaxChosenID) {
		return &FieldError{"crm_integration_id", fmt.Sprintf("must be an integer from 1 to %d, or null", int64(MaxChosenID)), nil}
	}
	return nil
}

// maxEmail is RFC 5321's path of 256 octets less its angle brackets.
const maxEmail = 254

// ValidateEmail checks the document's format: email (a bare addr-spec).
func ValidateEmail(s string) error {
	if len(s) > maxEmail {
		return fmt.Errorf("must be an e-mail address of at most %d characters, got %d", maxEmail, len(s))
	}
	bad := strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' })
	if a, err := mail.ParseAddress(s); bad || err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("must be an e-mail address such as ada@example.com (printable ASCII, no spaces), got %s", Excerpt(s))
	}
	return nil
}

// httpURL is api/openapi.yaml's HttpUrl pattern.
var httpURL = regexp.MustCompile(`^https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?([/?#][!-~]*)?$`)

// ValidateHTTPURL accepts api/openapi.yaml's HttpUrl of at most MaxURI
// bytes; user:password@ is refused, as it would be stored and listed.
func ValidateHTTPURL(s string) error {
	switch {
	case len(s) > MaxURI:
		return fmt.Errorf("must be at most %d bytes, got %d", MaxURI, len(s))
	case !httpURL.MatchString(s):
		const want = "must be an absolute http or https URL of visible ASCII with a host and without user:password@, such as https://example.com/hook"
		if u, err := url.Parse(s); err == nil && u.User != nil {
			return fmt.Errorf("%s; this one has userinfo before its host", want) // quoted, it would show the password
		}
		return fmt.Errorf("%s; got %s", want, Excerpt(s))
	}
	return nil
}

// maxExcerpt is how much of a refused value an error quotes.
const maxExcerpt = 64

// Excerpt quotes at most maxExcerpt bytes of a refused value, credentials
// redacted (redact.Quote).
func Excerpt(s string) string { return redact.Quote(s, maxExcerpt) }

// LooksLikeJWT reports whether token is verified as an installation JWT
// rather than looked up as a developer key: not dk_live_, two dots.
func LooksLikeJWT(token string) bool {
	return !strings.HasPrefix(token, auth.DeveloperKeyPrefix) && strings.Count(token, ".") == 2
}

// ValidUUID reports whether s is a UUID in the lower-case RFC 4122 text form.
func ValidUUID(s string) bool { return uuidForm.MatchString(s) }

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
