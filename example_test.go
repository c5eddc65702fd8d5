package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"

	"github.com/scribehq/scribe-go"
)

// exampleServer stands in for the service in the examples: three
// transcripts, served two per page, under the prefix /v1.
func exampleServer() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/transcripts", func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.Atoi(r.URL.Query().Get("after_id"))
		var items []string
		for id := after + 1; id <= 3 && len(items) < 2; id++ {
			items = append(items, fmt.Sprintf(`{"id":%d,"headline":"Call %d","text":"","type":"phone_call",
				"created_on":"2026-11-21T09:30:00Z","metadata":{},"user":{"id":8,"first_name":"Grace","last_name":"Hopper"},
				"job":{"id":%d,"lines":3},"audio":{"id":%d,"length_in_seconds":42,"created_on":"2026-11-21T09:00:00Z"}}`, id, id, id, id))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_example")
		fmt.Fprint(w, page(after+len(items) < 3, 3, items...))
	})
	mux.HandleFunc("GET /v1/transcripts/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Request-Id", "req_example")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"type":"about:blank","title":"Not Found","status":404,"detail":"transcript %s does not exist","code":"not_found","request_id":"req_example"}`, r.PathValue("id"))
	})
	return httptest.NewServer(mux)
}

// exampleToken is a TokenSource with a fixed token; package auth provides
// real installation token sources.
type exampleToken struct{}

func (exampleToken) Token(context.Context) (string, error) { return "installation.jwt.here", nil }

func ExampleClient_ListTranscripts() {
	srv := exampleServer()
	defer srv.Close()

	client, err := scribe.NewClient(srv.URL+"/v1", scribe.WithTokenSource(exampleToken{}))
	if err != nil {
		log.Fatal(err)
	}
	// Nothing is sent until the loop runs; the pager follows has_more.
	params := &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 2}}
	for t, err := range client.ListTranscripts(context.Background(), params).All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(t.ID, t.Headline, t.Type)
	}
	// Output:
	// 1 Call 1 phone_call
	// 2 Call 2 phone_call
	// 3 Call 3 phone_call
}

func ExamplePager_Pages() {
	srv := exampleServer()
	defer srv.Close()

	client, err := scribe.NewClient(srv.URL+"/v1", scribe.WithTokenSource(exampleToken{}))
	if err != nil {
		log.Fatal(err)
	}
	params := &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 2}}
	for p, err := range client.ListTranscripts(context.Background(), params).Pages() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d items of %d, has more: %v, resume after: %d\n", len(p.Data), p.TotalCount, p.HasMore, p.NextAfterID)
	}
	// Output:
	// 2 items of 3, has more: true, resume after: 2
	// 1 items of 3, has more: false, resume after: 3
}

func ExampleError() {
	srv := exampleServer()
	defer srv.Close()

	client, err := scribe.NewClient(srv.URL+"/v1", scribe.WithTokenSource(exampleToken{}))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.GetTranscript(context.Background(), 99)
	if errors.Is(err, scribe.ErrNotFound) {
		fmt.Println("not found")
	}
	var apiErr *scribe.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
		fmt.Println(err)
	}
	// Output:
	// not found
	// 404 not_found req_example
	// scribe: GET /transcripts/99: 404 Not Found (not_found): transcript 99 does not exist [request id req_example]
}

func ExampleClient_WithOptions() {
	// One configured client, shared by the whole backend...
	base, err := scribe.NewClient("https://api.example.com/v1", scribe.WithMaxRetries(3))
	if err != nil {
		log.Fatal(err)
	}
	// ...and one cheap copy per installation, sharing its connections.
	perInstallation, err := base.WithOptions(scribe.WithTokenSource(exampleToken{}))
	if err != nil {
		log.Fatal(err)
	}
	_ = perInstallation
	fmt.Println("ok")
	// Output: ok
}

func ExampleNewClient_insecureHTTP() {
	_, err := scribe.NewClient("http://scribe.internal:8080")
	fmt.Println(err)
	// Output:
	// scribe: NewClient: baseURL: plain http to "scribe.internal" would send credentials in clear text; use https, or pass WithInsecureHTTP() on a trusted network
}
