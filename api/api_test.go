package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/api"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/webhook"
)

// parse parses and validates the embedded document. It does not share
// internal/apitest's copy: that one is altered for validating traffic (no
// servers, additionalProperties: false on every object), which would hide
// what these tests check, such as which bodies refuse unknown members.
func parse() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("api/openapi.yaml does not parse: %w", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		return nil, fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
}

// parsed is the document the tests share; they only read it.
var parsed = sync.OnceValues(parse)

// load returns the parsed document, failing t if it does not load.
func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := parsed()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The document is valid OpenAPI 3.1 (examples included) and states the
// interface version the SDK speaks. This is the lint CI runs.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	doc := load(t)
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPIMajorMinor() != "3.1" {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if doc.Info.Version != scribe.InterfaceVersion {
		t.Errorf("info.version = %q, want scribe.InterfaceVersion %q", doc.Info.Version, scribe.InterfaceVersion)
	}
}

type operation struct {
	Method, Path, Security string
}

// contractOperations is docs/contract.md, "Operations": every operation, its method, path and token.
var contractOperations = map[string]operation{
	"listTranscripts":         {http.MethodGet, "/transcripts", "installationJWT"},
	"getTranscript":           {http.MethodGet, "/transcripts/{id}", "installationJWT"},
	"getMe":                   {http.MethodGet, "/users/me", "installationJWT"},
	"listPlugins":             {http.MethodGet, "/plugins", "developerKey"},
	"createPlugin":            {http.MethodPost, "/plugins", "developerKey"},
	"getPlugin":               {http.MethodGet, "/plugins/{id}", "developerKey"},
	"createPluginSecretKey":   {http.MethodPost, "/plugins/{id}/secret_keys", "developerKey"},
	"listPluginInstallations": {http.MethodGet, "/plugins/{id}/installations", "developerKey"},
	"listWebhooks":            {http.MethodGet, "/plugins/{id}/webhooks", "developerKey"},
}

func operations(doc *openapi3.T) map[string]operation {
	ops := map[string]operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var schemes []string
			if op.Security != nil {
				for _, req := range *op.Security {
					for name := range req {
						schemes = append(schemes, name)
					}
				}
			}
			ops[op.OperationID] = operation{method, path, strings.Join(schemes, ",")}
		}
	}
	return ops
}

// The document has exactly the operations of the contract, each with its
// method, path and one security scheme, the token kind it takes.
func TestOperationsMatchContract(t *testing.T) {
	t.Parallel()
	doc := load(t)
	if diff := cmp.Diff(contractOperations, operations(doc)); diff != "" {
		t.Errorf("operations (-contract +document):\n%s", diff)
	}
	if len(doc.Security) != 0 {
		t.Errorf("the document has global security %v; each operation states its own", doc.Security)
	}
}

// Both tokens are HTTP bearer credentials; only the installation token is a JWT.
func TestSecuritySchemes(t *testing.T) {
	t.Parallel()
	doc := load(t)
	type scheme struct{ Type, Scheme, BearerFormat string }
	got := map[string]scheme{}
	for name, ref := range doc.Components.SecuritySchemes {
		got[name] = scheme{ref.Value.Type, ref.Value.Scheme, ref.Value.BearerFormat}
	}
	want := map[string]scheme{
		"developerKey":    {"http", "bearer", ""},
		"installationJWT": {"http", "bearer", "JWT"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("security schemes (-want +got):\n%s", diff)
	}
}

// Every list operation takes limit (1 to 100, default 20) and after_id (>= 0);
// every path id is a positive int64.
func TestParameters(t *testing.T) {
	t.Parallel()
	doc := load(t)
	type param struct {
		In       string
		Required bool
		Type     string
		Format   string
		Min, Max *float64
		Default  any
	}
	f := func(v float64) *float64 { return &v }
	want := map[string]param{
		"limit":    {In: "query", Type: "integer", Min: f(1), Max: f(100), Default: 20.0},
		"after_id": {In: "query", Type: "integer", Format: "int64", Min: f(0), Max: f(1<<53 - 1), Default: 0.0},
		"id":       {In: "path", Required: true, Type: "integer", Format: "int64", Min: f(1), Max: f(1<<53 - 1)},
	}
	for name, op := range operations(doc) {
		item := doc.Paths.Find(op.Path)
		o := item.GetOperation(op.Method)
		params := map[string]param{}
		for _, ref := range slices.Concat(item.Parameters, o.Parameters) {
			p := ref.Value
			if p.In == "header" {
				continue
			}
			s := p.Schema.Value
			params[p.Name] = param{p.In, p.Required, strings.Join(s.Type.Slice(), ","), s.Format, s.Min, s.Max, s.Default}
		}
		wantParams := map[string]param{}
		if strings.Contains(op.Path, "{id}") {
			wantParams["id"] = want["id"]
		}
		if strings.HasPrefix(name, "list") {
			wantParams["limit"], wantParams["after_id"] = want["limit"], want["after_id"]
		}
		if diff := cmp.Diff(wantParams, params); diff != "" {
			t.Errorf("%s parameters (-want +got):\n%s", name, diff)
		}
	}
}

// Each operation declares the statuses the contract lets it answer, and no
// default response, so the harness fails any other status.
func TestResponseStatuses(t *testing.T) {
	t.Parallel()
	doc := load(t)
	for name, op := range operations(doc) {
		o := doc.Paths.Find(op.Path).GetOperation(op.Method)
		var got []string
		for status := range o.Responses.Map() {
			got = append(got, status)
		}
		sort.Strings(got)
		// Every success is 200, the creates included (the service
		// description says all success responses are 200 with a JSON body).
		want := []string{"200", "401", "403", "414", "429", "431", "500", "502", "503", "504"}
		if op.Method == http.MethodPost {
			want = append(want, "409", "413", "415")
		}
		if strings.Contains(op.Path, "{id}") {
			want = append(want, "404")
		}
		if name != "getMe" { // getMe has no parameter or body to be malformed
			want = append(want, "400")
		}
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s statuses (-want +got):\n%s", name, diff)
		}
	}
}

// Every response carries Request-Id. A 2xx is application/json with the rate
// limit headers; every other status is a problem document whose status member
// equals it and whose code is one the status may carry; 401 carries
// WWW-Authenticate and 429 Retry-After.
func TestResponseShapes(t *testing.T) {
	t.Parallel()
	doc := load(t)
	codes := map[int][]string{
		400: {"invalid_parameter", "validation_failed"},
		401: {"missing_token", "invalid_token", "token_expired", "installation_deleted"},
		403: {"wrong_token_kind", "plugin_disabled", "permission_denied"},
		404: {"not_found"},
		409: {"idempotency_key_reused", "idempotency_key_in_use"},
		413: {"request_too_large"},
		414: {"uri_too_long"},
		415: {"unsupported_media_type"},
		431: {"headers_too_large"},
		429: {"rate_limited"},
		500: {"internal_error"},
		502: {"bad_gateway"},
		503: {"service_unavailable"},
		504: {"gateway_timeout"},
	}
	check := func(where string, status int, r *openapi3.Response) {
		required := func(h string) {
			if ref := r.Headers[h]; ref == nil || !ref.Value.Required {
				t.Errorf("%s: %d has no required %s header", where, status, h)
			}
		}
		required("Request-Id")
		var media []string
		for mt := range r.Content {
			media = append(media, mt)
		}
		if status < 300 {
			required("RateLimit-Limit")
			required("RateLimit-Remaining")
			required("RateLimit-Reset")
			if !slices.Equal(media, []string{"application/json"}) {
				t.Errorf("%s: %d content %v, want application/json", where, status, media)
			}
			return
		}
		switch status {
		case 401:
			required("WWW-Authenticate")
		case 429:
			required("Retry-After")
		}
		if !slices.Equal(media, []string{wire.ProblemContentType}) {
			t.Errorf("%s: %d content %v, want %s", where, status, media, wire.ProblemContentType)
			return
		}
		s := r.Content[wire.ProblemContentType].Schema.Value
		if len(s.AllOf) != 2 || s.AllOf[0].Ref != "#/components/schemas/Problem" {
			t.Errorf("%s: %d schema is not allOf [Problem, constraints]", where, status)
			return
		}
		props := s.AllOf[1].Value.Properties
		if got := props["status"].Value.Enum; !slices.Equal(got, []any{float64(status)}) {
			t.Errorf("%s: %d problem status enum %v, want [%d]", where, status, got, status)
		}
		if !props["status"].Value.Type.Is("integer") || !props["code"].Value.Type.Is("string") {
			t.Errorf("%s: %d problem status and code enums must say their type (integer, string)", where, status)
		}
		var gotCodes []string
		for _, c := range props["code"].Value.Enum {
			gotCodes = append(gotCodes, c.(string))
		}
		if diff := cmp.Diff(codes[status], gotCodes); diff != "" {
			t.Errorf("%s: %d codes (-want +got):\n%s", where, status, diff)
		}
	}
	for name, op := range operations(doc) {
		for key, ref := range doc.Paths.Find(op.Path).GetOperation(op.Method).Responses.Map() {
			status, err := strconv.Atoi(key)
			if err != nil {
				t.Errorf("%s: response %q is not a status code", name, key)
				continue
			}
			check(name, status, ref.Value)
		}
	}
	check("components.responses.NotFound", 404, doc.Components.Responses["NotFound"].Value)
}

// POST operations take an Idempotency-Key of up to 255 characters; the GETs
// take none.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	doc := load(t)
	for name, op := range operations(doc) {
		var key *openapi3.Parameter
		for _, p := range doc.Paths.Find(op.Path).GetOperation(op.Method).Parameters {
			if p.Value.In == "header" && p.Value.Name == "Idempotency-Key" {
				key = p.Value
			}
		}
		switch {
		case op.Method == http.MethodPost && key == nil:
			t.Errorf("%s takes no Idempotency-Key", name)
		case op.Method == http.MethodPost && (key.Required || key.Schema.Value.MaxLength == nil || *key.Schema.Value.MaxLength != 255):
			t.Errorf("%s: Idempotency-Key must be optional with maxLength 255", name)
		case op.Method != http.MethodPost && key != nil:
			t.Errorf("%s (%s) takes an Idempotency-Key", name, op.Method)
		}
	}
}

// schemaOf maps each Go type of the wire to the schema that describes it.
var schemaOf = map[reflect.Type]string{
	reflect.TypeFor[scribe.Transcript]():                    "Transcript",
	reflect.TypeFor[scribe.TranscriptUser]():                "TranscriptUser",
	reflect.TypeFor[scribe.TranscriptJob]():                 "TranscriptJob",
	reflect.TypeFor[scribe.TranscriptAudio]():               "TranscriptAudio",
	reflect.TypeFor[scribe.User]():                          "User",
	reflect.TypeFor[scribe.Plugin]():                        "Plugin",
	reflect.TypeFor[scribe.Permissions]():                   "Permissions",
	reflect.TypeFor[scribe.PluginSecretKey]():               "PluginSecretKey",
	reflect.TypeFor[scribe.PluginInstallation]():            "PluginInstallation",
	reflect.TypeFor[scribe.Webhook]():                       "Webhook",
	reflect.TypeFor[wire.Problem]():                         "Problem",
	reflect.TypeFor[wire.List[scribe.Transcript]]():         "TranscriptList",
	reflect.TypeFor[wire.List[scribe.Plugin]]():             "PluginList",
	reflect.TypeFor[wire.List[scribe.PluginInstallation]](): "PluginInstallationList",
	reflect.TypeFor[wire.List[scribe.Webhook]]():            "WebhookList",
}

// The Go types and the document cannot drift: every JSON field of a Go type is
// a required property of its schema and every property is a field, of the
// matching JSON type, nullable exactly when the Go field is a pointer, and a
// nested struct refers to its own schema.
func TestSchemasMatchGoTypes(t *testing.T) {
	t.Parallel()
	doc := load(t)
	for typ, name := range schemaOf {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ref := doc.Components.Schemas[name]
			if ref == nil {
				t.Fatalf("no schema %s for %v", name, typ)
			}
			checkSchemaMatchesGoType(t, name, ref.Value, typ)
		})
	}
}

// checkSchemaMatchesGoType holds schema s to the JSON fields of Go type typ.
func checkSchemaMatchesGoType(t *testing.T, name string, s *openapi3.Schema, typ reflect.Type) {
	t.Helper()
	fields := map[string]reflect.Type{}
	for f := range typ.Fields() {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && tag != "-" && tag != "" {
			fields[tag] = f.Type
		}
	}
	var goNames, required, props []string
	for n := range fields {
		goNames = append(goNames, n)
	}
	for n := range s.Properties {
		props = append(props, n)
	}
	required = slices.Clone(s.Required)
	slices.Sort(goNames)
	slices.Sort(required)
	slices.Sort(props)
	if diff := cmp.Diff(goNames, required); diff != "" {
		t.Errorf("%s: Go fields vs required properties (-Go +schema):\n%s", name, diff)
	}
	if diff := cmp.Diff(goNames, props); diff != "" {
		t.Errorf("%s: Go fields vs properties (-Go +schema):\n%s", name, diff)
	}
	for field, ft := range fields {
		if p := s.Properties[field]; p != nil {
			checkFieldType(t, name+"."+field, ft, p)
		}
	}
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

func checkFieldType(t *testing.T, where string, ft reflect.Type, p *openapi3.SchemaRef) {
	t.Helper()
	nullable := ft.Kind() == reflect.Pointer
	if nullable {
		ft = ft.Elem()
	}
	if p.Value.Type.Includes("null") != nullable {
		t.Errorf("%s: nullable in the schema = %v, but the Go field is %v", where, p.Value.Type.Includes("null"), ft)
	}
	if name, ok := schemaOf[ft]; ok {
		if p.Ref != "#/components/schemas/"+name {
			t.Errorf("%s: Go type %v, but the schema is %q, not a $ref to %s", where, ft, p.Ref, name)
		}
		return
	}
	var want string
	switch {
	case ft == timeType:
		want = "string"
		if p.Value.Format != "date-time" {
			t.Errorf("%s: a time.Time with format %q, want date-time", where, p.Value.Format)
		}
	case ft == rawType:
		return // any JSON; the event's data, narrowed per event kind
	case ft == reflect.TypeFor[auth.SecretKey]() || ft == reflect.TypeFor[auth.WebhookSecret]():
		want = "string" // a struct in Go that travels as a JSON string
	case ft.Kind() == reflect.Bool:
		want = "boolean"
	case ft.Kind() == reflect.String:
		want = "string"
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
		want = "integer"
	case ft.Kind() == reflect.Map:
		want = "object"
	case ft.Kind() == reflect.Slice:
		want = "array"
		if name, ok := schemaOf[ft.Elem()]; ok && p.Value.Items.Ref != "#/components/schemas/"+name {
			t.Errorf("%s: items are %q, want a $ref to %s", where, p.Value.Items.Ref, name)
		}
	default:
		t.Errorf("%s: no rule for Go type %v", where, ft)
		return
	}
	if !p.Value.Type.Includes(want) {
		t.Errorf("%s: schema type %v, Go type %v wants %s", where, p.Value.Type.Slice(), ft, want)
	}
	if (strings.HasSuffix(where, ".id") || strings.HasSuffix(where, "_id")) && want == "integer" {
		if p.Ref != "#/components/schemas/Id" && (p.Value.Min == nil || *p.Value.Min != 1) {
			t.Errorf("%s: an identifier must be a positive int64", where)
		}
	}
}

// Only deleted_on and crm_integration_id may be null (docs/contract.md, "Resources").
func TestOnlyDocumentedFieldsAreNullable(t *testing.T) {
	t.Parallel()
	doc := load(t)
	var got []string
	for name, ref := range doc.Components.Schemas {
		for prop, p := range ref.Value.Properties {
			if p.Value.Type.Includes("null") {
				got = append(got, name+"."+prop)
			}
		}
	}
	slices.Sort(got)
	want := []string{"CreatePluginRequest.crm_integration_id", "Plugin.crm_integration_id", "PluginInstallation.deleted_on"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nullable properties (-want +got):\n%s", diff)
	}
}

// The request bodies refuse unknown members, and createPlugin requires a name
// of 1 to 100 characters.
func TestRequestBodies(t *testing.T) {
	t.Parallel()
	doc := load(t)
	for _, name := range []string{"CreatePluginRequest", "CreatePluginSecretKeyRequest"} {
		s := doc.Components.Schemas[name].Value
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("%s accepts unknown members", name)
		}
	}
	s := doc.Components.Schemas["CreatePluginRequest"].Value
	n := s.Properties["name"].Value
	if !slices.Equal(s.Required, []string{"name"}) || n.MinLength != 1 || n.MaxLength == nil || *n.MaxLength != 100 {
		t.Errorf("CreatePluginRequest: required %v, name length %d..%v; want name required, 1..100", s.Required, n.MinLength, n.MaxLength)
	}
}

// The webhooks section has the four events of docs/contract.md, "Events and webhooks", each a POST that
// takes no bearer token (security: []) with the Standard Webhooks headers and
// an envelope whose fields are webhook.Event's, whose type is the event's name
// and whose data is the resource.
func TestWebhookEvents(t *testing.T) {
	t.Parallel()
	doc := load(t)
	want := map[string]string{
		"installation.created": "PluginInstallation",
		"installation.deleted": "PluginInstallation",
		"transcript.created":   "Transcript",
		"transcript.updated":   "Transcript",
	}
	var names []string
	for name := range doc.Webhooks {
		names = append(names, name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"installation.created", "installation.deleted", "transcript.created", "transcript.updated"}, names); diff != "" {
		t.Errorf("webhook events (-want +got):\n%s", diff)
	}
	for name, item := range doc.Webhooks {
		op := item.Post
		if op == nil {
			t.Errorf("%s is not a POST", name)
			continue
		}
		if op.Security == nil || len(*op.Security) != 0 {
			t.Errorf("%s: security must be [] (a delivery carries a signature, not a bearer token)", name)
		}
		var headers []string
		for _, p := range op.Parameters {
			if p.Value.In == "header" && p.Value.Required {
				headers = append(headers, p.Value.Name)
			}
		}
		if diff := cmp.Diff([]string{"webhook-id", "webhook-timestamp", "webhook-signature"}, headers); diff != "" {
			t.Errorf("%s required headers (-want +got):\n%s", name, diff)
		}
		body := op.RequestBody.Value.Content["application/json"]
		if body == nil {
			t.Errorf("%s has no application/json body", name)
			continue
		}
		s := body.Schema.Value
		checkSchemaMatchesGoType(t, name, s, reflect.TypeFor[webhook.Event]())
		if typ := s.Properties["type"]; typ == nil || !typ.Value.Type.Is("string") || !slices.Equal(typ.Value.Enum, []any{name}) {
			t.Errorf("%s: type is not a string enum [%s]", name, name)
		}
		if data := s.Properties["data"]; data == nil || data.Ref != "#/components/schemas/"+want[name] {
			t.Errorf("%s: data is not a $ref to %s", name, want[name])
		}
	}
}

// The Redocly CLI run by scripts/lint-contract (api/redocly.yaml) enforces the
// rules that linters apply to the document as a whole: every enum states its
// type (rule/enum-has-type), info.contact and info.license (info-contact,
// info-license-strict), no unused component or security scheme
// (no-unused-components). They are not repeated here. What follows is the one
// such check that linter does not make.

// generic is the document as plain JSON values (maps, slices, strings), with
// every $ref left as written and YAML anchors expanded, for the checks that
// walk all of it the way third-party tools do.
func generic(t *testing.T) map[string]any {
	t.Helper()
	data, err := json.Marshal(load(t))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// walk calls f on every JSON object within v.
func walk(v any, f func(obj map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, c := range v {
			walk(c, f)
		}
	case []any:
		for _, c := range v {
			walk(c, f)
		}
	}
}

// Every component is reachable from the paths, following $refs from
// component to component. Redocly's no-unused-components counts a use by the
// webhooks too, but oapi-codegen's default configuration keeps only the
// components the paths reach, so a component used only by the webhooks would
// be missing from a generated client whose code still refers to it.
func TestEveryComponentIsReachableFromThePaths(t *testing.T) {
	t.Parallel()
	m := generic(t)
	components, _ := m["components"].(map[string]any)
	reached := map[string]bool{}
	var follow func(v any)
	follow = func(v any) {
		walk(v, func(obj map[string]any) {
			ref, ok := obj["$ref"].(string)
			if !ok || reached[ref] {
				return
			}
			reached[ref] = true
			kind, name, ok := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
			if !ok {
				t.Errorf("$ref %q does not point into components", ref)
				return
			}
			kindMap, _ := components[kind].(map[string]any)
			target, ok := kindMap[name]
			if !ok {
				t.Errorf("$ref %q points to nothing", ref)
				return
			}
			follow(target)
		})
	}
	follow(m["paths"])
	for kind, v := range components {
		if kind == "securitySchemes" {
			continue // operations name them in security, not by $ref
		}
		for name := range v.(map[string]any) {
			if ref := "#/components/" + kind + "/" + name; !reached[ref] {
				t.Errorf("%s is not reachable from the paths", ref)
			}
		}
	}
}
