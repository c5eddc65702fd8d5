package scribetest

import (
	"strconv"
	"strings"
	"unicode/utf8"

	scribe "github.com/scribehq/scribe-go"
)

// decodeCreatePlugin decodes the body of POST /plugins exactly as
// decodeBody does: the same struct on success, the same 400 otherwise.
//
// Most bodies are what a client's encoder writes: one object of the known
// members, strings without escapes, an integer or null for
// crm_integration_id. quickCreatePlugin decodes those in one pass without
// reflection (encoding/json's was most of a POST's cost); anything else it
// declines, untouched in meaning, and decodeBody (strict.go's checks and
// encoding/json) decides, with its messages. FuzzQuickCreatePlugin holds
// the quick path to decodeBody's result on every body it accepts.
func decodeCreatePlugin(body []byte, b *createPluginBody) *problem {
	if quickCreatePlugin(body, b) {
		return nil
	}
	// The strict decoder takes an interface, so what it decodes into is on
	// the heap: a variable of its own, allocated only on this slow path, so
	// that b (the caller's, on the stack) does not escape.
	strict := new(createPluginBody)
	p := decodeBody(body, strict)
	*b = *strict
	return p
}

// quickCreatePlugin decodes body into b and reports true if body is one
// JSON object of createPluginBody's members, each at most once, whose
// strings are valid UTF-8 without escapes or control characters and whose
// crm_integration_id is null or an integer in int64 (no fraction or
// exponent). On false, b holds partial results: the caller starts over.
func quickCreatePlugin(body []byte, b *createPluginBody) bool {
	d := quickDecoder{data: body}
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return d.end()
	}
	var seen [5]bool
	var name, desc, logo []byte // aliasing body until the end
	// What b's pointers point to, in one allocation, made when the first
	// of them is needed.
	var held *quickHeld
	hold := func() *quickHeld {
		if held == nil {
			held = new(quickHeld)
		}
		return held
	}
	for {
		member, ok := d.str()
		if !ok || !d.byte(':') {
			return false
		}
		var field int
		switch string(member) {
		case "name":
			field = 0
			if name, ok = d.str(); !ok {
				return false
			}
		case "description":
			field = 1
			if desc, ok = d.str(); !ok {
				return false
			}
		case "logo_uri":
			field = 2
			if logo, ok = d.str(); !ok {
				return false
			}
		case "crm_integration_id":
			field = 3
			if d.literal("null") {
				b.CRMIntegrationID = nil
				break
			}
			n, ok := d.int()
			if !ok {
				return false
			}
			h := hold()
			h.crm = n
			b.CRMIntegrationID = &h.crm
		case "permissions":
			field = 4
			if !d.permissions(b, hold()) {
				return false
			}
		default:
			return false
		}
		if seen[field] {
			return false // a repeated member: left to encoding/json's rule
		}
		seen[field] = true
		if d.byte(',') {
			continue
		}
		if !d.byte('}') || !d.end() {
			return false
		}
		// The strings, in one allocation: a stored plugin is then one
		// object for the collector to mark, not three.
		var sb strings.Builder
		sb.Grow(len(name) + len(desc) + len(logo))
		sb.Write(name)
		sb.Write(desc)
		sb.Write(logo)
		all := sb.String()
		if seen[0] {
			h := hold()
			h.name = all[:len(name)]
			b.Name = &h.name
		}
		b.Description = all[len(name) : len(name)+len(desc)]
		b.LogoURI = all[len(name)+len(desc):]
		return true
	}
}

// permission returns s as a Permission, the known levels without an
// allocation.
func permission(s []byte) scribe.Permission {
	switch string(s) {
	case string(scribe.PermissionRead):
		return scribe.PermissionRead
	case string(scribe.PermissionNone):
		return scribe.PermissionNone
	}
	return scribe.Permission(s)
}

// quickDecoder reads the JSON subset quickCreatePlugin accepts. Every
// method skips the whitespace before what it reads.
type quickDecoder struct {
	data []byte
	i    int
}

func (d *quickDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c if it comes next.
func (d *quickDecoder) byte(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether nothing but whitespace is left.
func (d *quickDecoder) end() bool {
	d.space()
	return d.i == len(d.data)
}

// literal consumes lit if it comes next, followed by a delimiter.
func (d *quickDecoder) literal(lit string) bool {
	d.space()
	if len(d.data)-d.i < len(lit) || string(d.data[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	return d.delimited()
}

// delimited reports whether the value just read ends there: what follows
// is whitespace, a comma, a closing brace or the end.
func (d *quickDecoder) delimited() bool {
	if d.i == len(d.data) {
		return true
	}
	switch d.data[d.i] {
	case ' ', '\t', '\n', '\r', ',', '}':
		return true
	}
	return false
}

// str reads a string without escapes or control characters, in valid
// UTF-8 (encoding/json would replace invalid bytes), and returns its
// contents, aliasing data.
func (d *quickDecoder) str() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	ascii := true
	for ; d.i < len(d.data); d.i++ {
		switch c := d.data[d.i]; {
		case c == '"':
			s := d.data[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// int reads a JSON integer (-?(0|[1-9][0-9]*)) that fits in an int64.
func (d *quickDecoder) int() (int64, bool) {
	d.space()
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	switch {
	case d.i == digits, d.data[digits] == '0' && d.i > digits+1, !d.delimited():
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.data[start:d.i]), 10, 64)
	return n, err == nil
}

// quickHeld holds what the members quickCreatePlugin decodes point to:
// the permissions object and its two values, the name and the CRM id, one
// allocation for all of them.
type quickHeld struct {
	perms struct {
		User       *scribe.Permission `json:"user"`
		Transcript *scribe.Permission `json:"transcript"`
	}
	user, transcript scribe.Permission
	name             string
	crm              int64
}

// permissions reads the permissions object into all: user and transcript,
// strings, each at most once.
func (d *quickDecoder) permissions(b *createPluginBody, all *quickHeld) bool {
	if !d.byte('{') {
		return false
	}
	b.Permissions = &all.perms
	if d.byte('}') {
		return true
	}
	for {
		name, ok := d.str()
		if !ok || !d.byte(':') {
			return false
		}
		s, ok := d.str()
		if !ok {
			return false
		}
		switch {
		case string(name) == "user" && b.Permissions.User == nil:
			all.user = permission(s)
			b.Permissions.User = &all.user
		case string(name) == "transcript" && b.Permissions.Transcript == nil:
			all.transcript = permission(s)
			b.Permissions.Transcript = &all.transcript
		default:
			return false
		}
		if d.byte(',') {
			continue
		}
		return d.byte('}')
	}
}
