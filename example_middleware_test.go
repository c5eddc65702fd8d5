package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/scribehq/scribe-go"
)

// A middleware runs around every attempt. This one prints the operation,
// the attempt and why it is made, and the status of each answer; the
// reference server fails the first attempt with a 503.
func ExampleWithMiddleware() {
	sc := newExampleScene()
	defer sc.srv.Close()
	logAttempts := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		op, _ := scribe.OperationFromContext(req.Context())
		resp, err := next(req)
		if err != nil {
			return nil, err
		}
		fmt.Printf("%s %s %s attempt %d (retrying: %v): %d\n", op.Name, op.Method, op.PathTemplate, op.Attempt, op.Retried != nil, resp.StatusCode)
		return resp, nil
	}
	client, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID, scribe.WithMiddleware(logAttempts))
	if err != nil {
		log.Fatal(err)
	}
	if err := sc.srv.FailNext(1, http.StatusServiceUnavailable); err != nil {
		log.Fatal(err)
	}
	ts, err := client.ListTranscripts(context.Background(), nil).Next()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ts.Data), "transcripts")
	// Output:
	// ListTranscripts GET /transcripts attempt 1 (retrying: false): 503
	// ListTranscripts GET /transcripts attempt 2 (retrying: true): 200
	// 3 transcripts
}

// An operation hook sees each operation once, whatever its attempts: a
// tracer starts the operation's span in it and ends the span when the
// operation ends, and the context it returns is the parent of every
// attempt's request context, where the attempt spans start. Here the
// "span" is a plain context value.
func ExampleWithOperationHook() {
	sc := newExampleScene()
	defer sc.srv.Close()
	type spanKey struct{}
	trace := scribe.WithOperationHook(func(ctx context.Context, op scribe.Operation) (context.Context, func(*scribe.Response, error)) {
		span := "scribe." + op.Name
		fmt.Println("start", span)
		return context.WithValue(ctx, spanKey{}, span), func(resp *scribe.Response, err error) {
			if resp != nil { // nil when no answer came
				fmt.Println("end", span, "status", resp.StatusCode, "after", resp.Attempts, "attempts")
			}
			if err != nil {
				fmt.Println("end", span, "error:", err)
			}
		}
	})
	attempts := scribe.WithMiddleware(func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		op, _ := scribe.OperationFromContext(req.Context())
		fmt.Printf("  %s %s, attempt %d, in %s\n", op.Method, op.PathTemplate, op.Attempt, req.Context().Value(spanKey{}))
		return next(req)
	})
	client, err := sc.srv.DeveloperClient(sc.dev.Key, trace, attempts)
	if err != nil {
		log.Fatal(err)
	}
	if err := sc.srv.FailNext(2, http.StatusBadGateway); err != nil {
		log.Fatal(err)
	}
	if _, err := client.GetPlugin(context.Background(), sc.plugin.ID); err != nil {
		log.Fatal(err)
	}
	// Output:
	// start scribe.GetPlugin
	//   GET /plugins/{id}, attempt 1, in scribe.GetPlugin
	//   GET /plugins/{id}, attempt 2, in scribe.GetPlugin
	//   GET /plugins/{id}, attempt 3, in scribe.GetPlugin
	// end scribe.GetPlugin status 200 after 3 attempts
}

// Client.Do sends an operation the SDK has no method for, with the client's
// credential, retries and error typing. Here it asks for the installation's
// user, as GetMe would.
func ExampleClient_Do() {
	sc := newExampleScene()
	defer sc.srv.Close()
	client, err := scribe.NewInstallationClient(sc.srv.URL(), sc.key.Key, sc.inst.UUID)
	if err != nil {
		log.Fatal(err)
	}
	var me struct {
		FirstName string `json:"first_name"`
		Email     string `json:"email_address"`
	}
	resp, err := client.Do(context.Background(), http.MethodGet, "/users/me", nil, &me)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, me.FirstName, me.Email)

	_, err = client.Do(context.Background(), http.MethodGet, "/transcripts/999999", nil, nil)
	fmt.Println(errors.Is(err, scribe.ErrNotFound))
	// Output:
	// 200 Grace grace@example.com
	// true
}
