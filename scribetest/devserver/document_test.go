package devserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// adminDocument is api/admin.yaml, which refers to api/openapi.yaml for
// the contract's resources.
const adminDocument = "../../api/admin.yaml"

// samples are a request of each documented operation, by operationId, on
// a server with the demo data set and a webhook of plugin 100, in an order
// where each answers its success.
var samples = []struct{ id, path, body string }{
	{"health", "/_scribetest/healthz", ""},
	{"install", "/_scribetest/installations", `{"plugin_id":100,"user_id":9}`},
	{"uninstall", "/_scribetest/installations/0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", ""},
	{"createTranscript", "/_scribetest/transcripts", `{"user_id":8,"headline":"Standup","metadata":{"room":"B2"},"job":{"lines":3}}`},
	{"updateTranscript", "/_scribetest/transcripts/1", `{"headline":"Standup (edited)"}`},
	{"deleteUser", "/_scribetest/users/9", ""},
	{"createWebhook", "/_scribetest/webhooks", `{"plugin_id":100,"uri":"http://127.0.0.1:9/b"}`},
	{"trigger", "/_scribetest/trigger", `{"plugin_id":100,"type":"installation.created","uri":"http://127.0.0.1:9/c"}`},
	{"resend", "/_scribetest/events/{id}/resend", ""}, // the trigger's event
	{"createScene", "/_scribetest/scenes", `{"plugin_id":100,"uninstalled":true}`},
	{"listDeliveries", "/_scribetest/deliveries", ""},
	{"listRequests", "/_scribetest/requests?installation=0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90&status=2xx", ""},
	{"listEvents", "/_scribetest/events", ""},
	{"addCheck", "/_scribetest/checks", `{"receiver":"http://127.0.0.1:9/c","rule":"redelivery","verdict":"fail","claim":"a redelivered event is processed once","detail":"processed twice","events":["transcript.created evt_1"]}`},
	{"listChecks", "/_scribetest/checks", ""},
	{"injectFault", "/_scribetest/faults", `{"path":"/users/me","times":2,"status":503,"retry_after_ms":1000}`},
	{"listFaults", "/_scribetest/faults", ""},
	{"clearFaults", "/_scribetest/faults", ""},
	{"setRateLimit", "/_scribetest/rate-limit", `{"limit":10,"window_ms":1000}`},
	{"exportFixtures", "/_scribetest/fixtures", ""},
	{"reset", "/_scribetest/reset", ""},
}

// The dev server's routes and api/admin.yaml hold each other both ways:
// every route is a documented operation, every documented operation is
// routed, and its answer to a request of its own conforms to the document
// (the dashboard's HTML pages are not operations of the document).
func TestRoutesAreTheDocument(t *testing.T) {
	t.Parallel()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	doc, err := loader.LoadFromFile(adminDocument)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("api/admin.yaml is not a valid OpenAPI document: %v", err)
	}
	doc.Servers = nil // match paths alone
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}

	s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(scribetest.DemoFixtures()),
		scribetest.WithWebhookSchedule(0, time.Hour), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateWebhook(100, "http://127.0.0.1:9/a"); err != nil {
		t.Fatal(err)
	}
	h, err := New(s, WithAdminAPI())
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{} // "METHOD path" -> operationId
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented[method+" "+path] = op.OperationID
		}
	}
	routed := map[string]bool{}
	for _, rt := range (&devServer{s: s}).routes() {
		routed[rt.method+" "+PathPrefix+rt.path] = true
		if _, ok := documented[rt.method+" "+PathPrefix+rt.path]; !ok {
			t.Errorf("the route %s %s%s is not in api/admin.yaml", rt.method, PathPrefix, rt.path)
		}
	}

	methods := map[string]string{} // operationId -> method
	for key, id := range documented {
		methods[id], _, _ = strings.Cut(key, " ")
		if !routed[key] {
			t.Errorf("api/admin.yaml's %s (%s) is not routed", key, id)
		}
		if !slices.ContainsFunc(samples, func(smp struct{ id, path, body string }) bool { return smp.id == id }) {
			t.Errorf("api/admin.yaml's %s (%s) has no sample request here", key, id)
		}
	}
	// Records for the lists to hold: a request of the installation the
	// listRequests sample names, and one of no installation.
	jwt, err := auth.Mint(demoKey(t), demoInstallation, s.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	serve := func(path, token string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		s.Handler().ServeHTTP(httptest.NewRecorder(), r)
	}
	serve("/users/me", jwt)
	serve("/plugins", "")
	event := ""
	for _, smp := range samples {
		method, ok := methods[smp.id]
		if !ok {
			t.Errorf("the sample %s is of no operation of api/admin.yaml", smp.id)
			continue
		}
		path := strings.Replace(smp.path, "{id}", event, 1)
		req := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(smp.body))
		if smp.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Errorf("%s %s: %d %s", method, path, rec.Code, rec.Body)
			continue
		}
		switch smp.id {
		case "trigger": // its first attempt, to a port that refuses, is listed too, and its retry pending
			var answer struct{ Events []struct{ ID string } }
			_ = json.Unmarshal(rec.Body.Bytes(), &answer)
			event = answer.Events[0].ID
			for deadline := time.Now().Add(10 * time.Second); len(s.Deliveries()) == 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		case "injectFault": // fired once, so that both lists hold one
			serve("/users/me", jwt)
		}
		if err := conforms(router, req, smp.body, rec); err != nil {
			t.Errorf("%s %s: the answer does not conform to api/admin.yaml: %v\n%s", method, path, err, rec.Body)
		}
	}
}

// The demo data set's secret key and installation, public.
const demoInstallation = "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90"

func demoKey(t *testing.T) auth.SecretKey {
	t.Helper()
	k, err := auth.ParseSecretKey("ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// conforms validates a request, whose body was body, and the answer rec
// recorded against the document.
func conforms(router routers.Router, req *http.Request, body string, rec *httptest.ResponseRecorder) error {
	ctx := context.Background()
	r := req.Clone(ctx)
	r.Body = io.NopCloser(strings.NewReader(body))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return err
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return fmt.Errorf("the request: %w", err)
	}
	return openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{RequestValidationInput: in,
		Status: rec.Code, Header: rec.Header(), Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}})
}
