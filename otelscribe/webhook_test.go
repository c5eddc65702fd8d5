package otelscribe_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/otelscribe"
	"github.com/scribehq/scribe-go/webhook"
)

// TestWebhookDeliveries is issue 52's "done when" for the handler: a
// delivery handled, then delivered again, then a forged one, give SERVER
// spans with outcomes processed, duplicate and refused (signature), and
// scribe.webhook.deliveries counts each. The function runs in the span's
// context: the client call it makes is the span's child.
func TestWebhookDeliveries(t *testing.T) {
	sc := newScene(t)
	tel := newTelemetry(t)
	c := sc.client(t, tel)
	h, secret := newHandler(t, func(ctx context.Context, e *webhook.Event) error {
		_, err := c.GetTranscript(ctx, sc.tr.ID)
		return err
	}, otelscribe.WebhookOption(tel.options()...))

	body := []byte(`{"id":"msg_1","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,` +
		`"plugin_installation_uuid":"` + sc.inst.UUID + `","data":{"id":` + strconv.FormatInt(sc.tr.ID, 10) + `}}`)
	send := func(sig string) int {
		r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
		maps.Copy(r.Header, webhook.SignHeaders(secret, "msg_1", time.Now(), body))
		if sig != "" {
			r.Header.Set(webhook.HeaderSignature, sig)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i, want := range []int{200, 200, 401} {
		sig := ""
		if i == 2 {
			sig = "v1," + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
		}
		if got := send(sig); got != want {
			t.Fatalf("delivery %d answered %d, want %d", i+1, got, want)
		}
	}

	type outcome struct{ name, outcome, reason string }
	var got []outcome
	var server trace.SpanContext
	for _, s := range tel.spans.GetSpans() {
		if s.SpanKind != trace.SpanKindServer {
			continue
		}
		a := attrs(s.Attributes)
		got = append(got, outcome{s.Name, a["scribe.webhook.outcome"].AsString(), a["scribe.webhook.reason"].AsString()})
		switch a["scribe.webhook.outcome"].AsString() {
		case "processed":
			server = s.SpanContext
			if a["scribe.webhook.id"].AsString() != "msg_1" || a["scribe.event.type"].AsString() != "transcript.created" ||
				a["scribe.plugin_installation_uuid"].AsString() != sc.inst.UUID {
				t.Errorf("processed delivery's attributes %v", s.Attributes)
			}
		case "refused":
			if s.Status.Code != codes.Error {
				t.Errorf("refused delivery's status %v, want Error", s.Status)
			}
		}
	}
	want := []outcome{{"webhook transcript.created", "processed", ""}, {"webhook transcript.created", "duplicate", ""}, {"webhook", "refused", "signature"}}
	if len(got) != len(want) {
		t.Fatalf("server spans %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("server span %d = %v, want %v", i, got[i], want[i])
		}
	}
	var children int
	for _, s := range tel.spans.GetSpans() {
		if s.Name == "scribe.GetTranscript" {
			children++
			if s.Parent.SpanID() != server.SpanID() {
				t.Error("the function's GetTranscript is not a child of the delivery's span")
			}
		}
	}
	if children != 1 {
		t.Errorf("%d GetTranscript spans, want 1 (the duplicate does not run the function)", children)
	}

	counts := map[string]int64{}
	for _, dp := range tel.metric(t, "scribe.webhook.deliveries").(metricdata.Sum[int64]).DataPoints {
		o, _ := dp.Attributes.Value("scribe.webhook.outcome")
		counts[o.AsString()] += dp.Value
	}
	if counts["processed"] != 1 || counts["duplicate"] != 1 || counts["refused"] != 1 {
		t.Errorf("scribe.webhook.deliveries by outcome %v, want one each of processed, duplicate, refused", counts)
	}
	var points uint64
	for _, dp := range tel.metric(t, "scribe.webhook.duration").(metricdata.Histogram[float64]).DataPoints {
		points += dp.Count
	}
	if points != 3 {
		t.Errorf("scribe.webhook.duration has %d points, want 3", points)
	}
	for _, s := range tel.spans.GetSpans() {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "whsec_") || strings.HasPrefix(kv.Value.String(), "eyJ") {
				t.Errorf("span %s attribute %s holds a secret", s.Name, kv.Key)
			}
		}
	}
}

// newHandler returns a webhook handler that runs fn, with logging off and
// opts, and the secret it verifies deliveries with.
func newHandler(t *testing.T, fn func(context.Context, *webhook.Event) error, opts ...webhook.HandlerOption) (http.Handler, auth.WebhookSecret) {
	t.Helper()
	secret, err := auth.ParseWebhookSecret("whsec_" + base64.StdEncoding.EncodeToString([]byte("a signing secret of 32 bytes....")))
	must(t, err)
	v, err := webhook.NewVerifier(secret)
	must(t, err)
	h, err := webhook.NewHandler(v, fn, append([]webhook.HandlerOption{webhook.WithLogger(nil)}, opts...)...)
	must(t, err)
	return h, secret
}
