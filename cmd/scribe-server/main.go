// Command scribe-server runs the reference server of the Plugin Integration
// Service (package scribetest) as a standalone process, for trying the API
// with curl or testing a client written in another language.
//
// Usage:
//
//	scribe-server [-addr 127.0.0.1:8080] [-state DIR] [-fixtures FILE] [-base-path /v1] [-admin] [-allowed-hosts a,b] [-body-budget 256MiB] [-rate-limit N/DURATION] [-webhook-schedule-scale F]
//	scribe-server healthcheck [-server URL]
//	scribe-server trigger [-server URL] [-plugin ID] [-uri URI] [-wait 20s] EVENT_TYPE
//	scribe-server resend [-server URL] [-wait 20s] EVENT_ID
//	SCRIBE_WEBHOOK_SECRET=whsec_... scribe-server check-receiver [-timeout 15s] [-server URL [-plugin ID]] [-event TYPE]... [-require-checked] URL
//	scribe-server -version
//	scribe-server help
//
// Without -fixtures it loads the built-in demo data set and prints its
// credentials. With -state DIR it keeps its state in the directory DIR
// (created if missing), written to disk before each request that changes
// it is answered, so that a restart, or a kill -9, loses nothing: the
// resources, events, deliveries (a pending retry resumes when due) and the
// answers kept for Idempotency-Keys. The request log and check-receiver's
// results are kept in memory only: a restart loses them. A DIR that holds
// no state is seeded from -fixtures or the demo data; one that holds a
// state is loaded as it is, and -fixtures is then an error. A state that
// cannot be read, or a DIR another process has open, exits 1 naming the
// file; the file is left as it is. The first line on standard output is
// always "listening on <base URL>", so a script can wait for it. SIGINT or SIGTERM
// stops the server gracefully: it waits up to 5 s for requests and webhook
// deliveries in flight. Deliveries it could not make are kept with -state,
// for the next server on DIR, and it exits 0 saying how many; without
// -state they are lost, and it exits 1 naming how many, so no event is
// lost silently.
//
// The server is package devserver's: GET /_scribetest/healthz answers 200
// {"status":"ok"} once it serves. -admin enables the admin API under
// /_scribetest/ (api/admin.yaml: install, uninstall, create and update
// transcripts, remove users, add webhooks, read delivery attempts and the
// request log, trigger and resend events, inject faults, set the rate
// limit, make check-receiver's scenes), so tests in any language can drive
// the server, and serves the dashboard at /_scribetest/ui/, whose address
// it prints on its second line: the events, deliveries and requests the
// server recorded, in a browser. -rate-limit limits each credential to N
// requests per DURATION (10/1s), as scribetest.WithRateLimit does.
// -webhook-schedule-scale shortens the retry schedule (0.001 turns 5
// minutes into 0.3 s). Every path answers only the Host names localhost,
// *.localhost and IP addresses, and those -allowed-hosts a,b adds (a
// compose service name, say); any other gets 403, so that a web page whose
// name resolves to this machine (DNS rebinding) cannot use the server.
// -body-budget bounds the event bodies kept for resend and the receivers'
// answers (default 256MiB; the oldest bodies go first), as
// scribetest.WithBodyBudget does.
//
// healthcheck asks a running server's GET /_scribetest/healthz and exits 0
// when it answers 200 within 2 s, 1 with the reason otherwise: a container
// image's HEALTHCHECK, which needs no curl.
//
// trigger asks a running server (started with -admin) to emit an event of
// EVENT_TYPE (installation.created, installation.deleted,
// transcript.created, transcript.updated) to the webhooks of a plugin, as
// "stripe trigger" does, and prints each delivery attempt with the
// receiver's answer. With -uri it first adds a webhook of that URI to the
// plugin if there is none, and prints its signing secret for the receiver.
//
// resend asks a running server (-admin) to send the event EVENT_ID again to
// each webhook it was delivered to: the same webhook-id and body, a new
// timestamp and signature. A delivery waiting for a retry makes its next
// attempt now; a settled one gets one more attempt, which is not retried.
// It prints the attempts, and exits 1 unless each was delivered.
//
// check-receiver checks a webhook receiver, written in any language, against
// the delivery rules the service relies on: it sends the receiver at URL
// real signed deliveries of every event type and of one it cannot know, and
// forged, tampered, stale, repeated and concurrent ones, signed with the
// secret of SCRIBE_WEBHOOK_SECRET (never a flag, never printed). It prints
// one PASS or FAIL line per rule, each FAIL with what was sent, what came
// back and why it matters, then "N passed, M failed". -timeout is how long
// the receiver has to answer a valid delivery (default 15 s, the service's).
// With -server (a scribe-server started with -admin), each event names an
// installation and a transcript it makes there for plugin -plugin (default
// 100, the demo plugin), so a receiver that calls the service back gets
// real answers, and removes them when it ends, interrupted or not; its
// calls there show which events it processed, so a
// receiver that processes a redelivery or a concurrent duplicate again
// fails, and a rule where it made no call prints NOT CHECKED ("not
// checked"), counted in the summary. Without -server, such a receiver's
// calls get 401, and double processing is not checked.
// docs/webhooks.md, "Check your receiver", explains the rules.
//
// The server has read, write, idle and header timeouts and a cap on header
// size, so a slow or hostile client cannot hold its connections.
//
// help, -help and -h print the usage and exit 0.
//
// Exit status: 0 on success, 2 for a usage error (a bad flag or value,
// printed once), 1 for anything else (a fixture file that does not load, a
// trigger whose event was not delivered, a receiver that broke a rule).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/persist"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a mistake in the command line: exit status 2. printed
// says the flag package has already reported it.
type usageError struct {
	err     error
	printed bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// exitCode reports err on stderr, once, and returns the exit status.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintln(stderr, "scribe-server:", err)
		}
		return 2
	default:
		fmt.Fprintln(stderr, "scribe-server:", err)
		return 1
	}
}

// parseFlags parses args into fs, turning the flag package's errors (which
// it has printed, with the usage) into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return err
	default:
		return &usageError{err: err, printed: true}
	}
}

// version is what -version prints.
func version() string {
	return fmt.Sprintf("scribe-server %s (interface %s; %s)", scribe.Version, scribe.InterfaceVersion, runtime.Version())
}

// shutdownTimeout bounds how long requests in flight may take to finish
// after a signal.
const shutdownTimeout = 5 * time.Second

// limits are the http.Server's defences against slow and hostile clients
// (slowloris): how long a client may take to send its headers and its
// request, how long a response may take, how long an idle keep-alive
// connection is kept, and how large the headers may be.
type limits struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
}

// defaultLimits leave every request of the contract ample room: bodies are
// at most 1 MiB (4 MiB through the admin API), tokens at most 8 KiB.
var defaultLimits = limits{
	readHeader:     10 * time.Second,
	read:           30 * time.Second,
	write:          60 * time.Second,
	idle:           120 * time.Second,
	maxHeaderBytes: 64 << 10,
}

// newHTTPServer returns the http.Server the command serves h with.
func newHTTPServer(h http.Handler, l limits, errorLog *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    l.maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(errorLog.Handler(), slog.LevelWarn),
	}
}

// run is the whole program: it serves until ctx is done, then shuts down;
// or, with the trigger subcommand, triggers an event on a running server.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, args, stdout, stderr, defaultLimits)
}

func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, lim limits) error {
	if len(args) > 0 {
		switch args[0] {
		case "trigger":
			return trigger(ctx, args[1:], stdout, stderr)
		case "healthcheck":
			return healthcheck(ctx, args[1:], stdout, stderr)
		case "resend":
			return resend(ctx, args[1:], stdout, stderr)
		case "check-receiver":
			return checkReceiver(ctx, args[1:], stdout, stderr, os.Getenv)
		case "help":
			// Asked for by name, the usage goes to standard output, as
			// scribe-jwt's does; -help prints it where the flag package does.
			_, err := parseServe([]string{"-help"}, stdout, stdout)
			return err
		}
	}
	cfg, err := parseServe(args, stdout, stderr)
	if err != nil || cfg == nil {
		return err // nil, nil: -version was printed
	}
	s, err := scribetest.NewUnstartedServer(cfg.opts...)
	if errors.As(err, new(*persist.Error)) {
		return err // a -state that cannot be used
	} else if err != nil {
		return &usageError{err: err} // the other options come from flags
	}
	defer s.Close()
	loaded := cfg.state != "" && len(s.Users()) > 0
	var fx scribetest.Fixtures
	switch {
	case loaded && cfg.fixtures != "":
		return fmt.Errorf("-state %s already holds a state, which is loaded as it is: -fixtures loads only into an empty directory; drop -fixtures, or give an empty -state", cfg.state)
	case !loaded:
		if fx, err = loadFixtures(s, cfg.fixtures); err != nil {
			return err
		}
	}
	var dev []devserver.Option
	if cfg.admin {
		dev = append(dev, devserver.WithAdminAPI())
	}
	h, err := devserver.New(s, dev...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	busy := &inFlight{h: h}
	hs := newHTTPServer(busy, lim, slog.New(slog.NewTextHandler(stderr, nil)))
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	base := "http://" + ln.Addr().String() + strings.TrimSuffix(cfg.basePath, "/")
	fmt.Fprintf(stdout, "listening on %s\n", base)
	if cfg.admin {
		fmt.Fprintf(stdout, "dashboard at http://%s%s\n", ln.Addr(), devserver.DashboardPath)
	}
	switch {
	case loaded:
		fmt.Fprintf(stdout, "Loaded the state in %s: %d users, %d plugins; webhook deliveries pending: %d.\n",
			cfg.state, len(s.Users()), len(s.Plugins()), len(s.PendingDeliveries()))
	case cfg.fixtures == "":
		printDemo(stdout, base, fx)
	default:
		printSummary(stdout, cfg.fixtures, fx)
	}
	if cfg.state != "" && !loaded {
		fmt.Fprintf(stdout, "The state is kept in %s.\n", cfg.state)
	}
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("serving: %w", err)
	}
	fmt.Fprintln(stderr, "scribe-server: shutting down")
	return shutdown(hs, busy, s, cfg.state, stderr)
}

// shutdown stops hs, then s, within shutdownTimeout. Deliveries left
// pending fail it without a state directory, where they are lost; with one
// (state), where each change of a delivery was written as it was made, the
// next server on it resumes them, which shutdown says on stderr.
func shutdown(hs *http.Server, busy *inFlight, s *scribetest.Server, state string, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	httpErr := shutdownHTTP(ctx, hs, busy)
	deliveryErr := s.Shutdown(ctx) // s serves no listener: its error is about deliveries
	if n := len(s.PendingDeliveries()); deliveryErr != nil && state != "" && n > 0 {
		fmt.Fprintf(stderr, "scribe-server: webhook deliveries not yet made: %d, kept in %s; a server started again with -state %s resumes them\n", n, state, state)
		deliveryErr = nil
	}
	if err := errors.Join(httpErr, deliveryErr); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// inFlight counts the requests being served.
type inFlight struct {
	n atomic.Int64
	h http.Handler
}

func (f *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.n.Add(1)
	defer f.n.Add(-1)
	f.h.ServeHTTP(w, r)
}

// shutdownHTTP stops hs listening and waits, until ctx ends, for the
// requests in flight. http.Server.Shutdown alone would also wait up to 5 s
// for a connection that a client opened but never sent a request on (an
// HTTP client's spare dial), so once no request is in flight the
// connections left are closed.
func shutdownHTTP(ctx context.Context, hs *http.Server, busy *inFlight) error {
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(ctx) }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if busy.n.Load() == 0 {
				_ = hs.Close() // its listeners are closed already
				return nil
			}
		}
	}
}
