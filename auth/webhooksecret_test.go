package auth_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/auth"
)

// vectorSecret is the signing secret of the Standard Webhooks test vector.
const vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func mustSecret(t testing.TB, s string) auth.WebhookSecret {
	t.Helper()
	sec, err := auth.ParseWebhookSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// ParseWebhookSecret accepts a whsec_ secret and refuses anything else with
// an error that says what is wrong and never repeats the value.
func TestParseWebhookSecret(t *testing.T) {
	t.Parallel()
	material := vectorSecret[len("whsec_"):]
	if _, err := auth.ParseWebhookSecret(vectorSecret); err != nil {
		t.Fatalf("auth.ParseWebhookSecret(vector secret): %v", err)
	}
	cases := []struct {
		name, in, wantInMsg string
	}{
		{"empty", "", "empty"},
		{"no prefix", material, `must begin with "whsec_"`},
		{"another credential", "ask_live_" + material, "ask_live_[REDACTED]"},
		{"prefix only", "whsec_", "the key is missing"},
		{"not base64", "whsec_" + material[:10] + "!" + material[11:], "not a key in standard base64"},
		{"url-safe base64", "whsec_" + base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe, 1, 2, 3}), "not a key in standard base64"},
		{"bad padding", "whsec_" + material[:31], "not a key in standard base64"},
		{"trailing newline", vectorSecret + "\n", "whitespace"},
		{"inner space", "whsec_" + material[:8] + " " + material[8:], "whitespace"},
		{"key decodes to nothing", "whsec_====", "base64"},
		{"the redacted form", "whsec_[REDACTED]", "redacted placeholder"},
		{"the bare marker", "[REDACTED]", "redacted placeholder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := auth.ParseWebhookSecret(tc.in)
			if !errors.Is(err, auth.ErrInvalidKey) {
				t.Fatalf("ParseWebhookSecret = %v, %v; want auth.ErrInvalidKey", s, err)
			}
			if !s.IsZero() {
				t.Errorf("ParseWebhookSecret returned a non-zero secret with its error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.wantInMsg) {
				t.Errorf("error %q does not say %q", msg, tc.wantInMsg)
			}
			if strings.Contains(msg, material[:8]) {
				t.Errorf("error %q repeats the secret", msg)
			}
		})
	}
}

// A WebhookSecret prints redacted through fmt, slog and JSON, and still Reveals.
func TestSecretNeverPrints(t *testing.T) {
	t.Parallel()
	s := mustSecret(t, vectorSecret)
	material := vectorSecret[len("whsec_"):]
	var outs []string
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10s"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, struct{ S auth.WebhookSecret }{s}), fmt.Sprintf(verb, &s))
	}
	outs = append(outs, s.String(), s.GoString(), fmt.Sprint(s), fmt.Sprintln(s), fmt.Errorf("wrapped: %v", s).Error())

	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "secret", s, "group", slog.GroupValue(slog.Any("s", s)))
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "secret", s)
	outs = append(outs, logs.String())

	js, err := json.Marshal(struct{ S auth.WebhookSecret }{s})
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js))

	for _, out := range outs {
		if strings.Contains(out, material) || strings.Contains(out, material[:12]) {
			t.Errorf("output leaks the secret: %q", out)
		}
		if !strings.Contains(out, "whsec_[REDACTED]") {
			t.Errorf("output %q lacks the redacted form", out)
		}
	}
	if s.Reveal() != vectorSecret {
		t.Errorf("Reveal = %q", s.Reveal())
	}
}

// TestSecretNeverPrintsFromUnexportedField protects the case fmt cannot
// route through the secret's own methods: a WebhookSecret in an unexported field of
// the caller's struct. Neither the secret text nor the decoded key may show.
func TestSecretNeverPrintsFromUnexportedField(t *testing.T) {
	t.Parallel()
	s := mustSecret(t, vectorSecret)
	type config struct {
		name   string
		secret auth.WebhookSecret
	}
	c := config{name: "hook", secret: s}
	raw, _ := base64.StdEncoding.DecodeString(vectorSecret[len("whsec_"):])
	key := string(raw)
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%d"} {
		for _, v := range []any{c, &c} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, vectorSecret[len("whsec_"):]) || strings.Contains(out, key) ||
				strings.Contains(out, fmt.Sprintf("%x", key)) {
				t.Errorf("%s of a struct holding the Secret unexported leaks it: %s", verb, out)
			}
		}
	}
}

// A WebhookSecret can be a field of a JSON configuration; the redacted form it
// marshals to does not parse back, so it cannot silently replace the secret.
func TestSecretUnmarshalJSON(t *testing.T) {
	t.Parallel()
	var cfg struct{ Secret auth.WebhookSecret }
	if err := json.Unmarshal([]byte(`{"Secret":"`+vectorSecret+`"}`), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Secret.Reveal() != vectorSecret {
		t.Errorf("decoded %q", cfg.Secret.Reveal())
	}
	for _, in := range []string{`{"Secret":"whsec_[REDACTED]"}`, `{"Secret":42}`, `{"Secret":"nope"}`} {
		if err := json.Unmarshal([]byte(in), &cfg); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("Unmarshal(%s) = %v, want auth.ErrInvalidKey", in, err)
		}
	}
}

// The zero WebhookSecret prints as "" so that "unset" stays visible, and is IsZero.
func TestZeroSecret(t *testing.T) {
	t.Parallel()
	var s auth.WebhookSecret
	if !s.IsZero() || s.String() != "" || fmt.Sprint(s) != "" {
		t.Errorf("zero Secret: IsZero %v, String %q", s.IsZero(), s.String())
	}
}
