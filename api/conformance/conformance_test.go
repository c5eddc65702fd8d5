package conformance_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/golang-jwt/jwt/v5"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/api"
	"github.com/scribehq/scribe-go/api/conformance/client"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
)

// basePath is where the server serves the operations, so that the generated
// client's joining of a base URL with a path prefix is exercised too.
const basePath = "/v1"

// env is the scene every operation test shares: one reference server, the
// developers and users seeded into it, and what earlier operations created
// (the plugin, its secret key, the installation JWT minted from that key).
type env struct {
	doc     *openapi3.T
	s       *scribetest.Server
	base    string                  // the server's URL, base path included
	hc      *http.Client            // validated and recorded transport
	dev     string                  // developer A's key
	other   string                  // developer B's key
	userID  int64                   // Grace, who installs plugin A
	otherID int64                   // Alan, whose transcript Grace's installations never see
	seen    *seen                   // the (operation, status) pairs answered
	hooks   *receiver               // the webhook receiver
	plugin  client.Plugin           // created by createPlugin
	keyVal  string                  // the secret key createPluginSecretKey returned
	inst    string                  // uuid of Grace's installation of plugin
	jwt     string                  // installation JWT for inst, minted from keyVal
	noPerms client.Plugin           // a plugin with permissions none/none
	noKey   string                  // a secret key of noPerms
	noInst  string                  // uuid of Grace's installation of noPerms
	noJWT   string                  // an installation JWT of noPerms
	byID    map[int64]client.Plugin // every plugin developer A created
}

// TestConformance drives every operation of api/openapi.yaml, through the
// client oapi-codegen generates from it, against the reference server, and
// receives every webhook event it declares. Each operation is a subtest;
// the operations run in a fixed order because later ones use what earlier
// ones created. At the end every status the document declares for an
// operation must have been answered at least once.
func TestConformance(t *testing.T) {
	doc := loadDoc(t)
	e := newEnv(t, doc)

	order := []struct {
		op  string
		run func(*testing.T, *env)
	}{
		{"createPlugin", testCreatePlugin},
		{"getPlugin", testGetPlugin},
		{"listPlugins", testListPlugins},
		{"createPluginSecretKey", testCreatePluginSecretKey},
		{"listWebhooks", testListWebhooks},
		{"listPluginInstallations", testListPluginInstallations},
		{"getMe", testGetMe},
		{"listTranscripts", testListTranscripts},
		{"getTranscript", testGetTranscript},
		{"installationCreated", testWebhookEvents},
		{"installationDeleted", nil}, // received by testWebhookEvents
		{"transcriptCreated", nil},
		{"transcriptUpdated", nil},
	}
	var covered, declared []string
	for _, o := range order {
		covered = append(covered, o.op)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			declared = append(declared, op.OperationID)
		}
	}
	for _, item := range doc.Webhooks {
		for _, op := range item.Operations() {
			declared = append(declared, op.OperationID)
		}
	}
	slices.Sort(covered)
	slices.Sort(declared)
	if !slices.Equal(covered, declared) {
		t.Fatalf("the conformance run covers %v, the document declares %v: add a test for each new operation", covered, declared)
	}

	for _, o := range order {
		if o.run == nil {
			continue
		}
		if !t.Run(o.op, func(t *testing.T) { o.run(t, e) }) {
			t.Fatalf("%s failed; the operations after it depend on it", o.op)
		}
	}
	t.Run("refusals", func(t *testing.T) { testRefusals(t, e) })
	t.Run("unknown path and method", func(t *testing.T) { testUnknownPathAndMethod(t, e) })
	t.Run("the SDK reads every answer strictly", func(t *testing.T) { testSDKStrict(t, e) })
	e.seen.checkEveryDeclaredStatus(t, doc)
}

// testSDKStrict reads the reference server's answers to every read
// operation with the SDK, through the validating transport, decoding
// strictly (scribe.WithStrictDecoding): an answer the document accepts
// but that lacks a member of the SDK's types, or has one null where they
// do not allow it, fails here rather than reading as a zero value in
// production.
func testSDKStrict(t *testing.T, e *env) {
	ctx := context.Background()
	key, err := auth.ParseDeveloperKey(e.dev)
	must(t, err)
	dev, err := scribe.NewClient(e.base, scribe.WithHTTPClient(e.hc), scribe.WithDeveloperKey(key), scribe.WithStrictDecoding())
	must(t, err)
	var uuid string // an installation still in place (the events test uninstalled the first)
	for _, in := range e.s.Installations(e.plugin.Id) {
		if in.DeletedOn == nil {
			uuid = in.UUID
		}
	}
	if uuid == "" {
		t.Fatal("no installation of the plugin is left to read with")
	}
	inst, err := dev.WithOptions(scribe.WithTokenSource(staticToken(mint(t, e.keyVal, uuid, time.Now(), time.Hour))))
	must(t, err)
	_, err = dev.GetPlugin(ctx, e.plugin.Id)
	must(t, err)
	for _, err := range dev.ListPlugins(ctx, nil).All() {
		must(t, err)
	}
	for _, err := range dev.ListWebhooks(ctx, e.plugin.Id, nil).All() {
		must(t, err)
	}
	for _, err := range dev.ListPluginInstallations(ctx, e.plugin.Id, nil).All() {
		must(t, err)
	}
	_, err = inst.GetMe(ctx)
	must(t, err)
	for tr, err := range inst.ListTranscripts(ctx, nil).All() {
		must(t, err)
		_, err = inst.GetTranscript(ctx, tr.ID)
		must(t, err)
	}
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func newEnv(t *testing.T, doc *openapi3.T) *env {
	t.Helper()
	doc.Servers = nil // seen matches paths below basePath
	router, err := legacy.NewRouter(doc)
	must(t, err)
	hooks := newReceiver(t)
	s := scribetest.NewTestServer(t, scribetest.WithBasePath(basePath),
		scribetest.WithWebhookSchedule(0, 10*time.Millisecond, 20*time.Millisecond))
	devA, err := s.CreateDeveloper(scribe.User{FirstName: "Ada", LastName: "Byron", EmailAddress: "ada@example.com"})
	must(t, err)
	devB, err := s.CreateDeveloper(scribe.User{FirstName: "Bob", LastName: "Other", EmailAddress: "bob@example.com"})
	must(t, err)
	grace, err := s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	must(t, err)
	alan, err := s.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing", EmailAddress: "alan@example.com"})
	must(t, err)
	rec := &seen{router: router, pairs: map[string]map[int]bool{}}
	hc := &http.Client{Transport: apitest.NewValidator(t).WithBasePath(basePath).Transport(rec.transport(http.DefaultTransport))}
	return &env{
		doc: doc, s: s, base: s.URL(), hc: hc, dev: devA.Key.Reveal(), other: devB.Key.Reveal(),
		userID: grace.ID, otherID: alan.ID, seen: rec, hooks: hooks, byID: map[int64]client.Plugin{},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// api returns a generated client that sends token (none when "").
func (e *env) api(t *testing.T, token string) *client.ClientWithResponses {
	t.Helper()
	opts := []client.ClientOption{client.WithHTTPClient(e.hc), client.WithRequestEditorFn(applyEdit)}
	if token != "" {
		opts = append(opts, client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	}
	c, err := client.NewClientWithResponses(e.base, opts...)
	must(t, err)
	return c
}

// editKey carries, in a request's context, a change to make to the request
// the generated client built (a request target or headers over the limits).
type editKey struct{}

func withEdit(ctx context.Context, edit func(*http.Request)) context.Context {
	return context.WithValue(ctx, editKey{}, edit)
}

func applyEdit(ctx context.Context, req *http.Request) error {
	if edit, ok := ctx.Value(editKey{}).(func(*http.Request)); ok {
		edit(req)
	}
	return nil
}

// invalid marks a request as deliberately outside the contract, so the
// validating transport checks only the answer (which must be a 4xx).
func invalid() context.Context { return apitest.AllowInvalidRequest(context.Background()) }

// mint signs an installation JWT as the document's installationJWT scheme
// describes: HS256 over the UTF-8 bytes of a plugin secret key, with iat, exp
// and plugin_installation_uuid.
func mint(t *testing.T, key, uuid string, iat time.Time, lifetime time.Duration) string {
	t.Helper()
	tok, err := mintLifetime(key, uuid, iat, lifetime)
	must(t, err)
	return tok
}

func mintLifetime(key, uuid string, iat time.Time, lifetime time.Duration) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iat":                      iat.Unix(),
		"exp":                      iat.Add(lifetime).Unix(),
		"plugin_installation_uuid": uuid,
	}).SignedString([]byte(key))
}

// mintFor mints an installation JWT valid for the next hour.
func mintFor(key, uuid string, iat time.Time) (string, error) {
	return mintLifetime(key, uuid, iat, time.Hour)
}

// --- generic checks over the generated response types ---

// status returns the status of a generated response and fails t when the
// generated parser left the field for it empty (the document declares the
// status but the body did not decode into its schema).
func status(t *testing.T, resp any) int {
	t.Helper()
	v := reflect.ValueOf(resp).Elem()
	code := v.FieldByName("HTTPResponse").Interface().(*http.Response).StatusCode
	field := "JSON200"
	if code != http.StatusOK {
		field = fmt.Sprintf("ApplicationproblemJSON%d", code)
	}
	if f := v.FieldByName(field); !f.IsValid() {
		t.Errorf("the generated response has no %s: status %d is not declared; body %s", field, code, v.FieldByName("Body").Bytes())
	} else if f.IsNil() {
		t.Errorf("status %d, but the body did not decode into %s: %s", code, field, v.FieldByName("Body").Bytes())
	}
	return code
}

// wantOK fails t unless resp (a generated response) is a 200 whose body
// decoded and whose declared headers are all present.
func wantOK(t *testing.T, resp any, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if got := status(t, resp); got != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", got, reflect.ValueOf(resp).Elem().FieldByName("Body").Bytes())
	}
	h := reflect.ValueOf(resp).Elem().FieldByName("HTTPResponse").Interface().(*http.Response).Header
	for _, name := range []string{"Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if h.Get(name) == "" {
			t.Errorf("a 200 without %s", name)
		}
	}
}

// wantProblem fails t unless resp (a generated response) is the problem
// document of status with code, its status and request_id members matching
// the status line and the Request-Id header.
func wantProblem(t *testing.T, resp any, err error, wantStatus int, wantCode string) {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	got := status(t, resp)
	v := reflect.ValueOf(resp).Elem()
	if got != wantStatus {
		t.Fatalf("status %d, want %d (%s); body %s", got, wantStatus, wantCode, v.FieldByName("Body").Bytes())
	}
	p := v.FieldByName(fmt.Sprintf("ApplicationproblemJSON%d", got))
	if !p.IsValid() || p.IsNil() {
		return // reported by status
	}
	p = p.Elem()
	if code := p.FieldByName("Code").String(); code != wantCode {
		t.Errorf("code %q, want %q", code, wantCode)
	}
	if st := p.FieldByName("Status").Int(); st != int64(wantStatus) {
		t.Errorf("problem status member %d, want %d", st, wantStatus)
	}
	hdr := v.FieldByName("HTTPResponse").Interface().(*http.Response).Header
	if id := p.FieldByName("RequestId").String(); id == "" || id != hdr.Get("Request-Id") {
		t.Errorf("request_id %q, Request-Id header %q: want equal and non-empty", id, hdr.Get("Request-Id"))
	}
	if p.FieldByName("Title").String() == "" || p.FieldByName("Type").String() == "" || p.FieldByName("Detail").String() == "" {
		t.Errorf("a problem without type, title or detail: %s", v.FieldByName("Body").Bytes())
	}
	if wantStatus == http.StatusUnauthorized && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("401 with WWW-Authenticate %q, want a Bearer challenge", hdr.Get("WWW-Authenticate"))
	}
}

// --- the operations ---

func testCreatePlugin(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.api(t, e.dev)
	logo := "https://plugins.example/crm.png"
	desc := "Copies call transcripts into the CRM."
	crm := int64(42)
	body := client.CreatePluginJSONRequestBody{
		Name: "CRM sync", Description: &desc, LogoUri: &logo, CrmIntegrationId: &crm,
		Permissions: &struct {
			Transcript *client.Permission `json:"transcript,omitempty"`
			User       *client.Permission `json:"user,omitempty"`
		}{Transcript: ptr(client.Read), User: ptr(client.Read)},
	}
	key := "conformance-create-1"
	resp, err := c.CreatePluginWithResponse(ctx, &client.CreatePluginParams{IdempotencyKey: &key}, body)
	wantOK(t, resp, err)
	p := *resp.JSON200
	if p.Id < 1 || p.Name != "CRM sync" || p.Description != desc || p.LogoUri != logo ||
		p.CrmIntegrationId == nil || *p.CrmIntegrationId != 42 || p.Published || p.Disabled ||
		p.Permissions.User != client.Read || p.Permissions.Transcript != client.Read || !p.CreatedOn.Equal(p.UpdatedOn) {
		t.Errorf("created plugin %+v does not reflect the request", p)
	}
	if resp.Headers200 == nil || resp.Headers200.IdempotentReplayed != nil && *resp.Headers200.IdempotentReplayed {
		t.Errorf("a first create says Idempotent-Replayed: true")
	}
	e.plugin = p
	e.byID[p.Id] = p

	// The same key and body replay the first answer: same plugin, 200, marked.
	again, err := c.CreatePluginWithResponse(ctx, &client.CreatePluginParams{IdempotencyKey: &key}, body)
	wantOK(t, again, err)
	if again.JSON200.Id != p.Id || again.Headers200 == nil || again.Headers200.IdempotentReplayed == nil || !*again.Headers200.IdempotentReplayed {
		t.Errorf("replay: plugin %d (first %d), Idempotent-Replayed %v; want the first plugin, replayed", again.JSON200.Id, p.Id, again.Headers200)
	}

	// The same key with another body is refused.
	other := body
	other.Name = "Another"
	conflict, err := c.CreatePluginWithResponse(ctx, &client.CreatePluginParams{IdempotencyKey: &key}, other)
	wantProblem(t, conflict, err, http.StatusConflict, string(client.ConflictCodeIdempotencyKeyReused))

	// Omitted members take their defaults; a plugin for the permission tests.
	bare, err := c.CreatePluginWithResponse(ctx, nil, client.CreatePluginJSONRequestBody{Name: "No permissions"})
	wantOK(t, bare, err)
	if b := bare.JSON200; b.Description != "" || b.LogoUri != "" || b.CrmIntegrationId != nil ||
		b.Permissions.User != client.None || b.Permissions.Transcript != client.None {
		t.Errorf("defaults not applied: %+v", b)
	}
	e.noPerms = *bare.JSON200
	e.byID[bare.JSON200.Id] = *bare.JSON200

	// Bodies the document forbids.
	empty, err := c.CreatePluginWithResponse(invalid(), nil, client.CreatePluginJSONRequestBody{Name: ""})
	wantProblem(t, empty, err, http.StatusBadRequest, string(client.BadRequestCodeValidationFailed))
	unknown, err := c.CreatePluginWithBodyWithResponse(invalid(), nil, "application/json", strings.NewReader(`{"name":"x","permision":{"user":"read"}}`))
	wantProblem(t, unknown, err, http.StatusBadRequest, string(client.BadRequestCodeValidationFailed))
	text, err := c.CreatePluginWithBodyWithResponse(invalid(), nil, "text/plain", strings.NewReader(`{"name":"x"}`))
	wantProblem(t, text, err, http.StatusUnsupportedMediaType, string(client.UnsupportedMediaTypeCodeUnsupportedMediaType))
	huge := `{"name":"x","description":"` + strings.Repeat("a", 1<<20) + `"}`
	large, err := c.CreatePluginWithBodyWithResponse(invalid(), nil, "application/json", strings.NewReader(huge))
	wantProblem(t, large, err, http.StatusRequestEntityTooLarge, string(client.ContentTooLargeCodeRequestTooLarge))
	long := strings.Repeat("k", 256)
	longKey, err := c.CreatePluginWithResponse(invalid(), &client.CreatePluginParams{IdempotencyKey: &long}, body)
	wantProblem(t, longKey, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))

	// Credentials.
	anon, err := e.api(t, "").CreatePluginWithResponse(invalid(), nil, body)
	wantProblem(t, anon, err, http.StatusUnauthorized, string(client.UnauthorizedCodeMissingToken))
	if got := anon.HTTPResponse.Header.Get("WWW-Authenticate"); got != "Bearer" {
		t.Errorf("WWW-Authenticate without a token = %q, want Bearer", got)
	}
	wrong, err := e.api(t, "dk_live_not-a-key-of-anyone").CreatePluginWithResponse(invalid(), nil, body)
	wantProblem(t, wrong, err, http.StatusUnauthorized, string(client.UnauthorizedCodeInvalidToken))
	if len(e.s.Plugins()) != 2 {
		t.Errorf("the server holds %d plugins after two creates, a replay and refusals; want 2", len(e.s.Plugins()))
	}
}

func testGetPlugin(t *testing.T, e *env) {
	ctx := context.Background()
	resp, err := e.api(t, e.dev).GetPluginWithResponse(ctx, e.plugin.Id)
	wantOK(t, resp, err)
	if !reflect.DeepEqual(*resp.JSON200, e.plugin) {
		t.Errorf("got %+v, want the created %+v", *resp.JSON200, e.plugin)
	}
	// Another developer's plugin is as absent as a missing one.
	theirs, err := e.api(t, e.other).GetPluginWithResponse(ctx, e.plugin.Id)
	wantProblem(t, theirs, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
	missing, err := e.api(t, e.dev).GetPluginWithResponse(ctx, 1<<40)
	wantProblem(t, missing, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
	zero, err := e.api(t, e.dev).GetPluginWithResponse(invalid(), 0)
	wantProblem(t, zero, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))
}

func testListPlugins(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.api(t, e.dev)
	for i := range 5 {
		resp, err := c.CreatePluginWithResponse(ctx, nil, client.CreatePluginJSONRequestBody{Name: fmt.Sprintf("Plugin %d", i)})
		wantOK(t, resp, err)
		e.byID[resp.JSON200.Id] = *resp.JSON200
	}
	// Developer B owns one plugin, which A never sees.
	theirs, err := e.api(t, e.other).CreatePluginWithResponse(ctx, nil, client.CreatePluginJSONRequestBody{Name: "B's"})
	wantOK(t, theirs, err)

	var got []client.Plugin
	pages := paginate(t, len(e.byID), func(limit int, after int64) (any, []client.Plugin, bool, int) {
		resp, err := c.ListPluginsWithResponse(ctx, &client.ListPluginsParams{Limit: &limit, AfterId: &after})
		wantOK(t, resp, err)
		return resp, resp.JSON200.Data, resp.JSON200.HasMore, resp.JSON200.TotalCount
	}, func(p client.Plugin) int64 { return p.Id })
	got = pages
	if len(got) != len(e.byID) {
		t.Fatalf("listed %d plugins, developer A has %d", len(got), len(e.byID))
	}
	for _, p := range got {
		if want, ok := e.byID[p.Id]; !ok || !reflect.DeepEqual(p, want) {
			t.Errorf("listed %+v, created %+v", p, want)
		}
	}
	for _, limit := range []int{0, 101} {
		resp, err := c.ListPluginsWithResponse(invalid(), &client.ListPluginsParams{Limit: &limit})
		wantProblem(t, resp, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))
	}
	negative := int64(-1)
	resp, err := c.ListPluginsWithResponse(invalid(), &client.ListPluginsParams{AfterId: &negative})
	wantProblem(t, resp, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))
	// The default page: limit 20 from the start.
	def, err := c.ListPluginsWithResponse(ctx, nil)
	wantOK(t, def, err)
	if len(def.JSON200.Data) != len(e.byID) || def.JSON200.HasMore {
		t.Errorf("the default page has %d plugins (has_more %v), want all %d", len(def.JSON200.Data), def.JSON200.HasMore, len(e.byID))
	}
}

// paginate walks a list operation with a page size that needs several pages
// and checks the document's pagination rules: ascending ids, after_id
// continues after the last item, has_more is true exactly while items remain,
// total_count is the whole collection on every page. It returns every item.
func paginate[T any](t *testing.T, total int, page func(limit int, after int64) (any, []T, bool, int), id func(T) int64) []T {
	t.Helper()
	limit := max(1, (total+2)/3) // three pages, the last one possibly short
	var all []T
	after := int64(0)
	for n := 0; ; n++ {
		if n > total+1 {
			t.Fatal("pagination does not end")
		}
		_, items, more, count := page(limit, after)
		if count != total {
			t.Errorf("total_count %d on page %d, want %d", count, n, total)
		}
		if len(items) > limit {
			t.Errorf("page of %d items, limit %d", len(items), limit)
		}
		for _, it := range items {
			if id(it) <= after {
				t.Errorf("id %d after %d: not ascending", id(it), after)
			}
			after = id(it)
		}
		all = append(all, items...)
		if more != (len(all) < total) {
			t.Errorf("has_more %v with %d of %d items listed", more, len(all), total)
		}
		if !more || len(items) == 0 {
			break
		}
	}
	// A page after the last id is empty and says so.
	_, items, more, count := page(limit, after)
	if len(items) != 0 || more || count != total {
		t.Errorf("after the last id: %d items, has_more %v, total_count %d; want none, false, %d", len(items), more, count, total)
	}
	return all
}

var secretKeyValue = regexp.MustCompile(`^ask_live_[A-Za-z0-9_-]{43,}={0,2}$`)

func testCreatePluginSecretKey(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.api(t, e.dev)
	desc := "backend"
	resp, err := c.CreatePluginSecretKeyWithResponse(ctx, e.plugin.Id, nil, client.CreatePluginSecretKeyJSONRequestBody{Description: &desc})
	wantOK(t, resp, err)
	k := resp.JSON200
	if k.PluginId != e.plugin.Id || k.Description != desc || k.Id < 1 || !secretKeyValue.MatchString(k.Value) {
		t.Errorf("created key: plugin %d, description %q, id %d, value matches the pattern: %v", k.PluginId, k.Description, k.Id, secretKeyValue.MatchString(k.Value))
	}
	e.keyVal = k.Value

	// No body at all: a key with an empty description.
	nobody, err := c.CreatePluginSecretKeyWithBodyWithResponse(ctx, e.noPerms.Id, nil, "", nil)
	wantOK(t, nobody, err)
	if nobody.JSON200.Description != "" || nobody.JSON200.PluginId != e.noPerms.Id {
		t.Errorf("a key created without a body: %q for plugin %d", nobody.JSON200.Description, nobody.JSON200.PluginId)
	}
	e.noKey = nobody.JSON200.Value

	// With an Idempotency-Key, a retry returns the same key, value included.
	key := "conformance-key-1"
	first, err := c.CreatePluginSecretKeyWithResponse(ctx, e.noPerms.Id, &client.CreatePluginSecretKeyParams{IdempotencyKey: &key}, client.CreatePluginSecretKeyJSONRequestBody{})
	wantOK(t, first, err)
	replay, err := c.CreatePluginSecretKeyWithResponse(ctx, e.noPerms.Id, &client.CreatePluginSecretKeyParams{IdempotencyKey: &key}, client.CreatePluginSecretKeyJSONRequestBody{})
	wantOK(t, replay, err)
	if replay.JSON200.Id != first.JSON200.Id || replay.JSON200.Value != first.JSON200.Value {
		t.Errorf("replayed key %d, first %d: want the same key", replay.JSON200.Id, first.JSON200.Id)
	}

	changed := "another body"
	conflict, err := c.CreatePluginSecretKeyWithResponse(ctx, e.noPerms.Id, &client.CreatePluginSecretKeyParams{IdempotencyKey: &key}, client.CreatePluginSecretKeyJSONRequestBody{Description: &changed})
	wantProblem(t, conflict, err, http.StatusConflict, string(client.ConflictCodeIdempotencyKeyReused))
	text, err := c.CreatePluginSecretKeyWithBodyWithResponse(invalid(), e.plugin.Id, nil, "text/plain", strings.NewReader(`{}`))
	wantProblem(t, text, err, http.StatusUnsupportedMediaType, string(client.UnsupportedMediaTypeCodeUnsupportedMediaType))
	huge := `{"description":"` + strings.Repeat("a", 1<<20) + `"}`
	large, err := c.CreatePluginSecretKeyWithBodyWithResponse(invalid(), e.plugin.Id, nil, "application/json", strings.NewReader(huge))
	wantProblem(t, large, err, http.StatusRequestEntityTooLarge, string(client.ContentTooLargeCodeRequestTooLarge))
	theirs, err := e.api(t, e.other).CreatePluginSecretKeyWithResponse(ctx, e.plugin.Id, nil, client.CreatePluginSecretKeyJSONRequestBody{})
	wantProblem(t, theirs, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
	unknown, err := c.CreatePluginSecretKeyWithBodyWithResponse(invalid(), e.plugin.Id, nil, "application/json", strings.NewReader(`{"descripton":"typo"}`))
	wantProblem(t, unknown, err, http.StatusBadRequest, string(client.BadRequestCodeValidationFailed))
	if n := len(e.s.SecretKeys(e.noPerms.Id)); n != 2 {
		t.Errorf("plugin %d holds %d keys after a create, a create and its replay; want 2", e.noPerms.Id, n)
	}
}

var signingSecret = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]+={0,2}$`)

func testListWebhooks(t *testing.T, e *env) {
	ctx := context.Background()
	// Webhooks are registered on the platform, not through this API.
	hook, err := e.s.CreateWebhook(e.plugin.Id, e.hooks.url)
	must(t, err)
	e.hooks.setSecret(t, hook.SigningSecret.Reveal())
	resp, err := e.api(t, e.dev).ListWebhooksWithResponse(ctx, e.plugin.Id, nil)
	wantOK(t, resp, err)
	l := resp.JSON200
	if l.TotalCount != 1 || l.HasMore || len(l.Data) != 1 {
		t.Fatalf("webhooks page %+v, want the one webhook", l)
	}
	w := l.Data[0]
	if w.Id != hook.ID || w.PluginId != e.plugin.Id || w.Uri != e.hooks.url || !signingSecret.MatchString(w.SigningSecret) || w.SigningSecret != hook.SigningSecret.Reveal() {
		t.Errorf("listed webhook %d for plugin %d at %q (secret matches: %v); want webhook %d at %q", w.Id, w.PluginId, w.Uri, signingSecret.MatchString(w.SigningSecret), hook.ID, e.hooks.url)
	}
	none, err := e.api(t, e.dev).ListWebhooksWithResponse(ctx, e.noPerms.Id, nil)
	wantOK(t, none, err)
	if none.JSON200.Data == nil || len(none.JSON200.Data) != 0 || none.JSON200.TotalCount != 0 {
		t.Errorf("a plugin without webhooks lists %+v, want data [] and total_count 0", none.JSON200)
	}
	theirs, err := e.api(t, e.other).ListWebhooksWithResponse(ctx, e.plugin.Id, nil)
	wantProblem(t, theirs, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
}

func testListPluginInstallations(t *testing.T, e *env) {
	ctx := context.Background()
	// Installing is something users do on the platform: seed it. Each install
	// and uninstall also sends its event to the webhook registered above.
	inst, err := e.s.Install(e.plugin.Id, e.userID)
	must(t, err)
	e.inst = inst.UUID
	gone, err := e.s.Install(e.plugin.Id, e.otherID)
	must(t, err)
	_, err = e.s.Uninstall(gone.UUID)
	must(t, err)
	noInst, err := e.s.Install(e.noPerms.Id, e.userID)
	must(t, err)
	e.noInst = noInst.UUID

	c := e.api(t, e.dev)
	items := paginate(t, 2, func(limit int, after int64) (any, []client.PluginInstallation, bool, int) {
		resp, err := c.ListPluginInstallationsWithResponse(ctx, e.plugin.Id, &client.ListPluginInstallationsParams{Limit: &limit, AfterId: &after})
		wantOK(t, resp, err)
		return resp, resp.JSON200.Data, resp.JSON200.HasMore, resp.JSON200.TotalCount
	}, func(i client.PluginInstallation) int64 { return i.Id })
	if len(items) != 2 {
		t.Fatalf("listed %d installations, want 2", len(items))
	}
	byUUID := map[string]client.PluginInstallation{}
	for _, i := range items {
		byUUID[i.Uuid.String()] = i
		if i.PluginId != e.plugin.Id {
			t.Errorf("installation %d of plugin %d listed under plugin %d", i.Id, i.PluginId, e.plugin.Id)
		}
	}
	if g := byUUID[inst.UUID]; g.UserId != e.userID || g.FirstName != "Grace" || g.LastName != "Hopper" || string(g.EmailAddress) != "grace@example.com" || g.DeletedOn != nil {
		t.Errorf("Grace's installation listed as %+v", g)
	}
	if a := byUUID[gone.UUID]; a.UserId != e.otherID || a.DeletedOn == nil {
		t.Errorf("the uninstalled installation listed as %+v, want deleted_on set", a)
	}
	theirs, err := e.api(t, e.other).ListPluginInstallationsWithResponse(ctx, e.plugin.Id, nil)
	wantProblem(t, theirs, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
}

func testGetMe(t *testing.T, e *env) {
	ctx := context.Background()
	e.jwt = mint(t, e.keyVal, e.inst, time.Now(), time.Hour)
	resp, err := e.api(t, e.jwt).GetMeWithResponse(ctx)
	wantOK(t, resp, err)
	if u := resp.JSON200; u.Id != e.userID || u.FirstName != "Grace" || u.LastName != "Hopper" || string(u.EmailAddress) != "grace@example.com" {
		t.Errorf("me = %+v, want Grace (user %d)", u, e.userID)
	}
	// A plugin whose permissions.user is none may not read the user.
	e.noJWT = mint(t, e.noKey, e.noInst, time.Now(), time.Hour)
	denied, err := e.api(t, e.noJWT).GetMeWithResponse(ctx)
	wantProblem(t, denied, err, http.StatusForbidden, string(client.ForbiddenCodePermissionDenied))
	// A developer key is the wrong kind of token for the installation operations.
	kind, err := e.api(t, e.dev).GetMeWithResponse(ctx)
	wantProblem(t, kind, err, http.StatusForbidden, string(client.ForbiddenCodeWrongTokenKind))
}

func testListTranscripts(t *testing.T, e *env) {
	ctx := context.Background()
	const n = 7
	for i := range n {
		_, err := e.s.CreateTranscript(e.userID, scribetest.TranscriptParams{Headline: fmt.Sprintf("Call %d", i), Text: "Hello.", Type: "phone_call",
			Metadata: map[string]any{"n": float64(i)}})
		must(t, err)
	}
	_, err := e.s.CreateTranscript(e.otherID, scribetest.TranscriptParams{Headline: "Alan's", Type: "dictation"})
	must(t, err)

	c := e.api(t, e.jwt)
	items := paginate(t, n, func(limit int, after int64) (any, []client.Transcript, bool, int) {
		resp, err := c.ListTranscriptsWithResponse(ctx, &client.ListTranscriptsParams{Limit: &limit, AfterId: &after})
		wantOK(t, resp, err)
		return resp, resp.JSON200.Data, resp.JSON200.HasMore, resp.JSON200.TotalCount
	}, func(tr client.Transcript) int64 { return tr.Id })
	stored := e.s.Transcripts(e.userID)
	if len(items) != len(stored) {
		t.Fatalf("listed %d transcripts, Grace has %d", len(items), len(stored))
	}
	for i, tr := range items {
		s := stored[i]
		raw, err := json.Marshal(s.Metadata)
		must(t, err)
		var meta map[string]any
		must(t, json.Unmarshal(raw, &meta))
		if tr.Id != s.ID || tr.Headline != s.Headline || tr.Type != s.Type || tr.User.Id != e.userID || tr.User.FirstName != "Grace" ||
			!reflect.DeepEqual(tr.Metadata, meta) || !tr.CreatedOn.Equal(s.CreatedOn) || tr.Job.Id != s.Job.ID || tr.Audio.Id != s.Audio.ID {
			t.Errorf("listed %+v, stored %+v", tr, s)
		}
	}
	denied, err := e.api(t, e.noJWT).ListTranscriptsWithResponse(ctx, nil)
	wantProblem(t, denied, err, http.StatusForbidden, string(client.ForbiddenCodePermissionDenied))
	zero := 0
	bad, err := c.ListTranscriptsWithResponse(invalid(), &client.ListTranscriptsParams{Limit: &zero})
	wantProblem(t, bad, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))
	kind, err := e.api(t, e.dev).ListTranscriptsWithResponse(ctx, nil)
	wantProblem(t, kind, err, http.StatusForbidden, string(client.ForbiddenCodeWrongTokenKind))
}

func testGetTranscript(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.api(t, e.jwt)
	mine := e.s.Transcripts(e.userID)[0]
	resp, err := c.GetTranscriptWithResponse(ctx, mine.ID)
	wantOK(t, resp, err)
	if tr := resp.JSON200; tr.Id != mine.ID || tr.Headline != mine.Headline || tr.Text != mine.Text || tr.User.Id != e.userID {
		t.Errorf("got %+v, want transcript %d", tr, mine.ID)
	}
	// Alan's transcript is outside the installation's scope: 404, like a missing one.
	alans := e.s.Transcripts(e.otherID)[0]
	theirs, err := c.GetTranscriptWithResponse(ctx, alans.ID)
	wantProblem(t, theirs, err, http.StatusNotFound, string(client.NotFoundCodeNotFound))
	zero, err := c.GetTranscriptWithResponse(invalid(), 0)
	wantProblem(t, zero, err, http.StatusBadRequest, string(client.BadRequestCodeInvalidParameter))

	// The token refusals of the installationJWT scheme.
	expired := mint(t, e.keyVal, e.inst, time.Now().Add(-3*time.Hour), time.Hour)
	r, err := e.api(t, expired).GetTranscriptWithResponse(ctx, mine.ID)
	wantProblem(t, r, err, http.StatusUnauthorized, string(client.UnauthorizedCodeTokenExpired))
	forged := mint(t, "ask_live_"+strings.Repeat("A", 43), e.inst, time.Now(), time.Hour)
	r, err = e.api(t, forged).GetTranscriptWithResponse(ctx, mine.ID)
	wantProblem(t, r, err, http.StatusUnauthorized, string(client.UnauthorizedCodeInvalidToken))
	r, err = e.api(t, "").GetTranscriptWithResponse(invalid(), mine.ID)
	wantProblem(t, r, err, http.StatusUnauthorized, string(client.UnauthorizedCodeMissingToken))

	_, err = e.s.DisablePlugin(e.plugin.Id)
	must(t, err)
	r, err = c.GetTranscriptWithResponse(ctx, mine.ID)
	wantProblem(t, r, err, http.StatusForbidden, string(client.ForbiddenCodePluginDisabled))
	_, err = e.s.EnablePlugin(e.plugin.Id)
	must(t, err)

	// A transcript change reaches the webhook; then Grace uninstalls, and her
	// installation's tokens stop working.
	_, err = e.s.UpdateTranscript(mine.ID, func(tr *scribe.Transcript) { tr.Headline = "Renamed" })
	must(t, err)
	_, err = e.s.Uninstall(e.inst)
	must(t, err)
	r, err = c.GetTranscriptWithResponse(ctx, mine.ID)
	wantProblem(t, r, err, http.StatusUnauthorized, string(client.UnauthorizedCodeInstallationDeleted))
}

// opCall is one operation called through the generated client.
type opCall struct {
	method, path string
	call         func(ctx context.Context, dev, inst *client.ClientWithResponses) (any, error)
}

// everyOperation calls each operation of the document once, on plugin id and
// transcript tid; bad makes each call one the document forbids: a path id of
// 0, a limit of 0, or a create without a name (getMe has no parameter to get
// wrong, so it is left out then).
func everyOperation(id, tid int64, bad bool) []opCall {
	limit := 20
	if bad {
		id, tid, limit = 0, 0, 0
	}
	name := "never"
	if bad {
		name = ""
	}
	calls := []opCall{
		{"GET", "/transcripts", func(ctx context.Context, _, c *client.ClientWithResponses) (any, error) {
			return c.ListTranscriptsWithResponse(ctx, &client.ListTranscriptsParams{Limit: &limit})
		}},
		{"GET", "/transcripts/{id}", func(ctx context.Context, _, c *client.ClientWithResponses) (any, error) {
			return c.GetTranscriptWithResponse(ctx, tid)
		}},
		{"GET", "/plugins", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.ListPluginsWithResponse(ctx, &client.ListPluginsParams{Limit: &limit})
		}},
		{"POST", "/plugins", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.CreatePluginWithResponse(ctx, nil, client.CreatePluginJSONRequestBody{Name: name})
		}},
		{"GET", "/plugins/{id}", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.GetPluginWithResponse(ctx, id)
		}},
		{"POST", "/plugins/{id}/secret_keys", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.CreatePluginSecretKeyWithResponse(ctx, id, nil, client.CreatePluginSecretKeyJSONRequestBody{})
		}},
		{"GET", "/plugins/{id}/installations", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.ListPluginInstallationsWithResponse(ctx, id, &client.ListPluginInstallationsParams{Limit: &limit})
		}},
		{"GET", "/plugins/{id}/webhooks", func(ctx context.Context, c, _ *client.ClientWithResponses) (any, error) {
			return c.ListWebhooksWithResponse(ctx, id, &client.ListWebhooksParams{Limit: &limit})
		}},
	}
	if !bad {
		calls = append(calls, opCall{"GET", "/users/me", func(ctx context.Context, _, c *client.ClientWithResponses) (any, error) {
			return c.GetMeWithResponse(ctx)
		}})
	}
	return calls
}

// testRefusals runs every operation into each refusal every operation
// declares: no token (401 missing_token), the other kind of token (403
// wrong_token_kind), a malformed parameter or body (400), and each transient
// failure (429, 500, 502, 503, 504, injected by the server), checking that the
// generated client decodes the problem and the headers the document promises
// (Retry-After on 429, and on 503 when given). Nothing is created meanwhile.
func testRefusals(t *testing.T, e *env) {
	ctx := context.Background()
	// Grace installs again, for a working JWT after the uninstall above.
	inst, err := e.s.Install(e.plugin.Id, e.userID)
	must(t, err)
	jwtTok := mint(t, e.keyVal, inst.UUID, time.Now(), time.Hour)
	dev, ins, anon := e.api(t, e.dev), e.api(t, jwtTok), e.api(t, "")
	id, tid := e.plugin.Id, e.s.Transcripts(e.userID)[0].ID
	plugins, keys := len(e.s.Plugins()), len(e.s.SecretKeys(id))

	for _, c := range everyOperation(id, tid, false) {
		t.Run(fmt.Sprintf("%s %s without a token", c.method, c.path), func(t *testing.T) {
			resp, err := c.call(invalid(), anon, anon)
			wantProblem(t, resp, err, http.StatusUnauthorized, string(client.UnauthorizedCodeMissingToken))
		})
		t.Run(fmt.Sprintf("%s %s with the other kind of token", c.method, c.path), func(t *testing.T) {
			resp, err := c.call(ctx, ins, dev) // tokens swapped
			wantProblem(t, resp, err, http.StatusForbidden, string(client.ForbiddenCodeWrongTokenKind))
		})
		codes := map[int]string{429: "rate_limited", 500: "internal_error", 502: "bad_gateway", 503: "service_unavailable", 504: "gateway_timeout"}
		for _, st := range []int{429, 500, 502, 503, 504} {
			t.Run(fmt.Sprintf("%s %s %d", c.method, c.path, st), func(t *testing.T) {
				must(t, e.s.InjectFault(scribetest.Fault{Method: c.method, Path: c.path, Status: st, RetryAfter: 2 * time.Second}))
				resp, err := c.call(ctx, dev, ins)
				wantProblem(t, resp, err, st, codes[st])
				h := reflect.ValueOf(resp).Elem().FieldByName("HTTPResponse").Interface().(*http.Response).Header
				if (st == 429 || st == 503) && h.Get("Retry-After") != "2" {
					t.Errorf("Retry-After %q, want 2", h.Get("Retry-After"))
				}
			})
		}
	}
	// Limits on the request's size, where the document declares them: a
	// request target over the limit (414), header fields over it (431). The
	// sizes are above any limit the document states (8 KiB, 32 KiB).
	limits := []struct {
		status int
		edit   func(*http.Request)
	}{
		{http.StatusRequestURITooLong, func(r *http.Request) {
			if r.URL.RawQuery != "" {
				r.URL.RawQuery += "&"
			}
			r.URL.RawQuery += "pad=" + strings.Repeat("a", 64<<10)
		}},
		{http.StatusRequestHeaderFieldsTooLarge, func(r *http.Request) {
			r.Header.Set("X-Pad", strings.Repeat("a", 256<<10))
		}},
	}
	for _, c := range everyOperation(id, tid, false) {
		for _, l := range limits {
			code, declared := declaredCode(e.doc, c.method, c.path, l.status)
			if !declared {
				continue
			}
			t.Run(fmt.Sprintf("%s %s %d", c.method, c.path, l.status), func(t *testing.T) {
				resp, err := c.call(withEdit(invalid(), l.edit), dev, ins)
				wantProblem(t, resp, err, l.status, code)
			})
		}
	}
	for _, c := range everyOperation(id, tid, true) {
		t.Run(fmt.Sprintf("%s %s malformed", c.method, c.path), func(t *testing.T) {
			resp, err := c.call(invalid(), dev, ins)
			want := string(client.BadRequestCodeInvalidParameter)
			if c.method == http.MethodPost && c.path == "/plugins" {
				want = string(client.BadRequestCodeValidationFailed)
			}
			wantProblem(t, resp, err, http.StatusBadRequest, want)
		})
	}
	if got := len(e.s.Plugins()); got != plugins {
		t.Errorf("refused creates created plugins (%d, want %d)", got, plugins)
	}
	if got := len(e.s.SecretKeys(id)); got != keys {
		t.Errorf("refused creates created secret keys (%d, want %d)", got, keys)
	}
}

// declaredCode returns the problem code the document gives an operation's
// status (the first of its code enum), and whether the operation declares
// the status at all.
func declaredCode(doc *openapi3.T, method, path string, status int) (string, bool) {
	op := doc.Paths.Find(path).GetOperation(method)
	r := op.Responses.Status(status)
	if r == nil {
		return "", false
	}
	for _, mt := range r.Value.Content {
		for _, part := range mt.Schema.Value.AllOf {
			if code := part.Value.Properties["code"]; code != nil && len(code.Value.Enum) > 0 {
				s, _ := code.Value.Enum[0].(string)
				return s, true
			}
		}
	}
	return "", true
}

// testUnknownPathAndMethod checks the two answers the document gives in its
// description rather than on an operation: 404 for an unknown path, 405 with
// Allow for a method a known path lacks.
func testUnknownPathAndMethod(t *testing.T, e *env) {
	for _, tc := range []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/nothing/here", 404, "not_found", ""},
		{"DELETE", "/plugins", 405, "method_not_allowed", "POST"},
		{"GET", fmt.Sprintf("/plugins/%d/secret_keys", e.plugin.Id), 405, "method_not_allowed", "POST"},
	} {
		req, err := http.NewRequestWithContext(invalid(), tc.method, e.base+tc.path, nil)
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+e.dev)
		resp, err := e.hc.Do(req)
		must(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var p struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
		}
		if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != tc.status || p.Status != tc.status || p.Code != tc.code ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d %s %s, want %d %s problem+json", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.code)
		}
		if tc.allow != "" && !strings.Contains(resp.Header.Get("Allow"), tc.allow) {
			t.Errorf("%s %s: Allow %q, want it to list %s", tc.method, tc.path, resp.Header.Get("Allow"), tc.allow)
		}
	}
}

// --- webhooks ---

// receiver is a webhook endpoint written from the document alone: it checks
// the webhook-signature as the document describes (HMAC-SHA256 with the key
// the whsec_ signing secret encodes) and decodes each event into the type
// generated for it.
type receiver struct {
	url string
	v   *apitest.Validator

	mu     sync.Mutex
	key    []byte
	events map[string][]any // by type
	errs   []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{events: map[string][]any{}, v: apitest.NewValidator(t)}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hooks/scribe"
	return r
}

func (r *receiver) setSecret(t *testing.T, secret string) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	must(t, err)
	r.mu.Lock()
	r.key = key
	r.mu.Unlock()
}

func (r *receiver) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := r.v.ValidateWebhook(req, body); err != nil {
		r.fail("%v", err)
	}
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	r.mu.Lock()
	mac := hmac.New(sha256.New, r.key)
	r.mu.Unlock()
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !slices.Contains(strings.Fields(req.Header.Get("webhook-signature")), want) {
		r.fail("event %s: no valid v1 signature in %q", id, req.Header.Get("webhook-signature"))
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if sec, err := strconv.ParseInt(ts, 10, 64); err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		r.fail("event %s: webhook-timestamp %q is not within 5 minutes", id, ts)
	}
	var envelope struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &envelope)
	var ev any
	switch envelope.Type {
	case "installation.created":
		ev = new(client.InstallationCreatedJSONRequestBody)
	case "installation.deleted":
		ev = new(client.InstallationDeletedJSONRequestBody)
	case "transcript.created":
		ev = new(client.TranscriptCreatedJSONRequestBody)
	case "transcript.updated":
		ev = new(client.TranscriptUpdatedJSONRequestBody)
	default:
		w.WriteHeader(http.StatusNoContent) // receivers ignore kinds they do not know
		return
	}
	if err := json.Unmarshal(body, ev); err != nil {
		r.fail("event %s: %v", envelope.Type, err)
	} else if got := reflect.ValueOf(ev).Elem().FieldByName("Id").String(); got != id {
		r.fail("event %s: id %q, webhook-id %q", envelope.Type, got, id)
	}
	r.mu.Lock()
	r.events[envelope.Type] = append(r.events[envelope.Type], ev)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// testWebhookEvents checks the four events the earlier operations caused at
// the webhook of plugin A: Grace's and Alan's installations (one later
// uninstalled, and Grace's uninstalled in testGetTranscript), the
// transcripts created for Grace and the one updated.
func testWebhookEvents(t *testing.T, e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, e.s.WaitForDeliveries(ctx))
	r := e.hooks
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, msg := range r.errs {
		t.Error(msg)
	}
	count := func(typ string) int { return len(r.events[typ]) }
	if count("installation.created") != 2 || count("installation.deleted") != 2 || count("transcript.created") != 7 || count("transcript.updated") != 1 {
		t.Errorf("received installation.created %d, installation.deleted %d, transcript.created %d, transcript.updated %d; want 2, 2, 7, 1",
			count("installation.created"), count("installation.deleted"), count("transcript.created"), count("transcript.updated"))
	}
	for _, ev := range r.events["installation.created"] {
		c := ev.(*client.InstallationCreatedJSONRequestBody)
		if c.Type != "installation.created" || c.PluginId != e.plugin.Id || c.Data.PluginId != e.plugin.Id || c.Data.Uuid != c.PluginInstallationUuid || c.Data.DeletedOn != nil {
			t.Errorf("installation.created %+v", c)
		}
	}
	for _, ev := range r.events["installation.deleted"] {
		d := ev.(*client.InstallationDeletedJSONRequestBody)
		if d.Type != "installation.deleted" || d.Data.DeletedOn == nil || d.Data.Uuid != d.PluginInstallationUuid {
			t.Errorf("installation.deleted %+v", d)
		}
	}
	for _, ev := range r.events["transcript.created"] {
		c := ev.(*client.TranscriptCreatedJSONRequestBody)
		if c.Type != "transcript.created" || c.Data.User.Id != e.userID || c.PluginInstallationUuid.String() != e.inst {
			t.Errorf("transcript.created %+v (installation %s)", c, e.inst)
		}
	}
	for _, ev := range r.events["transcript.updated"] {
		u := ev.(*client.TranscriptUpdatedJSONRequestBody)
		if u.Type != "transcript.updated" || u.Data.Headline != "Renamed" {
			t.Errorf("transcript.updated %+v", u)
		}
	}
}

// --- which statuses were answered ---

// seen records the status of every answer, by operation, as the document's
// router resolves each request.
type seen struct {
	router routers.Router // of the document TestConformance loaded

	mu    sync.Mutex
	pairs map[string]map[int]bool // operationId -> statuses
}

func (s *seen) transport(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		probe := req.Clone(req.Context())
		probe.URL.Path = strings.TrimPrefix(probe.URL.Path, basePath)
		if route, _, err := s.router.FindRoute(probe); err == nil {
			id := route.Operation.OperationID
			if s.pairs[id] == nil {
				s.pairs[id] = map[int]bool{}
			}
			s.pairs[id][resp.StatusCode] = true
		}
		return resp, nil
	})
}

// checkEveryDeclaredStatus fails t for each status an operation declares that
// the run never saw answered, and for each answered status it does not
// declare.
func (s *seen) checkEveryDeclaredStatus(t *testing.T, doc *openapi3.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			var missing []string
			for code := range op.Responses.Map() {
				n, _ := strconv.Atoi(code)
				if !s.pairs[op.OperationID][n] {
					missing = append(missing, code)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s: declared statuses never answered in the run: %v", op.OperationID, missing)
			}
			for n := range s.pairs[op.OperationID] {
				if op.Responses.Status(n) == nil {
					t.Errorf("%s answered %d, which it does not declare", op.OperationID, n)
				}
			}
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func ptr[T any](v T) *T { return &v }
