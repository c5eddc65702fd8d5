package otelscribe_test

import (
	"context"
	"log"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/otelscribe"
	"github.com/scribehq/scribe-go/scribetest"
)

// A program sets its tracer provider once, and ClientOption takes the
// global one. Here the spans of one GetTranscript, retried after an injected
// 503, are printed as JSON: two "GET /transcripts/{id}" attempts (503, then
// 200 with http.request.resend_count 1) and their parent
// "scribe.GetTranscript". (The output holds random ids and a port, so it is
// not checked here; TestRetriedGetTranscript checks the same spans.)
func Example() {
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(os.Stdout), stdouttrace.WithPrettyPrint(), stdouttrace.WithoutTimestamps())
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	otel.SetTracerProvider(tp)

	srv, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	dev, err := srv.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	plugin, err := srv.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "Traced",
		Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
	if err != nil {
		log.Fatal(err)
	}
	key, err := srv.CreateSecretKey(plugin.ID, "example")
	if err != nil {
		log.Fatal(err)
	}
	inst, tr, err := srv.CreateScene(plugin.ID, false)
	if err != nil {
		log.Fatal(err)
	}

	client, err := srv.InstallationClient(key.Key, inst.UUID, otelscribe.ClientOption())
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.FailNext(1, 503); err != nil {
		log.Fatal(err)
	}
	if _, err := client.GetTranscript(context.Background(), tr.ID); err != nil {
		log.Fatal(err)
	}
}
