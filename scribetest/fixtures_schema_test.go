package scribetest_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/scribehq/scribe-go/scribetest"
)

// fixtureSchema compiles api/fixtures.schema.json, formats asserted.
func fixtureSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("../api/fixtures.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("fixtures.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("fixtures.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// The demo data and an export of a server changed in every way hold to the
// published schema of the fixture format.
func TestFixtureSchemaAcceptsDemoAndExport(t *testing.T) {
	t.Parallel()
	schema := fixtureSchema(t)
	demo, err := io.ReadAll(scribetest.DemoFixtures())
	if err != nil {
		t.Fatal(err)
	}
	s, _ := changed(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	for name, doc := range map[string][]byte{"demo.json": demo, "an export": exported(t, s)} {
		if err := validate(schema, doc); err != nil {
			t.Errorf("%s does not hold to api/fixtures.schema.json: %v", name, err)
		}
	}
}

// A document the loader refuses for its shape, its references all sound,
// the schema refuses too.
func TestFixtureSchemaRefusesWhatTheLoaderRefuses(t *testing.T) {
	t.Parallel()
	schema := fixtureSchema(t)
	const dev = `{"id": 7, "developer_key": "dk_live_schema"}`
	for _, doc := range []string{
		`[]`,
		`{"people": []}`,
		`{"users": {}}`,
		`{"users": null}`,
		`{"users": [{"id": 0}]}`,
		`{"users": [{"id": "7"}]}`,
		`{"users": [{"id": 9007199254740992}]}`,
		`{"users": [{"id": 7, "first_name": null}]}`,
		`{"users": [{"id": 7, "nickname": "Ada"}]}`,
		`{"users": [` + dev + `], "plugins": [{"user_id": 7}]}`,
		`{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": ""}]}`,
		`{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "x", "permissions": {"user": "write"}}]}`,
		`{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "x", "crm_integration_id": 0}]}`,
		`{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "x", "logo_uri": "ftp://example.com/a.png"}]}`,
		`{"users": [` + dev + `], "plugins": [{"id": 1, "user_id": 7, "name": "x"}], "secret_keys": [{"plugin_id": 1, "value": "sk_live_x"}]}`,
		`{"users": [` + dev + `, {"id": 8}], "plugins": [{"id": 1, "user_id": 7, "name": "x"}], "installations": [{"plugin_id": 1, "user_id": 8, "uuid": "0B6D3F9E-2C4A-4E8B-9A1D-5F7C3E2B1A90"}]}`,
		`{"users": [` + dev + `, {"id": 8}], "plugins": [{"id": 1, "user_id": 7, "name": "x"}], "installations": [{"plugin_id": 1, "user_id": 8, "created_on": "yesterday"}]}`,
		`{"users": [{"id": 8}], "transcripts": [{"user_id": 8, "job": {"lines": -1}}]}`,
		`{"users": [{"id": 8}], "transcripts": [{"user_id": 8, "audio": {"length_in_seconds": 1.5}}]}`,
		`{"users": [{"id": 8}], "transcripts": [{"user_id": 8, "metadata": []}]}`,
		`{"users": [` + dev + `], "plugins": [{"id": 1, "user_id": 7, "name": "x"}], "webhooks": [{"plugin_id": 1, "uri": "http://a.example/h", "signing_secret": "secret"}]}`,
		`{"users": [` + dev + `], "plugins": [{"id": 1, "user_id": 7, "name": "x"}], "webhooks": [{"plugin_id": 1}]}`,
	} {
		_, loadErr := scribetest.NewTestServer(t).LoadFixtures(strings.NewReader(doc))
		if loadErr == nil {
			t.Errorf("the loader accepts %s; the case is not one it refuses", doc)
			continue
		}
		if err := validate(schema, []byte(doc)); err == nil {
			t.Errorf("the schema accepts %s, which the loader refuses: %v", doc, loadErr)
		}
	}
}
