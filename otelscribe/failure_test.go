package otelscribe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/scribehq/scribe-go/otelscribe"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// TestDroppedConnection protects the record of an attempt that got no
// answer: its span has error.type connection, no status, and the Error
// status; the retry event says connection; and an operation that fails for
// good ends its span with the final status and error.type.
func TestDroppedConnection(t *testing.T) {
	sc := newScene(t)
	tel := newTelemetry(t)
	c := sc.client(t, tel)
	must(t, sc.srv.InjectFault(scribetest.Fault{Drop: true}))
	if _, err := c.GetTranscript(context.Background(), sc.tr.ID); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.GetSpans()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	first := attrs(spans[0].Attributes)
	if first["error.type"].AsString() != "connection" || spans[0].Status.Code != codes.Error {
		t.Errorf("dropped attempt: attributes %v, status %v; want error.type connection and Error", spans[0].Attributes, spans[0].Status)
	}
	if _, ok := first["http.response.status_code"]; ok {
		t.Error("an attempt that got no answer has a status code")
	}
	if ev := spans[2].Events; len(ev) != 1 || attrs(ev[0].Attributes)["scribe.retry.reason"].AsString() != "connection" {
		t.Errorf("operation events %v, want one retry for a connection error", ev)
	}

	tel.spans.Reset()
	if _, err := c.GetTranscript(context.Background(), sc.tr.ID+1000); err == nil {
		t.Fatal("GetTranscript of a transcript that does not exist succeeded")
	}
	spans = tel.spans.GetSpans()
	op := spans[len(spans)-1]
	if a := attrs(op.Attributes); op.Name != "scribe.GetTranscript" || a["http.response.status_code"].AsInt64() != 404 ||
		a["error.type"].AsString() != "404" || op.Status.Code != codes.Error {
		t.Errorf("failed operation's span %q: %v, status %v; want status 404, error.type 404, Error", op.Name, op.Attributes, op.Status)
	}
}

// TestNoopProvidersStillPropagate protects the no-op path: with no-op
// providers the client records nothing but still sends the caller's trace
// context on, so a trace started upstream reaches the service.
func TestNoopProvidersStillPropagate(t *testing.T) {
	sc := newScene(t)
	c, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID, otelscribe.ClientOption(
		otelscribe.WithTracerProvider(tracenoop.NewTracerProvider()), otelscribe.WithMeterProvider(noop.NewMeterProvider())))
	must(t, err)
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	if _, err := c.GetTranscript(ctx, sc.tr.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTranscript(context.Background(), sc.tr.ID); err != nil { // no trace: nothing sent
		t.Fatal(err)
	}
	sc.parents.mu.Lock()
	defer sc.parents.mu.Unlock()
	want := []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", ""}
	if len(sc.parents.seen) != 2 || sc.parents.seen[0] != want[0] || sc.parents.seen[1] != want[1] {
		t.Errorf("traceparents at the server %q, want %q", sc.parents.seen, want)
	}
}

// TestWebhookOptionOnForeignMethod protects a request that is no delivery
// at all: it still gets its SERVER span, named "webhook", refused as
// malformed.
func TestWebhookOptionOnForeignMethod(t *testing.T) {
	tel := newTelemetry(t)
	h, _ := newHandler(t, func(context.Context, *webhook.Event) error { return nil }, otelscribe.WebhookOption(tel.options()...))
	rec := serveGet(h)
	if rec != http.StatusMethodNotAllowed {
		t.Fatalf("GET answered %d, want 405", rec)
	}
	spans := tel.spans.GetSpans()
	if len(spans) != 1 || spans[0].Name != "webhook" || spans[0].SpanKind != trace.SpanKindServer {
		t.Fatalf("spans %v, want one SERVER span named webhook", spans)
	}
	a := attrs(spans[0].Attributes)
	if a["scribe.webhook.outcome"].AsString() != "refused" || a["scribe.webhook.reason"].AsString() != "malformed" ||
		a["http.response.status_code"].AsInt64() != 405 {
		t.Errorf("attributes %v, want refused, malformed, 405", spans[0].Attributes)
	}
}

// serveGet sends h a GET and returns the status it answered.
func serveGet(h http.Handler) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/hook", nil))
	return w.Code
}
