package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/webhook"
)

const (
	material     = "ask_live_Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg"
	hookSecret   = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secretKeyDoc = `{"id":1,"description":"ci","value":"` + material + `","plugin_id":2,"created_on":"2026-11-21T09:30:00Z","updated_on":"2026-11-21T09:30:00Z"}`
	hookJSON     = `{"id":3,"plugin_id":2,"uri":"https://hooks.example.com/x","signing_secret":"` + hookSecret + `","created_on":"2026-11-21T09:30:00Z","updated_on":"2026-11-21T09:30:00Z"}`
)

// holder keeps the resources in unexported fields, where fmt cannot call the
// secrets' own methods.
type holder struct {
	key  scribe.PluginSecretKey
	hook scribe.Webhook
}

// mustSecretKey and mustWebhookSecret build the secrets of expected
// resources; a malformed literal is a bug in the test.
func mustSecretKey(s string) auth.SecretKey {
	k, err := auth.ParseSecretKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

func mustWebhookSecret(s string) auth.WebhookSecret {
	k, err := auth.ParseWebhookSecret(s)
	if err != nil {
		panic(err)
	}
	return k
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSecretsDecodeIntoTheirTypes: a decoded PluginSecretKey's Value is an
// auth.SecretKey that mints directly, and a decoded Webhook's SigningSecret is
// an auth.WebhookSecret that verifies directly, with no ParseSecretKey(x.Reveal())
// in between.
func TestSecretsDecodeIntoTheirTypes(t *testing.T) {
	key := decode[scribe.PluginSecretKey](t, secretKeyDoc)
	if key.Value.Reveal() != material {
		t.Fatalf("Value.Reveal() = %q", key.Value.Reveal())
	}
	parsed, _ := auth.ParseSecretKey(material)
	if key.Value != parsed {
		t.Error("the decoded Value differs from auth.ParseSecretKey of the same key")
	}
	ts, err := auth.NewTokenSource(key.Value, "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jwtverify.New(time.Now, jwtverify.DefaultLeeway).Verify(tok, key.Value); err != nil {
		t.Errorf("a token minted with the decoded key does not verify: %v", err)
	}

	hook := decode[scribe.Webhook](t, hookJSON)
	var secret auth.WebhookSecret = hook.SigningSecret // the same type
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"evt_1"}`)
	now := time.Now()
	h := webhook.SignHeaders(secret, "msg_1", now, body)
	if err := v.Verify(h, body); err != nil {
		t.Errorf("a delivery signed with the decoded secret does not verify: %v", err)
	}
}

// TestSecretsNeverPrint protects the rule that secret material never reaches
// fmt, slog or JSON output, whether a secret is printed itself, as an
// exported field of a resource, or from an unexported field.
func TestSecretsNeverPrint(t *testing.T) {
	key := decode[scribe.PluginSecretKey](t, secretKeyDoc)
	hook := decode[scribe.Webhook](t, hookJSON)
	h := holder{key: key, hook: hook}
	values := map[string]any{"value": key.Value, "resource": key, "&resource": &key, "signing secret": hook.SigningSecret,
		"webhook": hook, "&webhook": &hook, "unexported": h, "&unexported": &h}
	leaks := func(out string) bool {
		return strings.Contains(out, material[9:]) || strings.Contains(out, hookSecret[6:])
	}
	for name, v := range values {
		for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%d"} {
			if out := fmt.Sprintf(verb, v); leaks(out) {
				t.Errorf("%s with %s leaks: %s", name, verb, out)
			}
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "v", v)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "v", v)
		if leaks(buf.String()) {
			t.Errorf("%s leaks through slog: %s", name, buf.String())
		}
	}
	for _, v := range []any{key, hook} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if leaks(string(b)) || !strings.Contains(string(b), `_[REDACTED]"`) {
			t.Errorf("json.Marshal = %s, want the secret redacted", b)
		}
	}
}

// TestRedactedSecretsDoNotDecode protects that a resource marshalled for a
// log (so holding "ask_live_[REDACTED]" or "whsec_[REDACTED]") cannot be
// decoded back into a silently wrong key: decoding fails with the type's
// error, which names the placeholder.
func TestRedactedSecretsDoNotDecode(t *testing.T) {
	key := decode[scribe.PluginSecretKey](t, secretKeyDoc)
	out, _ := json.Marshal(key)
	var back scribe.PluginSecretKey
	if err := json.Unmarshal(out, &back); !errors.Is(err, auth.ErrInvalidKey) || !strings.Contains(err.Error(), "redacted placeholder") {
		t.Errorf("decoding %s: err = %v, want auth.ErrInvalidKey naming the redacted placeholder", out, err)
	}
	hook := decode[scribe.Webhook](t, hookJSON)
	out, _ = json.Marshal(hook)
	var hookBack scribe.Webhook
	if err := json.Unmarshal(out, &hookBack); !errors.Is(err, auth.ErrInvalidKey) || !strings.Contains(err.Error(), "redacted placeholder") {
		t.Errorf("decoding %s: err = %v, want auth.ErrInvalidKey naming the redacted placeholder", out, err)
	}
	for _, in := range []string{`{"value":"[REDACTED]"}`, `{"value":42}`, `{"value":"ask_live_"}`} {
		if err := json.Unmarshal([]byte(in), &back); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("Unmarshal(%s) error = %v, want auth.ErrInvalidKey", in, err)
		}
	}
	for _, in := range []string{`{"signing_secret":"[REDACTED]"}`, `{"signing_secret":42}`, `{"signing_secret":"whsec_"}`} {
		if err := json.Unmarshal([]byte(in), &hookBack); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("Unmarshal(%s) error = %v, want auth.ErrInvalidKey", in, err)
		}
	}
}

// TestWithDeveloperKey protects that WithDeveloperKey takes the one type of
// a developer key, refuses the zero key, and sends the key, while what is
// wrong with a string is auth.ParseDeveloperKey's to say (the redacted
// placeholder, whitespace, control characters).
func TestWithDeveloperKey(t *testing.T) {
	dk, err := auth.ParseDeveloperKey("dk_live_abc")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, ok(userJSON))
	if _, err := f.client(scribe.WithDeveloperKey(dk)).GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].Header.Get("Authorization"); got != "Bearer dk_live_abc" {
		t.Errorf("Authorization %q, want the key", got)
	}
	var ae *scribe.ArgumentError
	if _, err := scribe.NewClient("https://api.example.com", scribe.WithDeveloperKey(auth.DeveloperKey{})); !errors.As(err, &ae) || ae.Func != "WithDeveloperKey" {
		t.Errorf("the zero key: NewClient error = %v, want an *ArgumentError of WithDeveloperKey", err)
	}
	for _, s := range []string{"", "dk_live_[REDACTED]", fmt.Sprint(dk), "dk_live_é", "dk_live_abc\r\nX-Evil: 1"} {
		if _, err := auth.ParseDeveloperKey(s); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("auth.ParseDeveloperKey(%q) = %v, want auth.ErrInvalidKey", s, err)
		}
	}
}

// TestSecretTypesAlike protects one form for one idea: the three secret
// types have the same methods (so each prints, marshals and parses the same
// ways), and text decoding validates as JSON decoding does.
func TestSecretTypesAlike(t *testing.T) {
	t.Parallel()
	methods := func(typ reflect.Type) []string {
		var names []string
		for m := range typ.Methods() {
			names = append(names, m.Name)
		}
		return names
	}
	want := methods(reflect.TypeFor[*auth.SecretKey]())
	for _, typ := range []reflect.Type{reflect.TypeFor[*auth.DeveloperKey](), reflect.TypeFor[*auth.WebhookSecret]()} {
		if got := methods(typ); !slices.Equal(got, want) {
			t.Errorf("%s has methods %v, want those of auth.SecretKey: %v", typ, got, want)
		}
	}
	var s auth.WebhookSecret
	if err := s.UnmarshalText([]byte("whsec_[REDACTED]")); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("UnmarshalText of the redacted form: %v, want auth.ErrInvalidKey", err)
	}
	if err := s.UnmarshalText([]byte("whsec_c2VjcmV0")); err != nil || s.Reveal() != "whsec_c2VjcmV0" {
		t.Errorf("UnmarshalText: %v, %q", err, s.Reveal())
	}
	if b, err := s.MarshalText(); err != nil || string(b) != "whsec_[REDACTED]" {
		t.Errorf("MarshalText = %s, %v; want the redacted form", b, err)
	}
}
