package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/webhook"
)

// secretEnv names the environment variable check-receiver reads the
// webhook's signing secret from: never a flag, which would leave it in the
// shell's history and in the process list.
const secretEnv = "SCRIBE_WEBHOOK_SECRET"

// checkReceiver is the check-receiver subcommand: it sends the webhook
// receiver at URL signed, forged, stale, repeated and concurrent deliveries,
// prints a PASS or FAIL line per rule and a summary line, and fails when
// the receiver broke a rule.
func checkReceiver(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("scribe-server check-receiver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	timeout := fs.Duration("timeout", receivercheck.DefaultTimeout, "how long the receiver has to answer a valid delivery (the service's delivery timeout)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: "+secretEnv+"=whsec_... scribe-server check-receiver [-timeout 15s] URL")
		fmt.Fprintln(fs.Output(), "Checks the webhook receiver at URL against the delivery rules (docs/webhooks.md, \"Check your receiver\").")
		fmt.Fprintln(fs.Output(), "Exit status: 0 when it keeps every rule, 1 when it breaks one, 2 for a usage error.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("check-receiver takes one argument, the receiver's URL, and got %d; see check-receiver -help", fs.NArg())
	case *timeout <= 0:
		return usagef("-timeout %v: give a positive duration, such as 2s", *timeout)
	}
	raw := getenv(secretEnv)
	if raw == "" {
		return usagef("set %s to the webhook's signing secret (whsec_...)", secretEnv)
	}
	secret, err := webhook.ParseSecret(raw) // its errors never repeat the secret
	if err != nil {
		return usagef("%s: %w", secretEnv, err)
	}
	cfg := receivercheck.Config{URL: fs.Arg(0), Secret: secret, Timeout: *timeout}
	sum, err := receivercheck.Run(ctx, cfg, func(r receivercheck.Result) { fmt.Fprintln(stdout, r) })
	switch {
	case errors.Is(err, receivercheck.ErrConfig):
		return &usageError{err: err}
	case err != nil:
		return fmt.Errorf("check-receiver: %w", err)
	}
	fmt.Fprintln(stdout, sum)
	if sum.Failed > 0 {
		return fmt.Errorf("check-receiver: the receiver broke %d of %d rules; see the FAIL lines", sum.Failed, sum.Passed+sum.Failed)
	}
	return nil
}
