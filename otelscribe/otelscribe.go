// Package otelscribe traces and measures the scribe SDK with OpenTelemetry:
// the calls of a scribe.Client (ClientOption) and the deliveries of a
// webhook handler (WebhookOption). It is a module of its own, so that the
// SDK's users who do not use OpenTelemetry do not download it.
//
// A client call is one INTERNAL span named after the method
// ("scribe.GetTranscript") with one CLIENT span per attempt as its children,
// named "{method} {url.template}" ("GET /transcripts/{id}") with the OTel
// HTTP client attributes; the W3C traceparent goes with every attempt. A
// delivery is one SERVER span, "webhook {event type}", whose context the
// handler's function runs in. Metrics: http.client.request.duration,
// scribe.client.operation.duration, scribe.client.retries,
// scribe.auth.token.mints, scribe.webhook.deliveries and
// scribe.webhook.duration, labelled with templates, never ids.
// docs/observability.md lists every name and attribute.
//
// The providers default to the global ones (otel.GetTracerProvider,
// otel.GetMeterProvider), so a program that sets up OpenTelemetry once gets
// the SDK's telemetry by adding one option.
package otelscribe

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	scribe "github.com/scribehq/scribe-go"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/scribehq/scribe-go/otelscribe"

// An Option configures ClientOption or WebhookOption. The zero Option does
// nothing.
type Option struct {
	apply func(*config)
}

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider makes spans with tp instead of the global provider; a
// nil tp keeps the global one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return Option{func(c *config) {
		if tp != nil {
			c.tp = tp
		}
	}}
}

// WithMeterProvider records metrics with mp instead of the global provider;
// a nil mp keeps the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return Option{func(c *config) {
		if mp != nil {
			c.mp = mp
		}
	}}
}

// WithPropagator sets how the trace context is sent with each attempt of a
// client, and read from each delivery a handler receives. The default is
// the W3C trace context (traceparent and tracestate) whatever the global
// propagator is, since the service reads that; a nil p keeps it.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return Option{func(c *config) {
		if p != nil {
			c.prop = p
		}
	}}
}

func newConfig(opts []Option) config {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider(), prop: propagation.TraceContext{}}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&c)
		}
	}
	return c
}

// Attribute keys of this package, beside the semantic conventions' own.
const (
	keyOperation        = attribute.Key("scribe.operation")
	keyRequestID        = attribute.Key("scribe.request_id")
	keyIdempotencyKey   = attribute.Key("scribe.idempotency_key")
	keyRetryReason      = attribute.Key("scribe.retry.reason")
	keyRetryWait        = attribute.Key("scribe.retry.wait")
	keyWebhookID        = attribute.Key("scribe.webhook.id")
	keyEventType        = attribute.Key("scribe.event.type")
	keyInstallationUUID = attribute.Key("scribe.plugin_installation_uuid")
	keyOutcome          = attribute.Key("scribe.webhook.outcome")
	keyReason           = attribute.Key("scribe.webhook.reason")
)

// durationBuckets are the semantic conventions' advised boundaries for
// HTTP durations, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// version is the instrumentation scope's version: the SDK's, since the two
// are released together.
var version = trace.WithInstrumentationVersion(scribe.Version)

var meterVersion = metric.WithInstrumentationVersion(scribe.Version)
