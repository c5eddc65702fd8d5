package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// resend is the resend subcommand: it asks a running server's admin API to
// send an event again to its webhooks, waits for those attempts and prints
// them with the receiver's answers.
func resend(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scribe-server resend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "http://127.0.0.1:8080", "`URL` of a scribe-server started with -admin")
	wait := fs.Duration("wait", 20*time.Second, "how long to wait for the attempts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: scribe-server resend [-server URL] [-wait 20s] EVENT_ID")
		fmt.Fprintln(fs.Output(), "Makes a running scribe-server (-admin) send an event again to each webhook it was delivered to:")
		fmt.Fprintln(fs.Output(), "the same webhook-id and body, a new timestamp and signature. A delivery waiting for a retry makes")
		fmt.Fprintln(fs.Output(), "its next attempt now; a settled one (delivered or given up) gets one more attempt, not retried.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return usagef("resend takes one argument, the event id (evt_..., as trigger and GET /_scribetest/deliveries show it); got %d", fs.NArg())
	case *wait <= 0:
		return usagef("-wait %v: give a positive duration", *wait)
	}
	admin, err := adminURL(*server)
	if err != nil {
		return err
	}
	id := fs.Arg(0)
	client := &http.Client{Timeout: 30 * time.Second}

	last, err := lastAttempts(ctx, client, admin, id)
	if err != nil {
		return err
	}
	if err := adminCall(ctx, client, http.MethodPost, admin+"/events/"+url.PathEscape(id)+"/resend", []byte("{}"), new(struct{})); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "resent %s\n", id)

	// The attempts made since, once every webhook has one.
	var made []triggerAttempt
	_, err = awaitDeliveries(ctx, client, admin, *wait, func(state *deliveryState) string {
		made = made[:0]
		seen := map[int64]bool{}
		for _, a := range state.Attempts {
			if a.EventID == id && a.Attempt > last[a.WebhookID] {
				made = append(made, a)
				seen[a.WebhookID] = true
			}
		}
		if len(seen) < len(last) {
			return fmt.Sprintf("%d of %d webhooks had no new attempt", len(last)-len(seen), len(last))
		}
		return ""
	})
	if err != nil {
		return err
	}
	return reportResend(stdout, admin, made)
}

// lastAttempts returns, by webhook, the number of the last attempt made to
// deliver event id, so that the resend's attempts can be told from them.
func lastAttempts(ctx context.Context, client *http.Client, admin, id string) (map[int64]int, error) {
	var before deliveryState
	if err := adminCall(ctx, client, http.MethodGet, admin+"/deliveries", nil, &before); err != nil {
		return nil, err
	}
	last := map[int64]int{}
	for _, a := range before.Attempts {
		if a.EventID == id {
			last[a.WebhookID] = max(last[a.WebhookID], a.Attempt)
		}
	}
	for _, p := range before.Pending {
		if p.EventID == id {
			last[p.WebhookID] = max(last[p.WebhookID], p.Attempts)
		}
	}
	return last, nil
}

// reportResend prints the resend's attempts, oldest first, and fails unless
// the latest attempt to each webhook delivered the event.
func reportResend(stdout io.Writer, admin string, made []triggerAttempt) error {
	delivered := map[int64]bool{} // by webhook: the outcome of its latest attempt
	for _, a := range made {
		printAttempt(stdout, a)
		delivered[a.WebhookID] = a.Delivered
	}
	failed := 0
	for _, ok := range delivered {
		if !ok {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d webhooks did not get the event; see %s/deliveries", failed, len(delivered), admin)
	}
	fmt.Fprintf(stdout, "delivered: %d of %d\n", len(delivered), len(delivered))
	return nil
}
