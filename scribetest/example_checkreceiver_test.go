package scribetest_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// A test checks its plugin's webhook receiver against the delivery rules,
// and that the receiver's function ran exactly once for every event it
// should process, however often and however concurrently it was delivered.
func ExampleCheckReceiver() {
	// The receiver's own signing secret: in a test, any secret will do.
	secret, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		log.Fatal(err)
	}
	verifier, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	var processed scribetest.EventCounter
	handle := func(ctx context.Context, e *webhook.Event) error {
		return nil // the plugin's work: store the transcript, sync the installation...
	}
	h, err := webhook.NewHandler(verifier, processed.Wrap(handle), webhook.WithLogger(nil))
	if err != nil {
		log.Fatal(err)
	}
	receiver := httptest.NewServer(h)
	defer receiver.Close()

	t := printingT{} // in a test: its *testing.T
	scribetest.CheckReceiver(t, receiver.URL, secret, scribetest.WithProcessedCount(processed.Count))
	// Output:
	// PASS valid: a valid delivery of each event type is answered 2xx within 15s, and processed once [installation.created evt_…, transcript.created evt_…, transcript.updated evt_…, installation.deleted evt_…]
	// PASS redelivery: a redelivery of a handled event (same webhook-id, new timestamp and signature) is answered 2xx, and not processed again [transcript.updated evt_…]
	// PASS wrong-secret: a delivery signed with another secret is refused with 4xx, and never processed [installation.created evt_…]
	// PASS tampered-body: a body changed by one byte after signing is refused with 4xx, and never processed [transcript.created evt_…]
	// PASS missing-headers: a delivery without webhook-signature, webhook-timestamp or webhook-id is refused with 4xx, and never processed [transcript.updated evt_…, transcript.updated evt_…, transcript.updated evt_…]
	// PASS stale-timestamp: a delivery signed more than 5 minutes ago, or more than 5 minutes ahead, is refused with 4xx, and never processed [installation.deleted evt_…, transcript.created evt_…]
	// PASS rotation: a webhook-signature of two entries, one of them valid (a secret rotation), is accepted with 2xx, and processed once [transcript.created evt_…]
	// PASS unknown-type: an event of a type the receiver cannot know (transcript.summarized) is answered 2xx, and processed at most once [transcript.summarized evt_…]
	// PASS concurrent: 10 concurrent deliveries of one event are each answered 2xx, or 409/429 with Retry-After, never 5xx, and the event is processed once [transcript.created evt_…]
	// scribetest: CheckReceiver: 9 passed, 0 failed
}

// printingT stands in for the *testing.T of a test, so that this example
// runs: it prints what CheckReceiver reports, with the event ids, which are
// random, as evt_…. A test passes its own t.
type printingT struct{ testing.TB }

var eventID = regexp.MustCompile(`evt_[A-Z0-9]+`)

func (printingT) Helper()                  {}
func (printingT) Context() context.Context { return context.Background() }
func (printingT) Log(args ...any) {
	fmt.Println(eventID.ReplaceAllString(fmt.Sprint(args...), "evt_…"))
}
func (printingT) Error(args ...any) { printingT{}.Log(args...) }
func (printingT) Logf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}
func (printingT) Fatalf(format string, args ...any) {
	log.Fatalf(format, args...)
}
