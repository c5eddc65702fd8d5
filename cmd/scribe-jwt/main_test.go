package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	testKey  = "ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	keyBody  = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	testUUID = "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f"
	// The token of testKey and testUUID at iat 1700000000, computed outside Go.
	testToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." +
		"eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwicGx1Z2luX2luc3RhbGxhdGlvbl91dWlkIjoiMGI2ZDNjNWUtMWYyYS00YjNjLThkOWUtMGExYjJjM2Q0ZTVmIn0." +
		"Pg0NYbMQbe0ajV7URcC2jkWI6yivy056dYIQo5FnIjk"
)

type result struct {
	code           int
	stdout, stderr string
}

func runWith(env map[string]string, stdin string, args ...string) result {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return result{code, out.String(), errOut.String()}
}

var withKey = map[string]string{KeyEnv: testKey}

// Credentials a user might paste into the wrong flag.
const (
	pastedDevKey = "dk_live_Zq3nV8xL2pR7sT1uW4yB6cD9fG0hJ5kM"
	pastedWhsec  = "whsec_Qm9vYmFyQmF6UXV4UXV1eENvcmdlR3JhdWx0"
)

// TestCommand: exit codes and output of every path. 0 for success, 1 for an
// invalid token, 2 for usage errors; the key never appears in any output.
func TestCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		stdin     string
		args      []string
		code      int
		stdout    string // exact, when set
		stderrHas string // substring, when set
	}{
		{name: "mint from env", env: withKey, args: []string{"mint", "-uuid", testUUID, "-iat", "1700000000"}, code: 0, stdout: testToken + "\n"},
		{name: "mint key from stdin", stdin: testKey + "\n", args: []string{"mint", "-key-stdin", "-uuid", testUUID, "-iat", "1700000000"}, code: 0, stdout: testToken + "\n"},
		{name: "mint key from env with a trailing newline", env: map[string]string{KeyEnv: testKey + "\n"}, args: []string{"mint", "-uuid", testUUID, "-iat", "1700000000"}, code: 0, stdout: testToken + "\n"},
		{name: "mint without uuid", env: withKey, args: []string{"mint"}, code: 2, stderrHas: "-uuid"},
		{name: "mint with a bad uuid", env: withKey, args: []string{"mint", "-uuid", "nope"}, code: 2, stderrHas: "uuid"},
		{name: "mint without key", args: []string{"mint", "-uuid", testUUID}, code: 2, stderrHas: KeyEnv},
		{name: "mint with an empty stdin", stdin: "", args: []string{"mint", "-key-stdin", "-uuid", testUUID}, code: 2, stderrHas: "standard input"},
		{name: "mint with a malformed key", env: map[string]string{KeyEnv: "ask_live_" + keyBody[:20] + " " + keyBody[20:]}, args: []string{"mint", "-uuid", testUUID}, code: 2, stderrHas: "whitespace at position 29"},
		{name: "key as a flag is refused", args: []string{"mint", "-key", testKey, "-uuid", testUUID}, code: 2,
			stderrHas: "-key: the secret key is never read from a flag, which the process list and the shell history would keep; set SCRIBE_SECRET_KEY, or pass -key-stdin"},
		{name: "a flag named like a key is refused", args: []string{"verify", "--secret-key=" + testKey, testToken}, code: 2, stderrHas: "-secret-key: the secret key is never read from a flag"},
		{name: "-secret is refused", args: []string{"mint", "-uuid", testUUID, "-secret", testKey}, code: 2, stderrHas: "set SCRIBE_SECRET_KEY, or pass -key-stdin"},
		{name: "decode -key is refused", args: []string{"decode", "-key", testKey, testToken}, code: 2, stderrHas: "(decode needs no key)"},
		{name: "decode needs no key", args: []string{"decode", "-now", "1700000100", testToken}, code: 0,
			stdout: `header: {"alg":"HS256","typ":"JWT"}` + "\n" +
				`claims: {"exp":1700003600,"iat":1700000000,"plugin_installation_uuid":"` + testUUID + `"}` + "\n" +
				"iat:    2023-11-14T22:13:20Z (1m ago)\n" +
				"exp:    2023-11-14T23:13:20Z (in 58m)\n" +
				"signature: NOT verified: decode needs no key and checks nothing; use scribe-jwt verify to check the token\n"},
		{name: "decode an expired token from stdin", stdin: testToken + "\n", args: []string{"decode", "-now", "1700014400"}, code: 0},
		{name: "decode garbage", args: []string{"decode", "garbage"}, code: 1, stderrHas: "cannot decode the token: a JWT is three base64url parts"},
		{name: "decode claims that are not JSON", args: []string{"decode", "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln"}, code: 1, stderrHas: "the claims are not a JSON object"},
		{name: "decode without a token", args: []string{"decode"}, code: 2, stderrHas: "no token"},
		{name: "key as an argument is refused", args: []string{"mint", "-uuid", testUUID, testKey}, code: 2, stderrHas: "no arguments"},
		{name: "mint at iat 2^53-1 is refused", env: withKey, args: []string{"mint", "-uuid", testUUID, "-iat", "9007199254740991"}, code: 2, stderrHas: "iat"},
		{name: "mint at a negative iat is refused", env: withKey, args: []string{"mint", "-uuid", testUUID, "-iat", "-1"}, code: 2, stderrHas: "iat"},
		{name: "a key pasted into -iat is not echoed", env: withKey, args: []string{"mint", "-uuid", testUUID, "-iat", testKey}, code: 2, stderrHas: "-iat"},
		{name: "a developer key pasted into -now is not echoed", env: withKey, args: []string{"verify", "-now", pastedDevKey, testToken}, code: 2, stderrHas: "-now"},
		{name: "a signing secret pasted into -leeway is not echoed", env: withKey, args: []string{"verify", "-leeway", pastedWhsec, testToken}, code: 2, stderrHas: "-leeway"},
		{name: "a token pasted into -uuid is not echoed", env: withKey, args: []string{"mint", "-uuid", testToken}, code: 2, stderrHas: "uuid"},
		{name: "verify valid token", env: withKey, args: []string{"verify", "-now", "1700000100", testToken}, code: 0,
			stdout: "{\n  \"plugin_installation_uuid\": \"" + testUUID + "\",\n  \"iat\": 1700000000,\n  \"exp\": 1700003600,\n  \"issued_at\": \"2023-11-14T22:13:20Z\",\n  \"expires_at\": \"2023-11-14T23:13:20Z\"\n}\n"},
		{name: "verify token from stdin", env: withKey, stdin: testToken + "\n", args: []string{"verify", "-now", "1700000100"}, code: 0},
		{name: "verify key and token from stdin", stdin: testKey + "\n" + testToken + "\n", args: []string{"verify", "-key-stdin", "-now", "1700000100"}, code: 0},
		{name: "verify expired token", env: withKey, args: []string{"verify", "-now", "1700003661", testToken}, code: 1, stderrHas: "token expired"},
		{name: "an expired token says when", env: withKey, args: []string{"verify", "-now", "1700014400", testToken}, code: 1,
			stderrHas: "(it expired at 2023-11-14T23:13:20Z, 3h ago)"},
		{name: "verify with leeway", env: withKey, args: []string{"verify", "-leeway", "2m", "-now", "1700003700", testToken}, code: 0},
		{name: "verify with the wrong key", env: map[string]string{KeyEnv: "ask_live_" + strings.Repeat("A", 43)}, args: []string{"verify", "-now", "1700000100", testToken}, code: 1, stderrHas: "signature"},
		{name: "verify garbage", env: withKey, args: []string{"verify", "garbage"}, code: 1, stderrHas: "malformed"},
		{name: "verify without token", env: withKey, args: []string{"verify"}, code: 2, stderrHas: "no token"},
		{name: "verify with two arguments", env: withKey, args: []string{"verify", testToken, testToken}, code: 2},
		{name: "verify without key", args: []string{"verify", testToken}, code: 2, stderrHas: KeyEnv},
		{name: "no command", args: nil, code: 2, stderrHas: "usage"},
		{name: "unknown command", args: []string{"sign"}, code: 2, stderrHas: "unknown command"},
		{name: "the key given as the command", args: []string{testKey}, code: 2, stderrHas: `unknown command "ask_live_[REDACTED]"`},
		{name: "a token given as the command", args: []string{testToken}, code: 2, stderrHas: "unknown command"},
		{name: "unknown flag", env: withKey, args: []string{"verify", "-strict", testToken}, code: 2},
		{name: "help", args: []string{"-h"}, code: 0},
		{name: "mint help", args: []string{"mint", "-h"}, code: 0, stderrHas: "-uuid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runWith(tc.env, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout != "" {
				if diff := cmp.Diff(tc.stdout, r.stdout); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(r.stderr, tc.stderrHas) {
				t.Errorf("stderr %q does not mention %q", r.stderr, tc.stderrHas)
			}
			if tc.code != 0 && r.stdout != "" && tc.name != "help" {
				t.Errorf("a failure wrote to stdout: %q", r.stdout)
			}
			for _, out := range []string{r.stdout, r.stderr} {
				if strings.Contains(out, keyBody[:16]) || strings.Contains(out, strings.Repeat("A", 20)) ||
					strings.Contains(out, pastedDevKey[8:]) || strings.Contains(out, pastedWhsec[6:]) {
					t.Errorf("output leaks the key: %q", out)
				}
			}
			// Only mint prints a token, and only on stdout.
			if strings.Contains(r.stderr, testToken[strings.LastIndex(testToken, "."):]) {
				t.Errorf("stderr leaks a token: %q", r.stderr)
			}
		})
	}
}

// TestMintThenVerify: a token minted now by the command verifies now.
func TestMintThenVerify(t *testing.T) {
	t.Parallel()
	m := runWith(withKey, "", "mint", "-uuid", testUUID)
	if m.code != 0 {
		t.Fatalf("mint: %d %s", m.code, m.stderr)
	}
	v := runWith(withKey, m.stdout, "verify")
	if v.code != 0 {
		t.Fatalf("verify: %d %s", v.code, v.stderr)
	}
	var got claimsOutput
	if err := json.Unmarshal([]byte(v.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.InstallationUUID != testUUID || got.ExpiresAtUnix-got.IssuedAtUnix != 3600 {
		t.Errorf("claims %+v", got)
	}
}

// The command behaves like a Go tool: -version exits 0; a bad flag and a
// nonsense value exit 2, reported once, before the key is even read.
func TestGoToolBehaviour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		stdoutHas string
		stderrHas string // exactly once
	}{
		{"version flag", []string{"-version"}, 0, "scribe-jwt 0.", ""},
		{"version command", []string{"version"}, 0, "(interface 1.0.0;", ""},
		{"unknown flag", []string{"mint", "-nope"}, 2, "", "flag provided but not defined: -nope"},
		{"iat negative", []string{"mint", "-uuid", testUUID, "-iat", "-5"}, 2, "", "-iat -5: give Unix seconds between 1 and 2^53-1"},
		{"iat zero", []string{"mint", "-uuid", testUUID, "-iat", "0"}, 2, "", "-iat 0: give Unix seconds"},
		{"iat beyond 2^53", []string{"mint", "-uuid", testUUID, "-iat", "9007199254740992"}, 2, "", "-iat 9007199254740992"},
		{"iat not a number", []string{"mint", "-uuid", testUUID, "-iat", "soon"}, 2, "", `invalid value "soon" for flag -iat`},
		{"now negative", []string{"verify", "-now", "-1", testToken}, 2, "", "-now -1: give Unix seconds"},
		{"leeway negative", []string{"verify", "-leeway", "-1s", testToken}, 2, "", "-leeway -1s: give a duration between 0 and 1h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runWith(withKey, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdoutHas) {
				t.Errorf("stdout %q lacks %q", r.stdout, tc.stdoutHas)
			}
			if tc.stderrHas != "" && strings.Count(r.stderr, tc.stderrHas) != 1 {
				t.Errorf("stderr reports %q %d times, want once:\n%s", tc.stderrHas, strings.Count(r.stderr, tc.stderrHas), r.stderr)
			}
			if tc.code != 0 && r.stdout != "" {
				t.Errorf("a failure printed %q on stdout", r.stdout)
			}
		})
	}
}
