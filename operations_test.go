package scribe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
)

// Full sample resources as the service sends them (every field present).
const (
	transcriptJSON = `{"id":42,"headline":"Weekly sync","text":"Hello.","type":"meeting",
		"created_on":"2026-11-21T09:30:00Z","metadata":{"crm":"acme","n":12345678901234567890},
		"user":{"id":8,"first_name":"Grace","last_name":"Hopper"},
		"job":{"id":5,"lines":3},
		"audio":{"id":6,"length_in_seconds":42,"created_on":"2026-11-21T09:00:00+01:00"},
		"future_field":"ignored"}`
	userJSON   = `{"id":8,"first_name":"Grace","last_name":"Hopper","email_address":"grace@example.com"}`
	pluginJSON = `{"id":100,"name":"CRM sync","description":"Copies transcripts","permissions":{"user":"read","transcript":"none"},
		"published":true,"disabled":false,"crm_integration_id":9,"logo_uri":"https://cdn.example.com/logo.png",
		"user_id":7,"created_on":"2026-11-01T08:00:00Z","updated_on":"2026-11-02T08:00:00Z"}`
	secretKeyJSON = `{"id":3,"description":"ci","value":"ask_live_c2VjcmV0LW1hdGVyaWFsLXRoYXQtbXVzdC1ub3QtbGVhaw",
		"plugin_id":100,"created_on":"2026-11-03T08:00:00Z","updated_on":"2026-11-03T08:00:00Z"}`
	installationJSON = `{"id":1,"uuid":"0b6d7c1e-4c1a-4f57-9a43-0d2c8e3b5a11","plugin_id":100,"user_id":8,
		"first_name":"Grace","last_name":"Hopper","email_address":"grace@example.com",
		"created_on":"2026-11-04T08:00:00Z","updated_on":"2026-11-05T08:00:00Z","deleted_on":"2026-11-06T08:00:00Z"}`
	webhookJSON = `{"id":2,"plugin_id":100,"uri":"https://hooks.example.com/scribe","signing_secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"created_on":"2026-11-07T08:00:00Z","updated_on":"2026-11-07T08:00:00Z"}`
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

var (
	wantTranscript = scribe.Transcript{
		ID: 42, Headline: "Weekly sync", Text: "Hello.", Type: "meeting",
		CreatedOn: mustTime("2026-11-21T09:30:00Z"),
		Metadata:  map[string]json.RawMessage{"crm": json.RawMessage(`"acme"`), "n": json.RawMessage(`12345678901234567890`)},
		User:      scribe.TranscriptUser{ID: 8, FirstName: "Grace", LastName: "Hopper"},
		Job:       scribe.TranscriptJob{ID: 5, Lines: 3},
		Audio:     scribe.TranscriptAudio{ID: 6, LengthInSeconds: 42, CreatedOn: mustTime("2026-11-21T09:00:00+01:00")},
	}
	wantUser   = scribe.User{ID: 8, FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"}
	wantPlugin = scribe.Plugin{
		ID: 100, Name: "CRM sync", Description: "Copies transcripts",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionNone},
		Published:   true, CRMIntegrationID: ptr(int64(9)), LogoURI: "https://cdn.example.com/logo.png",
		UserID: 7, CreatedOn: mustTime("2026-11-01T08:00:00Z"), UpdatedOn: mustTime("2026-11-02T08:00:00Z"),
	}
	wantSecretKey = scribe.PluginSecretKey{
		ID: 3, Description: "ci", Value: mustSecretKey("ask_live_c2VjcmV0LW1hdGVyaWFsLXRoYXQtbXVzdC1ub3QtbGVhaw"),
		PluginID: 100, CreatedOn: mustTime("2026-11-03T08:00:00Z"), UpdatedOn: mustTime("2026-11-03T08:00:00Z"),
	}
	wantInstallation = scribe.PluginInstallation{
		ID: 1, UUID: "0b6d7c1e-4c1a-4f57-9a43-0d2c8e3b5a11", PluginID: 100, UserID: 8,
		FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com",
		CreatedOn: mustTime("2026-11-04T08:00:00Z"), UpdatedOn: mustTime("2026-11-05T08:00:00Z"),
		DeletedOn: ptr(mustTime("2026-11-06T08:00:00Z")),
	}
	wantWebhook = scribe.Webhook{
		ID: 2, PluginID: 100, URI: "https://hooks.example.com/scribe", SigningSecret: mustWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
		CreatedOn: mustTime("2026-11-07T08:00:00Z"), UpdatedOn: mustTime("2026-11-07T08:00:00Z"),
	}
)

// collect walks a pager and returns its items, failing the test on an error.
func collect[T any](t *testing.T, p *scribe.Pager[T]) []T {
	t.Helper()
	var out []T
	for item, err := range p.All() {
		if err != nil {
			t.Fatalf("All: %v", err)
		}
		out = append(out, item)
	}
	return out
}

// TestOperations protects, for each of the nine operations, the exact request
// it sends (method, path under the base URL's prefix, query, body, headers)
// and the decoding of a full sample answer into the whole result.
func TestOperations(t *testing.T) {
	t.Parallel()
	const installToken = "eyJhbGciOiJIUzI1NiJ9.eyJwIjoxfQ.c2ln"
	tests := []struct {
		name      string
		answer    string
		jwt       bool // authorize with an installation token source instead of the developer key
		call      func(context.Context, *scribe.Client) (any, error)
		wantPath  string
		wantQuery string
		wantPost  string // JSON body of a POST; empty for a GET
		want      any
	}{{
		name:   "ListTranscripts",
		answer: page(false, 1, transcriptJSON),
		jwt:    true,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return collect(t, c.ListTranscripts(ctx, nil)), nil
		},
		wantPath:  "/v1/transcripts",
		wantQuery: "",
		want:      []scribe.Transcript{wantTranscript},
	}, {
		name:   "ListTranscripts with paging params",
		answer: page(false, 1, transcriptJSON),
		jwt:    true,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return collect(t, c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 50, AfterID: 41}})), nil
		},
		wantPath:  "/v1/transcripts",
		wantQuery: "after_id=41&limit=50",
		want:      []scribe.Transcript{wantTranscript},
	}, {
		name:     "GetTranscript",
		answer:   transcriptJSON,
		jwt:      true,
		call:     func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetTranscript(ctx, 42) },
		wantPath: "/v1/transcripts/42",
		want:     &wantTranscript,
	}, {
		name:     "GetMe",
		answer:   userJSON,
		jwt:      true,
		call:     func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetMe(ctx) },
		wantPath: "/v1/users/me",
		want:     &wantUser,
	}, {
		name:   "ListPlugins",
		answer: page(false, 1, pluginJSON),
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return collect(t, c.ListPlugins(ctx, nil)), nil
		},
		wantPath: "/v1/plugins",
		want:     []scribe.Plugin{wantPlugin},
	}, {
		name:     "GetPlugin",
		answer:   pluginJSON,
		call:     func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetPlugin(ctx, 100) },
		wantPath: "/v1/plugins/100",
		want:     &wantPlugin,
	}, {
		name:   "CreatePlugin",
		answer: pluginJSON,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return c.CreatePlugin(ctx, &scribe.CreatePluginParams{
				Name: "CRM sync", Description: "Copies transcripts",
				Permissions:      scribe.Permissions{User: scribe.PermissionRead},
				LogoURI:          "https://cdn.example.com/logo.png",
				CRMIntegrationID: ptr(int64(9)),
			})
		},
		wantPath: "/v1/plugins",
		wantPost: `{"name":"CRM sync","description":"Copies transcripts","permissions":{"user":"read","transcript":"none"},"logo_uri":"https://cdn.example.com/logo.png","crm_integration_id":9}`,
		want:     &wantPlugin,
	}, {
		name:   "CreatePlugin with defaults",
		answer: pluginJSON,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "CRM sync"})
		},
		wantPath: "/v1/plugins",
		wantPost: `{"name":"CRM sync","description":"","permissions":{"user":"none","transcript":"none"},"logo_uri":"","crm_integration_id":null}`,
		want:     &wantPlugin,
	}, {
		name:   "CreatePluginSecretKey",
		answer: secretKeyJSON,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return c.CreatePluginSecretKey(ctx, 100, &scribe.CreatePluginSecretKeyParams{Description: "ci"})
		},
		wantPath: "/v1/plugins/100/secret_keys",
		wantPost: `{"description":"ci"}`,
		want:     &wantSecretKey,
	}, {
		name:   "CreatePluginSecretKey with nil params",
		answer: secretKeyJSON,
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return c.CreatePluginSecretKey(ctx, 100, nil)
		},
		wantPath: "/v1/plugins/100/secret_keys",
		wantPost: `{}`,
		want:     &wantSecretKey,
	}, {
		name:   "ListPluginInstallations",
		answer: page(false, 1, installationJSON),
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return collect(t, c.ListPluginInstallations(ctx, 100, &scribe.ListPluginInstallationsParams{ListParams: scribe.ListParams{Limit: 1}})), nil
		},
		wantPath:  "/v1/plugins/100/installations",
		wantQuery: "limit=1",
		want:      []scribe.PluginInstallation{wantInstallation},
	}, {
		name:   "ListWebhooks",
		answer: page(false, 1, webhookJSON),
		call: func(ctx context.Context, c *scribe.Client) (any, error) {
			return collect(t, c.ListWebhooks(ctx, 100, nil)), nil
		},
		wantPath: "/v1/plugins/100/webhooks",
		want:     []scribe.Webhook{wantWebhook},
	}}
	wantUA := "scribe-go/" + scribe.Version + " (interface 1.0.0; " + runtime.Version() + ")"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, ok(tt.answer))
			wantAuth := "Bearer " + testDevKey
			var opts []scribe.Option
			if tt.jwt {
				opts = append(opts, scribe.WithTokenSource(plainTokens{installToken}))
				wantAuth = "Bearer " + installToken
			}
			got, err := tt.call(context.Background(), f.client(opts...))
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded result (-want +got):\n%s", diff)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("sent %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			wantMethod, wantCT := http.MethodGet, ""
			if tt.wantPost != "" {
				wantMethod, wantCT = http.MethodPost, "application/json"
			}
			type shape struct{ Method, Path, Query, Authorization, ContentType, UserAgent, Accept string }
			wantShape := shape{wantMethod, tt.wantPath, tt.wantQuery, wantAuth, wantCT, wantUA, "application/json"}
			gotShape := shape{r.Method, r.Path, r.Query, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), r.Header.Get("Accept")}
			if diff := cmp.Diff(wantShape, gotShape); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if tt.wantPost != "" {
				if r.Body != tt.wantPost {
					t.Errorf("body = %s\nwant   %s", r.Body, tt.wantPost)
				}
				if k := r.Header.Get("Idempotency-Key"); len(k) < 16 {
					t.Errorf("Idempotency-Key = %q, want a random key on every POST", k)
				}
			} else if k := r.Header.Get("Idempotency-Key"); k != "" || r.Body != "" {
				t.Errorf("GET carries Idempotency-Key %q and body %q, want neither", k, r.Body)
			}
		})
	}
}

// TestIdempotencyKeysDiffer protects that two POSTs never share a generated key.
func TestIdempotencyKeysDiffer(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(pluginJSON))
	c := f.client()
	for range 2 {
		if _, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := f.requests()
	if a, b := reqs[0].Header.Get("Idempotency-Key"), reqs[1].Header.Get("Idempotency-Key"); a == b {
		t.Errorf("two POSTs share the Idempotency-Key %q", a)
	}
}

// TestUserSuppliedIdempotencyKey protects that WithIdempotencyKey is sent as given.
func TestUserSuppliedIdempotencyKey(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(pluginJSON))
	_, err := f.client().CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}, scribe.WithIdempotencyKey("order-7"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].Header.Get("Idempotency-Key"); got != "order-7" {
		t.Errorf("Idempotency-Key = %q, want order-7", got)
	}
}

// TestArgumentsRefusedBeforeSending protects that input the service would
// refuse gets an *ArgumentError naming the argument, and nothing is sent.
func TestArgumentsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	long := ""
	for range 101 {
		long += "é"
	}
	hundred := long[:200] // 100 two-byte characters: allowed
	tests := []struct {
		name    string
		call    func(context.Context, *scribe.Client) error
		wantArg string
	}{
		{"nil CreatePlugin params", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.CreatePlugin(ctx, nil)
			return err
		}, "params"},
		{"empty name", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{})
			return err
		}, "params.Name"},
		{"name of 101 characters", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: long})
			return err
		}, "params.Name"},
		{"unknown permission", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: hundred, Permissions: scribe.Permissions{Transcript: "write"}})
			return err
		}, "params.Permissions.Transcript"},
		{"zero transcript id", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.GetTranscript(ctx, 0)
			return err
		}, "id"},
		{"negative plugin id", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.CreatePluginSecretKey(ctx, -1, nil)
			return err
		}, "pluginID"},
		{"list of plugin 0", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.ListWebhooks(ctx, 0, nil).Next()
			return err
		}, "pluginID"},
		{"limit over 100", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.ListPlugins(ctx, &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 101}}).Next()
			return err
		}, "params.Limit"},
		{"negative after id", func(ctx context.Context, c *scribe.Client) error {
			_, err := c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{AfterID: -1}}).Next()
			return err
		}, "params.AfterID"},
		{"nil context", func(_ context.Context, c *scribe.Client) error {
			//lint:ignore SA1012 a nil context is the input under test
			_, err := c.GetMe(nil)
			return err
		}, "ctx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, ok(pluginJSON))
			err := tt.call(context.Background(), f.client())
			ae, isArg := err.(*scribe.ArgumentError)
			if !isArg {
				t.Fatalf("err = %v (%T), want *scribe.ArgumentError", err, err)
			}
			if ae.Arg != tt.wantArg {
				t.Errorf("Arg = %q, want %q (%v)", ae.Arg, tt.wantArg, err)
			}
			if n := len(f.requests()); n != 0 {
				t.Errorf("sent %d requests, want none", n)
			}
		})
	}
	// 100 characters is still a valid name.
	f := newFake(t, ok(pluginJSON))
	if _, err := f.client().CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: hundred}); err != nil {
		t.Errorf("a 100-character name: %v", err)
	}
}
