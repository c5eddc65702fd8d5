// Command webhook-receiver receives the Plugin Integration Service's webhook
// deliveries and prints the type and id of each event.
//
// Usage:
//
//	SCRIBE_WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver [-addr 127.0.0.1:9000]
//
// The secret is the signing_secret of the plugin's webhook (GET
// /plugins/{id}/webhooks, or the reference server's fixtures). With the
// default -addr the system picks a free port; the receiver prints its URL,
// which is what the webhook's uri must be.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	flag.Parse()
	if err := run(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	raw, ok := os.LookupEnv("SCRIBE_WEBHOOK_SECRET")
	if !ok || raw == "" {
		return errors.New("set SCRIBE_WEBHOOK_SECRET to the webhook's signing secret (whsec_...)")
	}
	secret, err := webhook.ParseSecret(raw) // its errors never repeat the secret
	if err != nil {
		return fmt.Errorf("SCRIBE_WEBHOOK_SECRET: %w", err)
	}
	verifier, err := webhook.NewVerifier(secret)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	mux := http.NewServeMux()
	mux.Handle("/hook", webhook.NewHandler(verifier, handle, webhook.WithLogger(logger)))

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s/hook\n", ln.Addr())

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// handle is called once per event. Return an error to have the service
// retry the delivery later; return nil for event types you do not use.
func handle(ctx context.Context, e *webhook.Event) error {
	fmt.Printf("%s %s installation=%s known=%t\n", e.Type, e.ID, e.PluginInstallationUUID, e.Type.Known())
	switch e.Type {
	case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
		t, err := e.Transcript()
		if err != nil {
			return err
		}
		fmt.Printf("  transcript %d (%s): %q\n", t.ID, t.Type, t.Headline)
	case webhook.EventInstallationCreated, webhook.EventInstallationDeleted:
		inst, err := e.Installation()
		if err != nil {
			return err
		}
		fmt.Printf("  installation %d of user %d\n", inst.ID, inst.UserID)
	}
	return nil
}
