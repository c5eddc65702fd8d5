package scribetest

import (
	"fmt"
	"strconv"

	scribe "github.com/scribehq/scribe-go"
)

// appendPlugin appends p as encoding/json encodes scribe.Plugin, byte for
// byte (TestEncodePluginMatchesJSON, FuzzEncodePlugin; TestPluginFieldsKnown
// fails when the type gains a member this does not write), followed by the
// newline json.Encoder ends a value with. It is written out by hand because
// it runs for every POST /plugins, where encoding/json's reflection was the
// larger part of the answer's cost. A timestamp encoding/json cannot encode
// (a year outside 0..9999) is an error naming the member.
func appendPlugin(b []byte, p *scribe.Plugin) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, p.Name)
	b = append(b, `,"description":`...)
	b = appendJSONString(b, p.Description)
	b = append(b, `,"permissions":{"user":`...)
	b = appendJSONString(b, string(p.Permissions.User))
	b = append(b, `,"transcript":`...)
	b = appendJSONString(b, string(p.Permissions.Transcript))
	b = append(b, `},"published":`...)
	b = strconv.AppendBool(b, p.Published)
	b = append(b, `,"disabled":`...)
	b = strconv.AppendBool(b, p.Disabled)
	b = append(b, `,"crm_integration_id":`...)
	if p.CRMIntegrationID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *p.CRMIntegrationID, 10)
	}
	b = append(b, `,"logo_uri":`...)
	b = appendJSONString(b, p.LogoURI)
	b = append(b, `,"user_id":`...)
	b = strconv.AppendInt(b, p.UserID, 10)
	b = append(b, `,"created_on":`...)
	start := len(b)
	b, err := appendJSONTime(b, p.CreatedOn)
	if err != nil {
		return nil, fmt.Errorf("scribetest: plugin %d cannot be encoded as JSON: created_on: %w", p.ID, err)
	}
	end := len(b)
	b = append(b, `,"updated_on":`...)
	if p.UpdatedOn == p.CreatedOn { // a new plugin's: the same instant and location, so the same text
		b = append(b, b[start:end]...)
	} else if b, err = appendJSONTime(b, p.UpdatedOn); err != nil {
		return nil, fmt.Errorf("scribetest: plugin %d cannot be encoded as JSON: updated_on: %w", p.ID, err)
	}
	return append(b, "}\n"...), nil
}

// okPlugin answers 200 with p, encoded by appendPlugin into a buffer of
// bufPool; a plugin encoding/json could not encode either is a 500, as
// ok's failure is.
func okPlugin(p *scribe.Plugin) result {
	buf := getBuf()
	b, err := appendPlugin(*buf, p)
	if err != nil {
		putBuf(buf)
		return fail(encodingFailed())
	}
	*buf = b
	return okEncoded(buf)
}
