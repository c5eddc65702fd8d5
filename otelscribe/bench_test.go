package otelscribe_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/otelscribe"
)

// discard is a span exporter that drops what it is given: the cost of
// tracing measured is the SDK's and ours, not an exporter's.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// variant is one way of building the benchmark's client.
type variant struct {
	name string
	opts func(b *testing.B) []scribe.Option
}

func sdkTracer(b *testing.B, batch bool) *sdktrace.TracerProvider {
	export := sdktrace.WithSyncer(discard{})
	if batch {
		export = sdktrace.WithBatcher(discard{}) // what a program exporting spans uses
	}
	tp := sdktrace.NewTracerProvider(export, sdktrace.WithSampler(sdktrace.AlwaysSample()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp
}

// variants: the plain client; ClientOption on no-op providers; on a real
// SDK tracer provider sampling everything into a discarding exporter
// through the batch span processor (as a user exports) and through the
// synchronous one, with the global no-op meter; and the batched tracer with
// a real SDK meter provider.
var variants = []variant{
	{"plain", func(*testing.B) []scribe.Option { return nil }},
	{"noop", func(*testing.B) []scribe.Option {
		return []scribe.Option{otelscribe.ClientOption(otelscribe.WithTracerProvider(tracenoop.NewTracerProvider()),
			otelscribe.WithMeterProvider(noop.NewMeterProvider()))}
	}},
	{"sdk-batch", func(b *testing.B) []scribe.Option {
		return []scribe.Option{otelscribe.ClientOption(otelscribe.WithTracerProvider(sdkTracer(b, true)),
			otelscribe.WithMeterProvider(noop.NewMeterProvider()))}
	}},
	{"sdk-sync", func(b *testing.B) []scribe.Option {
		return []scribe.Option{otelscribe.ClientOption(otelscribe.WithTracerProvider(sdkTracer(b, false)),
			otelscribe.WithMeterProvider(noop.NewMeterProvider()))}
	}},
	{"sdk-batch+meter", func(b *testing.B) []scribe.Option {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
		return []scribe.Option{otelscribe.ClientOption(otelscribe.WithTracerProvider(sdkTracer(b, true)),
			otelscribe.WithMeterProvider(mp))}
	}},
}

// getters returns, for each variant, a GetTranscript against one loopback
// scribetest server, warmed (a connection open, a token minted).
func getters(b *testing.B) []func(context.Context) error {
	sc := newScene(b)
	calls := make([]func(context.Context) error, len(variants))
	for i, v := range variants {
		c, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID, v.opts(b)...)
		must(b, err)
		calls[i] = func(ctx context.Context) error {
			_, err := c.GetTranscript(ctx, sc.tr.ID)
			return err
		}
		must(b, calls[i](context.Background()))
	}
	return calls
}

// BenchmarkClientGet is the cost of each variant alone, with its
// allocations: one GetTranscript over loopback per op.
func BenchmarkClientGet(b *testing.B) {
	calls := getters(b)
	ctx := context.Background()
	for i, v := range variants {
		b.Run("v="+v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := calls[i](ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClientInterleaved is the overhead figure (docs/performance.md):
// every op calls each variant once, in a rotating order, so that a busy
// machine's load falls on all of them alike, and it reports each variant's
// mean and median time against the plain client's: "sdk-batch/plain" is
// the traced client's ratio (target 1.15), "noop/plain" the no-op
// providers' (1.03).
func BenchmarkClientInterleaved(b *testing.B) {
	calls := getters(b)
	ctx := context.Background()
	times := make([][]time.Duration, len(calls))
	i := 0
	for b.Loop() {
		for k := range calls {
			j := (i + k) % len(calls)
			t0 := time.Now()
			err := calls[j](ctx)
			times[j] = append(times[j], time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
		}
		i++
	}
	mean := make([]float64, len(calls))
	p50 := make([]float64, len(calls))
	for j, ts := range times {
		var sum time.Duration
		for _, t := range ts {
			sum += t
		}
		mean[j] = float64(sum) / float64(len(ts))
		slices.Sort(ts)
		p50[j] = float64(ts[len(ts)/2])
	}
	for j, v := range variants[1:] {
		b.ReportMetric(mean[j+1]/mean[0], v.name+"/plain")
		b.ReportMetric(p50[j+1]/p50[0], v.name+"/plain-p50")
	}
	b.ReportMetric(mean[0], "plain-ns")
}
