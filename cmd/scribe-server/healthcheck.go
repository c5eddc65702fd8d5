package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/scribehq/scribe-go/scribetest/devserver"
)

// healthTimeout bounds the whole healthcheck: a server that has not
// answered within it is not healthy.
const healthTimeout = 2 * time.Second

// healthcheck is the healthcheck subcommand: it asks a running server's
// GET /_scribetest/healthz, and fails, saying why, unless the answer is 200
// within healthTimeout. A container image's HEALTHCHECK runs it, since a
// scratch image has no curl.
func healthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scribe-server healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "http://127.0.0.1:8080", "`URL` of the scribe-server to check")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: scribe-server healthcheck [-server URL]")
		fmt.Fprintf(fs.Output(), "Asks a running scribe-server's GET %s. Exit status: 0 when it answers 200 within %v,\n", devserver.HealthPath, healthTimeout)
		fmt.Fprintln(fs.Output(), "1 (with the reason) otherwise, 2 for a usage error.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("healthcheck takes no argument, got %q; give the server with -server", fs.Arg(0))
	}
	admin, err := adminURL(*server)
	if err != nil {
		return err
	}
	target := admin + "/healthz" // devserver.HealthPath
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err // it would repeat the method and the URL
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("healthcheck: GET %s: no answer within %v", target, healthTimeout)
	case err != nil:
		return fmt.Errorf("healthcheck: GET %s: %w", target, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s: %s, want 200 OK", target, resp.Status)
	}
	fmt.Fprintf(stdout, "healthy: GET %s answered 200\n", target)
	return nil
}
