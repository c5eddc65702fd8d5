// Command scribe-server runs the reference server of the Plugin Integration
// Service (package scribetest) as a standalone process, for trying the API
// with curl or testing a client written in another language.
//
// Usage:
//
//	scribe-server [-addr 127.0.0.1:8080] [-fixtures FILE] [-base-path /v1] [-admin] [-webhook-schedule-scale F]
//
// Without -fixtures it loads the built-in demo data set and prints its
// credentials. The first line on standard output is always
// "listening on <base URL>", so a script can wait for it. SIGINT or SIGTERM
// stops the server gracefully: it waits up to 5 s for requests and webhook
// deliveries in flight, and exits 1 naming how many deliveries it could not
// make, so no event is lost silently.
//
// -admin enables the admin API under /_scribetest/ (install, uninstall,
// create and update transcripts, add webhooks, read delivery attempts), so
// tests in any language can make the server emit webhook events.
// -webhook-schedule-scale shortens the retry schedule (0.001 turns 5 minutes
// into 0.3 s).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/scribehq/scribe-go/scribetest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "scribe-server:", err)
		os.Exit(1)
	}
}

// shutdownTimeout bounds how long requests in flight may take to finish
// after a signal.
const shutdownTimeout = 5 * time.Second

// run is the whole program: it serves until ctx is done, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scribe-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on; port 0 picks a free one")
	fixtures := fs.String("fixtures", "", "fixture `file` (JSON, see docs/server.md); default: the built-in demo data set")
	basePath := fs.String("base-path", "", "path `prefix` of every operation, such as /v1")
	admin := fs.Bool("admin", false, "enable the admin API under "+scribetest.AdminPathPrefix+" (no credentials: local use only)")
	scale := fs.Float64("webhook-schedule-scale", 1, "multiply every webhook retry delay by `factor` (0 < factor; 0.001 for tests)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: scribe-server [-addr host:port] [-fixtures file] [-base-path /v1] [-admin] [-webhook-schedule-scale f]")
		fmt.Fprintln(fs.Output(), "Runs the Plugin Integration Service in memory, for local testing.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; see -help", fs.Arg(0))
	}

	var src io.Reader = scribetest.DemoFixtures()
	if *fixtures != "" {
		f, err := os.Open(*fixtures)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	opts := []scribetest.Option{
		scribetest.WithAddr(*addr),
		scribetest.WithBasePath(*basePath),
		scribetest.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))),
		scribetest.WithWebhookScheduleScale(*scale),
	}
	if *admin {
		opts = append(opts, scribetest.WithAdminAPI())
	}
	s, err := scribetest.NewUnstartedServer(opts...)
	if err != nil {
		return err
	}
	fx, err := s.LoadFixtures(src)
	if err != nil {
		return err
	}
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Close()

	fmt.Fprintf(stdout, "listening on %s\n", s.URL())
	if *fixtures == "" {
		printDemo(stdout, s.URL(), fx)
	} else {
		printSummary(stdout, *fixtures, fx)
	}

	<-ctx.Done()
	fmt.Fprintln(stderr, "scribe-server: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// printDemo prints the demo set's credentials. They are public demo secrets,
// printed on purpose: this is a local test server.
func printDemo(w io.Writer, url string, fx scribetest.Fixtures) {
	dev := fx.Developers[0]
	plugin := fx.Plugins[0]
	key := fx.SecretKeys[0]
	inst := fx.Installations[0]
	fmt.Fprintf(w, `
Loaded the built-in demo data set. The credentials below are PUBLIC DEMO
SECRETS, printed on purpose because this is a local test server: never use
them, or this server, for anything real.

  developer key      %s   (%s %s, user %d)
  plugin             %d "%s"   (user: %s, transcript: %s)
  secret key         %s   (of plugin %d)
  installation uuid  %s   (%s %s, user %d)

Try:
  curl -H 'Authorization: Bearer %s' %s/plugins
  TOKEN=$(SCRIBE_SECRET_KEY=%s go run ./cmd/scribe-jwt mint -uuid %s)
  curl -H "Authorization: Bearer $TOKEN" %s/transcripts
`,
		dev.Key.Reveal(), dev.User.FirstName, dev.User.LastName, dev.User.ID,
		plugin.ID, plugin.Name, plugin.Permissions.User, plugin.Permissions.Transcript,
		key.Key.Reveal(), key.PluginID,
		inst.UUID, inst.FirstName, inst.LastName, inst.UserID,
		dev.Key.Reveal(), url, key.Key.Reveal(), inst.UUID, url)
}

// printSummary says what a fixture file created, without its secrets: the
// file's author has them, or left them out to have them generated.
func printSummary(w io.Writer, file string, fx scribetest.Fixtures) {
	fmt.Fprintf(w, "Loaded %s: %d users (%d developers), %d plugins, %d secret keys, %d installations, %d transcripts, %d webhooks.\n",
		file, len(fx.Users), len(fx.Developers), len(fx.Plugins), len(fx.SecretKeys), len(fx.Installations), len(fx.Transcripts), len(fx.Webhooks))
	for _, in := range fx.Installations {
		fmt.Fprintf(w, "  installation %d  uuid %s  (plugin %d, user %d)\n", in.ID, in.UUID, in.PluginID, in.UserID)
	}
	fmt.Fprintln(w, "Secrets are not printed; give them in the file to know them.")
}
