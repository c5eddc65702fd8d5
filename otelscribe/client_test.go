package otelscribe_test

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/otelscribe"
	"github.com/scribehq/scribe-go/scribetest"
)

// telemetry is a tracer provider recording into memory and a meter
// provider read by hand.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(tel.spans), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() { _ = tel.tp.Shutdown(context.Background()); _ = tel.mp.Shutdown(context.Background()) })
	return tel
}

func (tel *telemetry) options() []otelscribe.Option {
	return []otelscribe.Option{otelscribe.WithTracerProvider(tel.tp), otelscribe.WithMeterProvider(tel.mp)}
}

// metric returns the metric of that name, or fails the test.
func (tel *telemetry) metric(t *testing.T, name string) metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// traceparents records the traceparent header of each request that reaches
// the server.
type traceparents struct {
	mu   sync.Mutex
	seen []string
}

func (tp *traceparents) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tp.mu.Lock()
		tp.seen = append(tp.seen, r.Header.Get("traceparent"))
		tp.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// scene is a reference server with one installation and its transcript,
// whose requests' traceparent headers are recorded.
type scene struct {
	srv     *scribetest.Server
	key     scribetest.SecretKey
	inst    scribe.PluginInstallation
	tr      scribe.Transcript
	parents *traceparents
}

func newScene(t testing.TB) *scene {
	t.Helper()
	srv, err := scribetest.NewUnstartedServer(scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	must(t, err)
	sc := &scene{srv: srv, parents: &traceparents{}}
	must(t, srv.StartWith(sc.parents.wrap(srv.Handler())))
	t.Cleanup(srv.Close)
	dev, err := srv.CreateDeveloper(scribe.User{FirstName: "Ada"})
	must(t, err)
	plugin, err := srv.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "Tracing",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	must(t, err)
	sc.key, err = srv.CreateSecretKey(plugin.ID, "otel")
	must(t, err)
	sc.inst, sc.tr, err = srv.CreateScene(plugin.ID, false)
	must(t, err)
	return sc
}

// client returns a client of sc's installation that records to tel.
func (sc *scene) client(t *testing.T, tel *telemetry) *scribe.Client {
	t.Helper()
	c, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID, otelscribe.ClientOption(tel.options()...))
	must(t, err)
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// TestRetriedGetTranscript is issue 52's "done when": two injected 503s then
// a 200 on GetTranscript give one scribe.GetTranscript span with three
// "GET /transcripts/{id}" children, with resend counts absent, 1 and 2,
// statuses 503, 503 and 200, the same trace id at the server on every
// attempt, two retry events, and three points of
// http.client.request.duration. No span name or attribute holds the id.
func TestRetriedGetTranscript(t *testing.T) {
	sc := newScene(t)
	tel := newTelemetry(t)
	c := sc.client(t, tel)
	must(t, sc.srv.FailNext(2, http.StatusServiceUnavailable))
	if _, err := c.GetTranscript(context.Background(), sc.tr.ID); err != nil {
		t.Fatal(err)
	}

	spans := tel.spans.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4: %v", len(spans), spans)
	}
	op := spans[3] // ended last
	if op.Name != "scribe.GetTranscript" || op.SpanKind != trace.SpanKindInternal {
		t.Fatalf("last span %q (%v), want the INTERNAL scribe.GetTranscript", op.Name, op.SpanKind)
	}
	id := strconv.FormatInt(sc.tr.ID, 10)
	for i, s := range spans[:3] {
		a := attrs(s.Attributes)
		if s.Name != "GET /transcripts/{id}" || s.SpanKind != trace.SpanKindClient {
			t.Errorf("attempt %d: span %q (%v), want the CLIENT GET /transcripts/{id}", i+1, s.Name, s.SpanKind)
		}
		if s.Parent.SpanID() != op.SpanContext.SpanID() || s.SpanContext.TraceID() != op.SpanContext.TraceID() {
			t.Errorf("attempt %d is not a child of the operation's span", i+1)
		}
		rc, ok := a["http.request.resend_count"]
		switch {
		case i == 0 && ok:
			t.Errorf("first attempt has http.request.resend_count %v", rc.String())
		case i > 0 && rc.AsInt64() != int64(i):
			t.Errorf("attempt %d: http.request.resend_count %v, want %d", i+1, rc.String(), i)
		}
		wantStatus := []int64{503, 503, 200}[i]
		if got := a["http.response.status_code"].AsInt64(); got != wantStatus {
			t.Errorf("attempt %d: status %d, want %d", i+1, got, wantStatus)
		}
		if et, ok := a["error.type"]; (wantStatus == 503) != ok || (ok && et.AsString() != "503") {
			t.Errorf("attempt %d: error.type %q (present %v)", i+1, et.String(), ok)
		}
		if a["url.template"].AsString() != "/transcripts/{id}" || a["http.request.method"].AsString() != "GET" ||
			a["server.address"].AsString() != "127.0.0.1" || a["server.port"].AsInt64() == 0 || a["scribe.request_id"].AsString() == "" {
			t.Errorf("attempt %d: attributes %v", i+1, s.Attributes)
		}
		for _, kv := range s.Attributes {
			if kv.Value.Type() == attribute.STRING && kv.Value.AsString() == id || kv.Value.AsString() == "/transcripts/"+id {
				t.Errorf("attempt %d: attribute %s holds the transcript's id", i+1, kv.Key)
			}
		}
	}
	var retries int
	for _, e := range op.Events {
		if e.Name == "scribe.retry" {
			retries++
			if a := attrs(e.Attributes); a["scribe.retry.reason"].AsString() != "status" || a["http.response.status_code"].AsInt64() != 503 {
				t.Errorf("retry event %v, want reason status after a 503", e.Attributes)
			}
		}
	}
	if retries != 2 {
		t.Errorf("%d retry events, want 2", retries)
	}

	sc.parents.mu.Lock()
	seen := append([]string(nil), sc.parents.seen...)
	sc.parents.mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("the server saw %d requests, want 3", len(seen))
	}
	for i, tp := range seen {
		want := "00-" + op.SpanContext.TraceID().String() + "-" + spans[i].SpanContext.SpanID().String() + "-01"
		if tp != want {
			t.Errorf("request %d: traceparent %q, want %q", i+1, tp, want)
		}
	}

	hist := tel.metric(t, "http.client.request.duration").(metricdata.Histogram[float64])
	var points uint64
	byStatus := map[int64]uint64{}
	for _, dp := range hist.DataPoints {
		points += dp.Count
		v, _ := dp.Attributes.Value("http.response.status_code")
		byStatus[v.AsInt64()] += dp.Count
		if tmpl, _ := dp.Attributes.Value("url.template"); tmpl.AsString() != "/transcripts/{id}" {
			t.Errorf("duration point with url.template %q", tmpl.AsString())
		}
	}
	if points != 3 || byStatus[503] != 2 || byStatus[200] != 1 {
		t.Errorf("http.client.request.duration: %d points %v, want 3 (two 503, one 200)", points, byStatus)
	}
	ops := tel.metric(t, "scribe.client.operation.duration").(metricdata.Histogram[float64])
	if len(ops.DataPoints) != 1 || ops.DataPoints[0].Count != 1 {
		t.Errorf("scribe.client.operation.duration: %+v, want one point", ops.DataPoints)
	}
	retried := tel.metric(t, "scribe.client.retries").(metricdata.Sum[int64])
	if len(retried.DataPoints) != 1 || retried.DataPoints[0].Value != 2 {
		t.Errorf("scribe.client.retries: %+v, want 2 for reason status", retried.DataPoints)
	} else if r, _ := retried.DataPoints[0].Attributes.Value("scribe.retry.reason"); r.AsString() != "status" {
		t.Errorf("scribe.client.retries reason %q, want status", r.AsString())
	}
	mints := tel.metric(t, "scribe.auth.token.mints").(metricdata.Sum[int64])
	if len(mints.DataPoints) != 1 || mints.DataPoints[0].Value != 1 {
		t.Errorf("scribe.auth.token.mints: %+v, want 1: one token for the three attempts", mints.DataPoints)
	}
}

// TestRateLimitedRetryAfter protects the record of a 429: the retry event
// says retry_after and how long the client waited, as the service asked.
func TestRateLimitedRetryAfter(t *testing.T) {
	sc := newScene(t)
	tel := newTelemetry(t)
	c := sc.client(t, tel)
	must(t, sc.srv.InjectFault(scribetest.Fault{Status: http.StatusTooManyRequests, RetryAfter: time.Second}))
	if _, err := c.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.GetSpans()
	if len(spans) != 3 || spans[2].Name != "scribe.GetMe" {
		t.Fatalf("spans %v, want two attempts and scribe.GetMe", spans)
	}
	if got := attrs(spans[0].Attributes)["http.response.status_code"].AsInt64(); got != 429 {
		t.Errorf("first attempt status %d, want 429", got)
	}
	if len(spans[2].Events) != 1 {
		t.Fatalf("operation events %v, want one retry", spans[2].Events)
	}
	a := attrs(spans[2].Events[0].Attributes)
	if a["scribe.retry.reason"].AsString() != "retry_after" || a["scribe.retry.wait"].AsFloat64() != 1 {
		t.Errorf("retry event %v, want reason retry_after and a wait of 1 s", spans[2].Events[0].Attributes)
	}
	retried := tel.metric(t, "scribe.client.retries").(metricdata.Sum[int64])
	if r, _ := retried.DataPoints[0].Attributes.Value("scribe.retry.reason"); len(retried.DataPoints) != 1 || r.AsString() != "retry_after" {
		t.Errorf("scribe.client.retries %+v, want one retry_after", retried.DataPoints)
	}
}

// TestPostCarriesIdempotencyKey protects the POST attributes: each attempt
// of a POST names its Idempotency-Key (the same on both), and a call's
// span is a child of the caller's span.
func TestPostCarriesIdempotencyKey(t *testing.T) {
	sc := newScene(t)
	tel := newTelemetry(t)
	dev, err := sc.srv.CreateDeveloper(scribe.User{FirstName: "Grace"})
	must(t, err)
	c, err := sc.srv.DeveloperClient(dev.Key, otelscribe.ClientOption(tel.options()...))
	must(t, err)
	plugin, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "Traced"})
	must(t, err)
	must(t, sc.srv.FailNext(1, http.StatusBadGateway))
	ctx, parent := tel.tp.Tracer("test").Start(context.Background(), "caller")
	_, err = c.CreatePluginSecretKey(ctx, plugin.ID, nil, scribe.WithIdempotencyKey("key-for-the-trace"))
	parent.End()
	must(t, err)
	var attempts, ops int
	for _, s := range tel.spans.GetSpans() {
		switch s.Name {
		case "POST /plugins/{id}/secret_keys":
			attempts++
			if k := attrs(s.Attributes)["scribe.idempotency_key"].AsString(); k != "key-for-the-trace" {
				t.Errorf("attempt's scribe.idempotency_key %q", k)
			}
		case "scribe.CreatePluginSecretKey":
			ops++
			if s.Parent.SpanID() != parent.SpanContext().SpanID() {
				t.Error("the operation's span is not a child of the caller's")
			}
		}
	}
	if attempts != 2 || ops != 1 {
		t.Errorf("%d attempt spans and %d operation spans, want 2 and 1", attempts, ops)
	}
}
