package scribe_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// A POST that failed may have been done by the service all the same: the
// connection broke after the request arrived, or the caller stopped waiting.
// Whatever ended it, the error names the call's Idempotency-Key; repeating
// the call with that key, within 24 hours and from any process, does the
// work at most once and answers with its result.
func ExampleIdempotencyKeyOf() {
	sc := newExampleScene()
	defer sc.srv.Close()
	// Every connection to POST /plugins drops, until the faults are cleared.
	if err := sc.srv.InjectFault(scribetest.Fault{Method: "POST", Path: "/plugins", Times: -1, Drop: true}); err != nil {
		log.Fatal(err)
	}
	dev, err := sc.srv.DeveloperClient(sc.dev.Key, scribe.WithRetryWait(10*time.Millisecond, 10*time.Millisecond)) // short waits for the example
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	params := &scribe.CreatePluginParams{Name: "Action items"}

	_, err = dev.CreatePlugin(ctx, params)
	key, ok := scribe.IdempotencyKeyOf(err)
	fmt.Println("failed:", err != nil, "key named:", ok)

	// Keep the key with the work still to do, and repeat the call with it.
	sc.srv.ClearFaults()
	p, err := dev.CreatePlugin(ctx, params, scribe.WithIdempotencyKey(key))
	if err != nil {
		log.Fatal(err)
	}
	again, err := dev.CreatePlugin(ctx, params, scribe.WithIdempotencyKey(key))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, p.ID == again.ID)
	// Output:
	// failed: true key named: true
	// Action items true
}
