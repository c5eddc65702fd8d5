package scribetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// createPluginBodies are POST /plugins bodies: what clients send, and the
// near misses the quick path must leave to the strict decoder.
var createPluginBodies = []string{
	`{"name":"Meeting notes","description":"Summarises meetings.","permissions":{"user":"read","transcript":"read"}}`,
	"{ \"name\" : \"Notes é 😀\" ,\n\t\"logo_uri\":\"https://example.com/l.png\", \"crm_integration_id\": -42,\r\"permissions\":{}}",
	`{"name":"n","crm_integration_id":null}`,
	`{"name":"n","crm_integration_id":0}`,
	`{}`,
	``,
	`  `,
	`{"name":"a\"b"}`,
	`{"name":"a\u00e9"}`,
	`{"Name":"n"}`,
	`{"name":"n","name":"m"}`,
	`{"name":"n","permissions":{"user":"read","user":"none"}}`,
	`{"name":null}`,
	`{"name":1}`,
	`{"name":"n","permissions":null}`,
	`{"name":"n","permissions":{"user":null}}`,
	`{"name":"n","permissions":{"admin":"read"}}`,
	`{"name":"n","crm_integration_id":1.5}`,
	`{"name":"n","crm_integration_id":1e3}`,
	`{"name":"n","crm_integration_id":01}`,
	`{"name":"n","crm_integration_id":9223372036854775808}`,
	`{"name":"n","crm_integration_id":"7"}`,
	`{"name":"n","extra":true}`,
	`{"name":"n"} {}`,
	`{"name":"n",}`,
	`{"name":"n"`,
	"{\"name\":\"\xff\"}",
	"{\"name\":\"a\tb\"}",
	`[]`,
	`null`,
}

// TestQuickCreatePluginTaken: the quick path decodes the bodies clients
// send (else it would be dead code and POST would pay for encoding/json),
// and declines the near misses, whose answers only the strict decoder
// gives.
func TestQuickCreatePluginTaken(t *testing.T) {
	t.Parallel()
	for i, body := range createPluginBodies {
		var b createPluginBody
		got := quickCreatePlugin([]byte(body), &b)
		if want := i < 5; got != want {
			t.Errorf("quickCreatePlugin(%q) = %v, want %v", body, got, want)
		}
	}
}

// FuzzQuickCreatePlugin: whatever body the quick path accepts, the strict
// decoder (decodeBody) accepts too and decodes to the same struct; what the
// quick path declines gets decodeBody's answer through decodeCreatePlugin.
func FuzzQuickCreatePlugin(f *testing.F) {
	for _, body := range createPluginBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var strict createPluginBody
		wantP := decodeBody(body, &strict)
		var quick createPluginBody
		if quickCreatePlugin(body, &quick) {
			if wantP != nil {
				t.Fatalf("quick path accepted %q; decodeBody refused it: %s", body, wantP.detail)
			}
			if diff := cmp.Diff(strict, quick); diff != "" {
				t.Fatalf("%q: quick path differs from decodeBody (-strict +quick):\n%s", body, diff)
			}
		}
		var got createPluginBody
		gotP := decodeCreatePlugin(body, &got)
		if (gotP == nil) != (wantP == nil) || (gotP != nil && gotP.detail != wantP.detail) {
			t.Fatalf("%q: decodeCreatePlugin problem %v, decodeBody %v", body, gotP, wantP)
		}
		if wantP == nil {
			if diff := cmp.Diff(strict, got); diff != "" {
				t.Fatalf("%q: decodeCreatePlugin differs from decodeBody (-strict +got):\n%s", body, diff)
			}
		}
	})
}
