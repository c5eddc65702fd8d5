package otelscribe

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/scribehq/scribe-go/webhook"
)

// WebhookOption traces and measures the deliveries a webhook handler
// receives: give it to webhook.NewHandler.
//
// Each request is a SERVER span named "webhook " and the event's type
// ("webhook transcript.created"; "webhook" alone when the request was
// refused before its event was read), with scribe.webhook.id,
// scribe.event.type, scribe.plugin_installation_uuid, the outcome
// (scribe.webhook.outcome: processed, duplicate, in_flight, refused,
// failed, permanent), its reason for a refused or failed delivery
// (scribe.webhook.reason: signature, timestamp, malformed, handler, panic,
// store) and http.response.status_code. The handler's function runs in the
// span's context, so the calls it makes with a client of ClientOption are
// the span's children. A trace context the request carries is the span's
// parent.
//
// Metrics: scribe.webhook.deliveries by event type, outcome and reason, and
// scribe.webhook.duration.
func WebhookOption(opts ...Option) webhook.HandlerOption {
	cfg := newConfig(opts)
	w := &receiver{tracer: cfg.tp.Tracer(ScopeName, version), prop: cfg.prop}
	m := cfg.mp.Meter(ScopeName, meterVersion)
	w.deliveries, _ = m.Int64Counter("scribe.webhook.deliveries", metric.WithUnit("{delivery}"),
		metric.WithDescription("Webhook deliveries received, by event type and outcome."))
	w.duration, _ = m.Float64Histogram("scribe.webhook.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of webhook deliveries, from the request to the answer."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	return webhook.WithDeliveryHook(w.hook)
}

type receiver struct {
	tracer     trace.Tracer
	prop       propagation.TextMapPropagator
	deliveries metric.Int64Counter
	duration   metric.Float64Histogram
}

var serverKind = trace.WithSpanKind(trace.SpanKindServer)

func (w *receiver) hook(ctx context.Context, r *http.Request) (context.Context, func(webhook.Delivery)) {
	ctx = w.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
	ctx, span := w.tracer.Start(ctx, "webhook", serverKind)
	start := time.Now()
	return ctx, func(d webhook.Delivery) {
		took := time.Since(start)
		attrs := []attribute.KeyValue{keyEventType.String(string(d.Type)), keyOutcome.String(string(d.Outcome))}
		if d.Reason != "" {
			attrs = append(attrs, keyReason.String(d.Reason))
		}
		if span.IsRecording() {
			if d.Type != "" {
				span.SetName("webhook " + string(d.Type))
			}
			span.SetAttributes(append(attrs, keyWebhookID.String(bounded(d.ID)),
				keyInstallationUUID.String(d.PluginInstallationUUID), attribute.Int("http.response.status_code", d.Status))...)
			switch d.Outcome {
			case webhook.OutcomeRefused, webhook.OutcomeFailed, webhook.OutcomePermanent:
				span.SetStatus(codes.Error, string(d.Outcome)+" "+d.Reason)
			}
		}
		span.End()
		set := metric.WithAttributes(attrs...)
		w.deliveries.Add(ctx, 1, set)
		w.duration.Record(ctx, took.Seconds(), set)
	}
}
