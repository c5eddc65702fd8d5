// Command scribe-jwt mints and verifies installation JWTs of the Plugin
// Integration Service from a shell.
//
// Usage:
//
//	scribe-jwt mint -uuid INSTALLATION_UUID [-key-stdin] [-iat UNIX_SECONDS]
//	scribe-jwt verify [-key-stdin] [-leeway 60s] [-now UNIX_SECONDS] [TOKEN]
//	scribe-jwt -version
//
// The plugin secret key comes from the environment variable SCRIBE_SECRET_KEY,
// or, with -key-stdin, from the first line of standard input; never from a
// flag, where it would be seen in the process list and the shell history.
//
// mint prints the token on standard output. verify takes the token as its
// argument or from standard input (the line after the key with -key-stdin),
// prints its claims as JSON and exits 0 if it is valid, or prints why not and
// exits 1. Usage errors, including a missing or malformed key, an unknown
// flag and a nonsense value (a -iat or -now that is not a positive Unix
// time below 2^53, a negative -leeway), exit 2 and are reported once. The
// key is never printed.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
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
	switch args[0] {
	case "mint":
		return c.mint(args[1:])
	case "verify":
		return c.verify(args[1:])
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
// [1, auth.MaxClaimSeconds]: the service refuses claims at or above 2^53
// (docs/contract.md, "Tokens"), and nothing below 1 is a time a token is minted at.
func checkUnix(fs *flag.FlagSet, name string, v int64) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	if given && (v < 1 || v > auth.MaxClaimSeconds) {
		return fmt.Errorf("-%s %d: give Unix seconds between 1 and 2^53-1, such as %d", name, v, time.Now().Unix())
	}
	return nil
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
	leeway := fs.Duration("leeway", auth.DefaultLeeway, "tolerated clock skew on iat and exp")
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
		return c.usageError("-leeway %v: give a duration between 0 and 1h, such as %v", *leeway, auth.DefaultLeeway)
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
	opts := []auth.VerifierOption{auth.WithLeeway(*leeway)}
	if *at != 0 {
		opts = append(opts, auth.WithClock(func() time.Time { return time.Unix(*at, 0) }))
	}
	claims, err := auth.NewVerifier(opts...).Verify(token, key)
	if err != nil {
		fmt.Fprintf(c.stderr, "scribe-jwt: invalid token: %v\n", err)
		return exitInvalid
	}
	out, err := apijson.MarshalIndent(claimsOutput{
		InstallationUUID: claims.InstallationUUID,
		IssuedAtUnix:     claims.IssuedAt.Unix(),
		ExpiresAtUnix:    claims.ExpiresAt.Unix(),
		IssuedAt:         claims.IssuedAt,
		ExpiresAt:        claims.ExpiresAt,
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
