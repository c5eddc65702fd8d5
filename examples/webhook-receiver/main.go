// Command webhook-receiver receives the Plugin Integration Service's webhook
// deliveries and prints the type and id of each event.
//
// Usage:
//
//	SCRIBE_WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver [-addr 127.0.0.1:9000]
//
// The secret is the signing_secret of the plugin's webhook (GET
// /plugins/{id}/webhooks, the reference server's fixtures, or what
// "scribe-server trigger -uri" prints). With the default -addr the system
// picks a free port; the receiver prints its URL, which is what the
// webhook's uri must be.
//
// To try it by hand against the reference server:
//
//	go build -o bin/scribe-server ./cmd/scribe-server
//	go build -o bin/webhook-receiver ./examples/webhook-receiver
//	bin/scribe-server -admin &
//	bin/scribe-server trigger -uri http://127.0.0.1:9000/hook installation.created   # prints the secret
//	SCRIBE_WEBHOOK_SECRET=whsec_... bin/webhook-receiver -addr 127.0.0.1:9000 &
//	bin/scribe-server trigger -uri http://127.0.0.1:9000/hook transcript.created
//	kill %1 %2   # the binaries themselves: "go run ... &" would leave them running
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
	"sync"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *addr, os.Getenv("SCRIBE_WEBHOOK_SECRET"), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		stop()
		os.Exit(1)
	}
}

// run listens on addr and serves until ctx is done.
func run(ctx context.Context, addr, rawSecret string, stdout, stderr io.Writer) error {
	if rawSecret == "" {
		return errors.New("set SCRIBE_WEBHOOK_SECRET to the webhook's signing secret (whsec_...)")
	}
	secret, err := auth.ParseWebhookSecret(rawSecret) // its errors never repeat the secret
	if err != nil {
		return fmt.Errorf("SCRIBE_WEBHOOK_SECRET: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return serve(ctx, ln, secret, stdout, stderr)
}

// serve receives deliveries on ln, under /hook, until ctx is done.
func serve(ctx context.Context, ln net.Listener, secret auth.WebhookSecret, stdout, stderr io.Writer) error {
	verifier, err := webhook.NewVerifier(secret) // the default body limit admits every event the service emits
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil)) // refusals and handler errors, redacted
	p := &printer{w: stdout}

	handler, err := webhook.NewHandler(verifier, p.handle, webhook.WithLogger(logger))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/hook", handler)

	fmt.Fprintf(stdout, "listening on http://%s/hook\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-stopped
	return nil
}

// printer prints the events it is given, one delivery at a time.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

// handle is called once per event, after its signature was verified.
// Return an error to have the service retry the delivery later
// (webhook.Permanent(err) to stop it from retrying); return nil for event
// types you do not use.
func (p *printer) handle(ctx context.Context, e *webhook.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s %s installation=%s known=%t\n", e.Type, e.ID, e.PluginInstallationUUID, e.Type.Known())
	switch e.Type {
	case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
		t, err := e.Transcript()
		if err != nil {
			return webhook.Permanent(err) // a body that does not decode will not decode on a retry either
		}
		fmt.Fprintf(p.w, "  transcript %d (%s): %q\n", t.ID, t.Type, t.Headline)
	case webhook.EventInstallationCreated, webhook.EventInstallationDeleted:
		inst, err := e.Installation()
		if err != nil {
			return webhook.Permanent(err)
		}
		fmt.Fprintf(p.w, "  installation %d of user %d\n", inst.ID, inst.UserID)
	}
	return nil
}
