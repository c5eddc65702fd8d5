package scribe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/scribehq/scribe-go"
)

// ExampleWithResponseInto reads what a successful answer said besides its
// body: status, request id and the rate-limit figures.
func ExampleWithResponseInto() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_42")
		w.Header().Set("RateLimit-Limit", "600")
		w.Header().Set("RateLimit-Remaining", "599")
		w.Header().Set("RateLimit-Reset", "60")
		fmt.Fprint(w, `{"id":8,"first_name":"Grace","last_name":"Hopper","email_address":"grace@example.com"}`)
	}))
	defer srv.Close()
	c, err := scribe.NewClient(srv.URL, scribe.WithTokenSource(plainTokens{"installation.jwt.token"}))
	if err != nil {
		fmt.Println(err)
		return
	}

	var resp scribe.Response
	me, err := c.GetMe(context.Background(), scribe.WithResponseInto(&resp))
	if err != nil {
		fmt.Println(err)
		return
	}
	rl, _ := resp.RateLimit()
	fmt.Println(me.FirstName, resp.StatusCode, resp.RequestID, resp.Attempts)
	fmt.Printf("%d of %d requests left, window resets in %s\n", rl.Remaining, rl.Limit, rl.Reset)
	// Output:
	// Grace 200 req_42 1
	// 599 of 600 requests left, window resets in 1m0s
}
