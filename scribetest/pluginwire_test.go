package scribetest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// pluginSamples are plugins whose encoding exercises every branch of
// appendPlugin: escapes, invalid UTF-8, U+2028, HTML characters, a CRM id
// and none, zones, zero and fractional times, negative numbers.
func pluginSamples() []scribe.Plugin {
	crm := int64(-7)
	zero := int64(0)
	created := time.Date(2026, 11, 23, 15, 4, 5, 120000000, time.FixedZone("z", 5*3600+45*60))
	return []scribe.Plugin{
		{
			ID: 1, Name: "Meeting notes", Description: "Summarises meetings.",
			Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionNone},
			UserID:      3, CreatedOn: time.Date(2026, 11, 23, 15, 4, 5, 123456789, time.UTC),
			UpdatedOn: time.Date(2026, 11, 23, 15, 4, 5, 0, time.UTC),
		},
		{
			ID: 9_223_372_036_854_775_807, Name: "<b>\"q\"</b> & \\ \n\t\r\b\f\x00\x1f \u2028\u2029 é 😀 \xff\xfe",
			Description: "", Published: true, Disabled: true, CRMIntegrationID: &crm,
			LogoURI: "https://example.com/logo.png?a=1&b=<2>", UserID: -1,
			CreatedOn: time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("x", -(3*3600+30*60))),
			UpdatedOn: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("y", 14*3600)),
		},
		{CRMIntegrationID: &zero}, // zero values: "" permissions, zero times
		{ // a new plugin's: updated_on is created_on (appendPlugin copies its text)
			ID: 2, Name: "new", UserID: 3,
			CreatedOn: created, UpdatedOn: created,
		},
	}
}

// TestEncodePluginMatchesJSON: the hand-written encoder of the POST
// /plugins and GET /plugins/{id} answers writes what json.Encoder writes
// for the same plugin (what the server answered before), byte for byte.
func TestEncodePluginMatchesJSON(t *testing.T) {
	t.Parallel()
	for i, p := range pluginSamples() {
		got, err := appendPlugin(nil, &p)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		want, err := encodeValue(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, *want) {
			t.Errorf("sample %d:\n got %s\nwant %s", i, got, *want)
		}
	}
	// What encoding/json refuses is refused, naming the member.
	bad := pluginSamples()[0]
	bad.UpdatedOn = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := appendPlugin(nil, &bad); err == nil || !strings.Contains(err.Error(), "updated_on") {
		t.Errorf("year 10000: err = %v, want a refusal naming updated_on", err)
	}
	if res := okPlugin(&bad); res.p == nil || res.p.status != 500 {
		t.Errorf("okPlugin of an unencodable plugin = %+v, want a 500 problem", res)
	}
}

// FuzzEncodePlugin compares the hand-written encoder with encoding/json on
// arbitrary strings, numbers, flags and times.
func FuzzEncodePlugin(f *testing.F) {
	for _, p := range pluginSamples() {
		f.Add(p.Name, p.Description, string(p.Permissions.User), p.ID, p.UserID, p.Published, p.CRMIntegrationID != nil, p.CreatedOn.UnixNano(), 0)
	}
	f.Fuzz(func(t *testing.T, name, desc, perm string, id, userID int64, flag, crm bool, nanos int64, offsetMin int) {
		p := pluginSamples()[0]
		p.Name, p.Description, p.LogoURI = name, desc, name+desc
		p.Permissions = scribe.Permissions{User: scribe.Permission(perm), Transcript: scribe.Permission(desc)}
		p.ID, p.UserID, p.Published, p.Disabled = id, userID, flag, !flag
		if crm {
			p.CRMIntegrationID = &userID
		}
		p.CreatedOn = time.Unix(0, nanos).In(time.FixedZone("z", (offsetMin%(48*60))*60))
		if flag { // a new plugin's timestamps: the same value twice
			p.UpdatedOn = p.CreatedOn
		}
		want, wantErr := encodeValue(p)
		got, err := appendPlugin(nil, &p)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("appendPlugin err %v, encoding/json err %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, *want) {
			t.Fatalf("\n got %s\nwant %s", got, *want)
		}
	})
}

// TestPluginFieldsKnown fails when scribe.Plugin or scribe.Permissions
// gains, loses or reorders a JSON member: appendPlugin writes them by hand
// and must be changed with them.
func TestPluginFieldsKnown(t *testing.T) {
	t.Parallel()
	if got, want := jsonMembers(scribe.Plugin{}), []string{"id", "name", "description", "permissions", "published", "disabled",
		"crm_integration_id", "logo_uri", "user_id", "created_on", "updated_on"}; !slices.Equal(got, want) {
		t.Errorf("scribe.Plugin members %q, appendPlugin writes %q", got, want)
	}
	if got, want := jsonMembers(scribe.Permissions{}), []string{"user", "transcript"}; !slices.Equal(got, want) {
		t.Errorf("scribe.Permissions members %q, appendPlugin writes %q", got, want)
	}
	if _, ok := any(scribe.Plugin{}).(json.Marshaler); ok {
		t.Error("scribe.Plugin has a MarshalJSON; appendPlugin must follow it")
	}
}

// jsonMembers lists the json tags of the struct v's fields, in order: what
// the hand-written encoders write, member by member.
func jsonMembers(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Tag.Get("json"))
	}
	return out
}
