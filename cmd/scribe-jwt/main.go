// Command scribe-jwt mints, verifies and decodes installation JWTs of the
// Plugin Integration Service from a shell.
//
// Usage:
//
//	scribe-jwt mint -uuid INSTALLATION_UUID [-key-stdin] [-iat UNIX_SECONDS]
//	scribe-jwt verify [-key-stdin] [-leeway 60s] [-now UNIX_SECONDS] [TOKEN]
//	scribe-jwt decode [TOKEN]
//	scribe-jwt -version
//
// The plugin secret key comes from the environment variable SCRIBE_SECRET_KEY,
// or, with -key-stdin, from the first line of standard input; never from a
// flag, where it would be seen in the process list and the shell history: a
// flag that looks like one (-key, -secret, -secret-key, ...) is refused with
// a message naming both ways.
//
// mint prints the token on standard output. verify takes the token as its
// argument or from standard input (the line after the key with -key-stdin),
// prints its claims as JSON and exits 0 if it is valid, or prints why not and
// exits 1 (for an expired token, when it expired). decode needs no key: it
// prints the token's header and claims, iat and exp as times and relative
// to now ("in 52m", "3h ago"), and says that it did not verify the
// signature; it exits 1 for a token it cannot decode. Usage errors,
// including a missing or malformed key, an unknown flag and a nonsense
// value (a -iat or -now that is not a positive Unix time below 2^53, a
// negative -leeway), exit 2 and are reported once. The key is never
// printed, nor is a token's signature.
package main

import (
	"bufio"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/internal/redact"
)

// KeyEnv names the environment variable holding the plugin secret key.
const KeyEnv = "SCRIBE_SECRET_KEY"

const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

const usage = `usage:
  scribe-jwt mint -uuid INSTALLATION_UUID [-key-stdin] [-iat UNIX_SECONDS]
  scribe-jwt verify [-key-stdin] [-leeway 60s] [-now UNIX_SECONDS] [TOKEN]
  scribe-jwt decode [TOKEN]     (no key: shows the claims, verifies nothing)
  scribe-jwt -version

The secret key is read from $` + KeyEnv + `, or with -key-stdin from the first
line of standard input. It is never accepted as a flag.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is the whole command, with its environment passed in so tests can call
// it. It returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	c := &command{stdin: bufio.NewReader(io.LimitReader(stdin, 1<<20)), stdout: stdout, stderr: stderr, getenv: getenv}
	if name, ok := keyFlag(args[1:]); ok && (args[0] == "mint" || args[0] == "verify" || args[0] == "decode") {
		return c.usageError("%s: the secret key is never read from a flag, which the process list and the shell history would keep; "+
			"set %s, or pass -key-stdin and write the key on standard input (decode needs no key)", name, KeyEnv)
	}
	switch args[0] {
	case "mint":
		return c.mint(args[1:])
	case "verify":
		return c.verify(args[1:])
	case "decode":
		return c.decode(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "scribe-jwt %s (interface %s; %s)\n", scribe.Version, scribe.InterfaceVersion, runtime.Version())
		return exitOK
	default:
		// Redacted: a key or a token pasted without its command lands here.
		fmt.Fprintf(stderr, "scribe-jwt: unknown command %q\n%s", redact.Text(args[0]), usage)
		return exitUsage
	}
}

type command struct {
	stdin  *bufio.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

func (c *command) usageError(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "scribe-jwt: "+format+"\n", args...)
	return exitUsage
}

// flags returns a FlagSet that reports its errors to stderr.
func (c *command) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("scribe-jwt "+name, flag.ContinueOnError)
	fs.SetOutput(redacting{c.stderr})
	return fs
}

// redacting is the flags' output: the flag package quotes a value it cannot
// parse ("invalid value ... for flag -iat"), and a key pasted into the wrong
// flag must not reach the terminal or a CI log. Anything shaped like a
// credential (ask_live_, dk_live_, whsec_, a JWT) is redacted.
type redacting struct{ w io.Writer }

func (r redacting) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redact.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// parse parses args and returns the exit code to stop with, or -1 to go on.
func parse(fs *flag.FlagSet, args []string) int {
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage
	}
	return -1
}

// checkUnix refuses a Unix time flag that was given and is not in
// [1, jwtverify.MaxClaimSeconds]: the service refuses claims at or above 2^53
// (docs/contract.md, "Tokens"), and nothing below 1 is a time a token is minted at.
func checkUnix(fs *flag.FlagSet, name string, v int64) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	if given && (v < 1 || v > jwtverify.MaxClaimSeconds) {
		return fmt.Errorf("-%s %d: give Unix seconds between 1 and 2^53-1, such as %d", name, v, time.Now().Unix())
	}
	return nil
}

// keyFlag returns the first of args, before a "--", that is a flag named
// like a key (-key, -secret, -secret-key, -sk, ...: any name with "key" or
// "secret" in it but -key-stdin), without its value.
func keyFlag(args []string) (string, bool) {
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		lower := strings.ToLower(name)
		if lower != "key-stdin" && (strings.Contains(lower, "key") || strings.Contains(lower, "secret") || lower == "sk" || lower == "k") {
			return "-" + redact.Text(name), true
		}
	}
	return "", false
}

// line reads one line of standard input without its line ending.
func (c *command) line() (string, error) {
	s, err := c.stdin.ReadString('\n')
	if err != nil && (err != io.EOF || s == "") {
		return "", err
	}
	return strings.TrimSpace(s), nil
}

// key reads the secret key from standard input or the environment. The shell
// adds line endings, so surrounding whitespace is trimmed here.
func (c *command) key(fromStdin bool) (auth.SecretKey, error) {
	var s string
	if fromStdin {
		var err error
		if s, err = c.line(); err != nil {
			return auth.SecretKey{}, errors.New("-key-stdin: no key on standard input")
		}
	} else {
		s = strings.TrimSpace(c.getenv(KeyEnv))
		if s == "" {
			return auth.SecretKey{}, errors.New("no secret key: set " + KeyEnv + " or pass -key-stdin and write the key to standard input")
		}
	}
	return auth.ParseSecretKey(s)
}

func (c *command) mint(args []string) int {
	fs := c.flags("mint")
	uuid := fs.String("uuid", "", "the plugin installation `uuid` the token speaks for (required)")
	keyStdin := fs.Bool("key-stdin", false, "read the secret key from the first line of standard input instead of $"+KeyEnv)
	iat := fs.Int64("iat", 0, "issue the token at these Unix `seconds` instead of now")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError("mint takes no arguments, got %d; the key is read from $%s or standard input", fs.NArg(), KeyEnv)
	}
	if err := checkUnix(fs, "iat", *iat); err != nil {
		return c.usageError("%v", err)
	}
	if *uuid == "" {
		return c.usageError("mint needs -uuid INSTALLATION_UUID")
	}
	key, err := c.key(*keyStdin)
	if err != nil {
		return c.usageError("%v", err)
	}
	now := time.Now()
	if *iat != 0 {
		now = time.Unix(*iat, 0)
	}
	token, err := auth.Mint(key, *uuid, now)
	if err != nil {
		return c.usageError("%v", err)
	}
	fmt.Fprintln(c.stdout, token)
	return exitOK
}

// claimsOutput is what verify prints.
type claimsOutput struct {
	InstallationUUID string    `json:"plugin_installation_uuid"`
	IssuedAtUnix     int64     `json:"iat"`
	ExpiresAtUnix    int64     `json:"exp"`
	IssuedAt         time.Time `json:"issued_at"`
	ExpiresAt        time.Time `json:"expires_at"`
}

func (c *command) verify(args []string) int {
	fs := c.flags("verify")
	keyStdin := fs.Bool("key-stdin", false, "read the secret key from the first line of standard input instead of $"+KeyEnv)
	leeway := fs.Duration("leeway", jwtverify.DefaultLeeway, "tolerated clock skew on iat and exp")
	at := fs.Int64("now", 0, "verify as of these Unix `seconds` instead of now")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		return c.usageError("verify takes at most one argument, the token; got %d", fs.NArg())
	}
	if err := checkUnix(fs, "now", *at); err != nil {
		return c.usageError("%v", err)
	}
	if *leeway < 0 || *leeway > time.Hour {
		return c.usageError("-leeway %v: give a duration between 0 and 1h, such as %v", *leeway, jwtverify.DefaultLeeway)
	}
	key, err := c.key(*keyStdin)
	if err != nil {
		return c.usageError("%v", err)
	}
	token := fs.Arg(0)
	if token == "" {
		if token, err = c.line(); err != nil || token == "" {
			return c.usageError("no token: pass it as the argument or on standard input")
		}
	}
	now := time.Now
	if *at != 0 {
		now = func() time.Time { return time.Unix(*at, 0) }
	}
	claims, err := jwtverify.New(now, *leeway).Verify(token, key)
	if err != nil {
		when := ""
		if d, derr := decodeToken(token); errors.Is(err, jwtverify.ErrTokenExpired) && derr == nil && d.exp != nil {
			now := now()
			when = fmt.Sprintf(" (it expired at %s, %s)", d.exp.Format(time.RFC3339), relative(*d.exp, now))
		}
		fmt.Fprintf(c.stderr, "scribe-jwt: invalid token: %v%s\n", err, when)
		return exitInvalid
	}
	out, err := apijson.MarshalIndent(claimsOutput{
		InstallationUUID: claims.InstallationUUID,
		IssuedAtUnix:     claims.IssuedAt.Unix(),
		ExpiresAtUnix:    claims.ExpiresAt.Unix(),
		IssuedAt:         claims.IssuedAt.UTC(),
		ExpiresAt:        claims.ExpiresAt.UTC(),
	})
	if err == nil {
		_, err = fmt.Fprintf(c.stdout, "%s\n", out)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "scribe-jwt: writing the claims: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// decode prints a token's header and claims without verifying anything.
func (c *command) decode(args []string) int {
	fs := c.flags("decode")
	at := fs.Int64("now", 0, "say how far iat and exp are from these Unix `seconds` instead of now")
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		return c.usageError("decode takes at most one argument, the token; got %d", fs.NArg())
	}
	if err := checkUnix(fs, "now", *at); err != nil {
		return c.usageError("%v", err)
	}
	token := fs.Arg(0)
	if token == "" {
		var err error
		if token, err = c.line(); err != nil || token == "" {
			return c.usageError("no token: pass it as the argument or on standard input")
		}
	}
	d, err := decodeToken(token)
	if err != nil {
		fmt.Fprintf(c.stderr, "scribe-jwt: cannot decode the token: %v\n", err)
		return exitInvalid
	}
	now := time.Now()
	if *at != 0 {
		now = time.Unix(*at, 0)
	}
	// Redacted: a claim is the token's author's text, which may hold anything.
	fmt.Fprintf(c.stdout, "header: %s\nclaims: %s\n", redact.Text(string(d.header)), redact.Text(string(d.claims)))
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{"iat", d.iat}, {"exp", d.exp}} {
		if t.at != nil {
			fmt.Fprintf(c.stdout, "%s:    %s (%s)\n", t.name, t.at.Format(time.RFC3339), relative(*t.at, now))
		}
	}
	fmt.Fprintln(c.stdout, "signature: NOT verified: decode needs no key and checks nothing; use scribe-jwt verify to check the token")
	return exitOK
}

// decoded is what decode shows of a token: its header and claims as compact
// JSON, and iat and exp when they are integers of seconds.
type decoded struct {
	header, claims jsontext.Value
	iat, exp       *time.Time
}

// decodeToken decodes the header and the claims of a JWT, verifying nothing.
// Its errors never quote the token.
func decodeToken(token string) (decoded, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return decoded{}, fmt.Errorf("a JWT is three base64url parts separated by '.'; this has %d", len(parts))
	}
	var d decoded
	for i, dst := range []*jsontext.Value{&d.header, &d.claims} {
		what := [...]string{"header", "claims"}[i]
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return decoded{}, fmt.Errorf("the %s are not base64url without padding", what)
		}
		v := jsontext.Value(raw)
		if err := v.Compact(); err != nil || v.Kind() != jsontext.KindBeginObject {
			return decoded{}, fmt.Errorf("the %s are not a JSON object", what)
		}
		*dst = v
	}
	var claims map[string]jsontext.Value
	if err := apijson.Unmarshal(d.claims, &claims, apijson.Lenient()); err != nil {
		return decoded{}, fmt.Errorf("the claims: %w", err)
	}
	for name, dst := range map[string]**time.Time{"iat": &d.iat, "exp": &d.exp} {
		if n, err := strconv.ParseInt(string(claims[name]), 10, 64); err == nil && n >= 0 && n <= jwtverify.MaxClaimSeconds {
			t := time.Unix(n, 0).UTC()
			*dst = &t
		}
	}
	return d, nil
}

// relative says how far t is from now, to the minute beyond a minute:
// "in 52m", "3h ago", "in 1h5m", "12s ago", "2d3h ago".
func relative(t, now time.Time) string {
	d := t.Sub(now)
	past := d < 0
	if past {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh", int(d/time.Hour))
		if m := int(d%time.Hour) / int(time.Minute); m > 0 {
			s += fmt.Sprintf("%dm", m)
		}
	default:
		s = fmt.Sprintf("%dd", int(d/(24*time.Hour)))
		if h := int(d%(24*time.Hour)) / int(time.Hour); h > 0 {
			s += fmt.Sprintf("%dh", h)
		}
	}
	if past {
		return s + " ago"
	}
	return "in " + s
}
