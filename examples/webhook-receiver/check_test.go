package main

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
)

// The example receiver keeps every delivery rule of scribetest.CheckReceiver
// (the check "scribe-server check-receiver" runs from the command line), and
// processes each event exactly once: the check counts the events the
// program printed, so a redelivery or a concurrent delivery that ran the
// function again, or a forged one that ran it at all, fails the test.
func TestReceiverKeepsTheDeliveryRules(t *testing.T) {
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, secret, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	// handle prints "<type> <id> installation=..." once per event it runs for.
	printed := func(eventID string) int { return strings.Count(stdout.String(), " "+eventID+" installation=") }
	scribetest.CheckReceiver(t, "http://"+ln.Addr().String()+"/hook", secret, scribetest.WithProcessedCount(printed))
	if strings.Contains(stdout.String()+stderr.String(), strings.TrimPrefix(secret.Reveal(), auth.WebhookSecretPrefix)) {
		t.Error("the receiver printed its secret")
	}
}
