package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/internal/keygen"
)

// TestParseSecretKey: the key is "ask_live_" and one or more printable,
// non-space ASCII characters, as the service may issue it; errors say what
// is wrong and never quote the key.
func TestParseSecretKey(t *testing.T) {
	t.Parallel()
	const body = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" // 32 bytes
	for _, tc := range []struct {
		name   string
		in     string
		ok     bool
		reason string // a word the error must contain
	}{
		{"32 bytes of URL-safe base64 (the reference server's form)", "ask_live_" + body, true, ""},
		{"48 bytes", "ask_live_" + base64.RawURLEncoding.EncodeToString(make([]byte, 48)), true, ""},
		{"service style, 24 alphanumerics", "ask_live_4eC39HqLyjWDarjtT1zdp7dc", true, ""},
		{"one character", "ask_live_x", true, ""},
		{"padded base64", "ask_live_" + base64.URLEncoding.EncodeToString(make([]byte, 32)), true, ""},
		{"standard base64 alphabet", "ask_live_" + strings.Repeat("+/", 22), true, ""},
		{"every printable ASCII character", "ask_live_" + printableASCII(), true, ""},
		{"empty", "", false, "empty"},
		{"prefix only", "ask_live_", false, `nothing after "ask_live_"`},
		{"developer key", "dk_live_" + body, false, `must begin with "ask_live_"`},
		{"webhook secret", "whsec_" + body, false, `must begin with "ask_live_"`},
		{"other environment", "ask_test_" + body, false, `must begin with "ask_live_"`},
		{"upper-case prefix", "ASK_LIVE_" + body, false, `must begin with "ask_live_"`},
		{"prefix without underscore", "ask_live" + body, false, `must begin with "ask_live_"`},
		{"trailing newline", "ask_live_" + body + "\n", false, "trailing whitespace"},
		{"leading space", " ask_live_" + body, false, "leading or trailing whitespace"},
		{"inner newline", "ask_live_" + body[:10] + "\n" + body[10:], false, "whitespace at position 19"},
		{"inner space", "ask_live_" + body[:10] + " " + body[10:], false, "whitespace at position 19"},
		{"inner tab", "ask_live_" + body[:10] + "\t" + body[10:], false, "whitespace at position 19"},
		{"NUL", "ask_live_" + body + "\x00x", false, "control character at position 52"},
		{"escape sequence", "ask_live_\x1b[31m" + body, false, "control character at position 9"},
		{"DEL", "ask_live_" + body + "\x7fx", false, "control character"},
		{"non-ASCII letter", "ask_live_" + body + "\u00e9", false, "non-ASCII byte at position 52"},
		{"invalid UTF-8", "ask_live_" + body + "\xff", false, "non-ASCII byte"},
		{"the redacted form", "ask_live_[REDACTED]", false, "redacted placeholder"},
		{"the redacted marker inside", "ask_live_" + body + "[REDACTED]", false, "redacted placeholder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := auth.ParseSecretKey(tc.in)
			if tc.ok {
				if err != nil || k.Reveal() != tc.in {
					t.Fatalf("ParseSecretKey = %v, %v; want the key", k, err)
				}
				return
			}
			if !errors.Is(err, auth.ErrInvalidKey) || !k.IsZero() {
				t.Fatalf("ParseSecretKey = %v, %v; want a zero key and ErrInvalidKey", k, err)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q does not say %q", err, tc.reason)
			}
			if len(tc.in) > 12 && !strings.Contains(tc.in, "[REDACTED]") && strings.Contains(err.Error(), tc.in[9:]) {
				t.Errorf("error %q quotes the key", err)
			}
		})
	}
}

// printableASCII returns every printable, non-space ASCII character, '!' to '~'.
func printableASCII() string {
	var b strings.Builder
	for c := byte('!'); c <= '~'; c++ {
		b.WriteByte(c)
	}
	return b.String()
}

// TestParseDeveloperKey: developer keys are opaque but must fit a header.
func TestParseDeveloperKey(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{
		"dk_live_example":     true,
		"opaque-key-from-env": true,
		"":                    false,
		"dk_live_x ":          false,
		"dk_live_\tx":         false,
		"dk_live_x\n":         false,
		"dk_live_\x00x":       false,
		"dk_live_\x7fx":       false,
		"dk_live_\xffx":       false,
		"dk_live_é":           false, // valid UTF-8, but not what a bearer token may hold
	} {
		k, err := auth.ParseDeveloperKey(in)
		if ok != (err == nil) {
			t.Errorf("ParseDeveloperKey(%q) error = %v, want ok=%v", in, err, ok)
		}
		if err != nil && (!errors.Is(err, auth.ErrInvalidKey) || !k.IsZero()) {
			t.Errorf("ParseDeveloperKey(%q) = %v, %v; want a zero key and ErrInvalidKey", in, k, err)
		}
	}
}

type holder struct {
	Secret    auth.SecretKey
	Developer auth.DeveloperKey
	hidden    auth.SecretKey
	hiddenDev auth.DeveloperKey
}

// TestKeysNeverPrint: every output path (fmt verbs at top level and inside
// structs, even unexported fields; slog JSON and text; JSON and text
// marshalling; errors) shows the redacted form and never the material.
func TestKeysNeverPrint(t *testing.T) {
	t.Parallel()
	sk := newKey(t)
	dk, _ := keygen.DeveloperKey()
	secrets := []string{sk.Reveal()[len("ask_live_"):], dk.Reveal()[len("dk_live_"):]}
	h := holder{Secret: sk, Developer: dk, hidden: sk, hiddenDev: dk}

	outputs := map[string]string{}
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10.3s"} {
		outputs["secret "+verb] = fmt.Sprintf(verb, sk)
		outputs["developer "+verb] = fmt.Sprintf(verb, dk)
		outputs["struct "+verb] = fmt.Sprintf(verb, h)
		outputs["pointer to struct "+verb] = fmt.Sprintf(verb, &h)
		outputs["slice "+verb] = fmt.Sprintf(verb, []any{sk, dk})
	}
	outputs["Sprint"] = fmt.Sprint(sk, dk, h)
	outputs["Sprintln"] = fmt.Sprintln(sk, dk, h)
	for name, handler := range map[string]func(*bytes.Buffer) slog.Handler{
		"slog JSON": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"slog text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		slog.New(handler(&buf)).Info("keys", "secret", sk, "developer", dk, "holder", h, slog.Any("any", sk))
		outputs[name] = buf.String()
	}
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	outputs["json"] = string(js)
	txt, _ := sk.MarshalText()
	outputs["text"] = string(txt)
	outputs["error %v"] = fmt.Errorf("wrapped: %v", sk).Error()
	outputs["error %w chain"] = fmt.Errorf("config %+v: %w", h, errors.New("bad")).Error()

	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s output leaks a key: %s", name, out)
			}
		}
	}
	for _, name := range []string{"secret %s", "secret %#v", "slog JSON", "json"} {
		if !strings.Contains(outputs[name], "ask_live_[REDACTED]") {
			t.Errorf("%s output %q lacks the redacted form", name, outputs[name])
		}
	}
}

// TestKeyJSONRoundTrip: unmarshalling validates; marshalling redacts, so a
// marshalled key cannot be read back by mistake.
func TestKeyJSONRoundTrip(t *testing.T) {
	t.Parallel()
	var cfg struct {
		Secret    auth.SecretKey    `json:"secret"`
		Developer auth.DeveloperKey `json:"developer"`
	}
	in := `{"secret":"` + goldenKey + `","developer":"dk_live_example"}`
	if err := json.Unmarshal([]byte(in), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Secret.Reveal() != goldenKey || cfg.Developer.Reveal() != "dk_live_example" {
		t.Errorf("unmarshalled %q, %q", cfg.Secret.Reveal(), cfg.Developer.Reveal())
	}
	out, _ := json.Marshal(cfg)
	if err := json.Unmarshal(out, &cfg); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("reading back a redacted key: err = %v, want ErrInvalidKey", err)
	}
	// Each key alone, so that the first error does not hide the second.
	var dk auth.DeveloperKey
	if out, _ := json.Marshal(cfg.Developer); json.Unmarshal(out, &dk) == nil {
		t.Errorf("reading back the redacted developer key %s succeeded", out)
	}
	var sk auth.SecretKey
	if out, _ := json.Marshal(cfg.Secret); json.Unmarshal(out, &sk) == nil {
		t.Errorf("reading back the redacted secret key %s succeeded", out)
	}
	if err := sk.UnmarshalText([]byte("ask_live_[REDACTED]")); err == nil || !strings.Contains(err.Error(), "redacted placeholder") {
		t.Errorf("UnmarshalText of the redacted form: err = %v, want the redacted-placeholder error", err)
	}
	for _, bad := range []string{`{"secret":"ask_live_"}`, `{"secret":"ask_live_a b"}`, `{"secret":42}`, `{"developer":""}`,
		`{"secret":"ask_live_[REDACTED]"}`, `{"secret":"[REDACTED]"}`, `{"developer":"dk_live_[REDACTED]"}`, `{"developer":"[REDACTED]"}`} {
		if err := json.Unmarshal([]byte(bad), &cfg); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("Unmarshal(%s) error = %v, want ErrInvalidKey", bad, err)
		}
	}
	var k auth.SecretKey
	if err := k.UnmarshalText([]byte(goldenKey)); err != nil || k.Reveal() != goldenKey {
		t.Errorf("UnmarshalText = %v", err)
	}
}

// TestTokensNeverPrint: a TokenSource prints as its installation only, and no
// error of package auth carries a token.
func TestTokensNeverPrint(t *testing.T) {
	t.Parallel()
	ts, err := auth.NewTokenSource(newKey(t), goldenUUID)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sig := tok[strings.LastIndexByte(tok, '.')+1:]
	wrapper := struct {
		TS     *auth.TokenSource
		hidden *auth.TokenSource
	}{ts, ts}
	var outs []string
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x"} {
		outs = append(outs, fmt.Sprintf(verb, ts), fmt.Sprintf(verb, wrapper))
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("source", "ts", ts)
	outs = append(outs, buf.String())
	_, verr := jwtverify.New(time.Now, jwtverify.DefaultLeeway).Verify(tok, newKey(t))
	outs = append(outs, verr.Error())
	for _, out := range outs {
		if strings.Contains(out, sig) || strings.Contains(out, "eyJ") {
			t.Errorf("output leaks the token: %s", out)
		}
	}
	if got, want := fmt.Sprint(ts), "auth.TokenSource("+goldenUUID+")"; got != want {
		t.Errorf("Sprint = %q, want %q", got, want)
	}
}
