package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/api/conformance/client"
	"github.com/scribehq/scribe-go/scribetest"
)

// The client benchmarks compare three ways to call the service on the same
// work, the SDK (scribe.Client), the client oapi-codegen generates from
// api/openapi.yaml (client.ClientWithResponses) and a bare net/http +
// encoding/json call decoding into the SDK's types (the floor), for a GET of
// one transcript and of a 100-transcript page, over two transports:
//
//   - memory: an http.RoundTripper that answers every request with bytes
//     built once, in the calling goroutine (no goroutine, no copy of the
//     body), so what is measured is the client's own work;
//   - loopback: an httptest.Server on 127.0.0.1 writing the same bytes, so a
//     real connection, keep-alive and the HTTP/1.1 codec are included.
//
// The bytes are what the reference server answered to the same requests
// (recorded once), headers included. Sub-benchmarks are named
// transport=<memory|loopback>/client=<sdk|generated|bare|sdk-untimed>, so
// that `benchstat -col /client` sets the clients side by side (sdk-untimed
// is the SDK without its per-attempt timeout, which the others lack);
// scripts/bench prints sdk/generated and sdk/bare from them. Only ratios
// within one run mean anything.

// benchToken is what every client sends as its bearer token; the canned
// answers do not check it.
const benchToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3NjQwMDAwMDAsImV4cCI6MTc2NDAwMzYwMCwicGx1Z2luX2luc3RhbGxhdGlvbl91dWlkIjoiMGI2ZDNmOWUtMmM0YS00ZThiLTlhMWQtNWY3YzNlMmIxYTkwIn0.c2lnbmF0dXJl"

// canned is one recorded answer.
type canned struct {
	header http.Header
	body   []byte
}

// recorded holds the reference server's answers to GET /transcripts/{id}
// and GET /transcripts?limit=100, and the id of the transcript.
type recorded struct {
	one, page canned
	id        int64
}

var record = sync.OnceValues(func() (*recorded, error) {
	s, err := scribetest.NewServer(scribetest.WithBasePath(basePath))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	dev, err := s.CreateDeveloper(scribetest.UserParams{FirstName: "Ada"})
	if err != nil {
		return nil, err
	}
	user, err := s.CreateUser(scribetest.UserParams{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	if err != nil {
		return nil, err
	}
	p, err := s.CreatePlugin(dev.User.ID, scribetest.PluginParams{Name: "Bench", Permissions: scribe.Permissions{User: "read", Transcript: "read"}})
	if err != nil {
		return nil, err
	}
	key, err := s.CreateSecretKey(p.ID, "bench")
	if err != nil {
		return nil, err
	}
	inst, err := s.Install(p.ID, user.ID)
	if err != nil {
		return nil, err
	}
	var first int64
	for i := range 100 {
		tr, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{
			Headline: fmt.Sprintf("Weekly sync %d", i),
			Text:     strings.Repeat("Ada opened the meeting and Grace took notes. ", 8),
			Type:     "meeting",
			Metadata: map[string]any{"crm_contact": fmt.Sprintf("acme-%d", i), "language": "en"},
			Job:      scribe.TranscriptJob{Lines: 12},
			Audio:    scribe.TranscriptAudio{LengthInSeconds: 310},
		})
		if err != nil {
			return nil, err
		}
		if first == 0 {
			first = tr.ID
		}
	}
	now := time.Now()
	jwtTok, err := mintFor(key.Key.Reveal(), inst.UUID, now)
	if err != nil {
		return nil, err
	}
	get := func(path string) (canned, error) {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		req.Header.Set("Authorization", "Bearer "+jwtTok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return canned{}, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			return canned{}, fmt.Errorf("recording GET %s: %d %s %v", path, resp.StatusCode, body, err)
		}
		h := http.Header{}
		for _, k := range []string{"Content-Type", "Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if v := resp.Header.Get(k); v != "" {
				h.Set(k, v)
			}
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		return canned{h, body}, nil
	}
	r := &recorded{id: first}
	if r.one, err = get("/transcripts/" + strconv.FormatInt(first, 10)); err != nil {
		return nil, err
	}
	if r.page, err = get("/transcripts?limit=100"); err != nil {
		return nil, err
	}
	return r, nil
})

// answer picks the recorded answer for a request path.
func (r *recorded) answer(path string) *canned {
	if strings.HasSuffix(path, "/transcripts") {
		return &r.page
	}
	return &r.one
}

// memoryTransport answers from the recording in the caller's goroutine.
type memoryTransport struct{ r *recorded }

func (m memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	c := m.r.answer(req.URL.Path)
	h := make(http.Header, len(c.header))
	for k, v := range c.header {
		h[k] = v
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)),
		Request: req,
	}, nil
}

// staticToken is a TokenSource of one fixed token.
type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

// callers builds the clients over hc for base and returns, for each,
// a call of one transcript and a call of one 100-item page.
type caller struct {
	name      string
	one, page func(ctx context.Context) error
}

func callers(tb testing.TB, base string, hc *http.Client, id int64) []caller {
	sdk, err := scribe.NewClient(base, scribe.WithHTTPClient(hc), scribe.WithTokenSource(staticToken(benchToken)))
	if err != nil {
		tb.Fatal(err)
	}
	// The same SDK without its per-attempt timeout, which neither the
	// generated client nor the bare call has: it shows what that bound
	// costs a call (docs/performance.md).
	untimed, err := scribe.NewClient(base, scribe.WithHTTPClient(hc), scribe.WithTokenSource(staticToken(benchToken)),
		scribe.WithRequestTimeout(0))
	if err != nil {
		tb.Fatal(err)
	}
	gen, err := client.NewClientWithResponses(base, client.WithHTTPClient(hc),
		client.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+benchToken)
			return nil
		}))
	if err != nil {
		tb.Fatal(err)
	}
	limit := 100
	pageParams := &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 100}}
	sdkCaller := func(name string, sdk *scribe.Client) caller {
		return caller{name,
			func(ctx context.Context) error {
				t, err := sdk.GetTranscript(ctx, id)
				if err == nil && t.ID != id {
					err = fmt.Errorf("got transcript %d", t.ID)
				}
				return err
			},
			func(ctx context.Context) error {
				p, err := sdk.ListTranscripts(ctx, pageParams).Next()
				if err == nil && len(p.Data) != 100 {
					err = fmt.Errorf("page of %d", len(p.Data))
				}
				return err
			}}
	}
	return []caller{
		sdkCaller("sdk", sdk),
		{"generated",
			func(ctx context.Context) error {
				r, err := gen.GetTranscriptWithResponse(ctx, id)
				if err == nil && (r.JSON200 == nil || r.JSON200.Id != id) {
					err = fmt.Errorf("status %d", r.StatusCode())
				}
				return err
			},
			func(ctx context.Context) error {
				r, err := gen.ListTranscriptsWithResponse(ctx, &client.ListTranscriptsParams{Limit: &limit})
				if err == nil && (r.JSON200 == nil || len(r.JSON200.Data) != 100) {
					err = fmt.Errorf("status %d", r.StatusCode())
				}
				return err
			}},
		{"bare",
			func(ctx context.Context) error {
				var t scribe.Transcript
				if err := bareGet(ctx, hc, base+"/transcripts/"+strconv.FormatInt(id, 10), &t); err != nil {
					return err
				}
				if t.ID != id {
					return fmt.Errorf("got transcript %d", t.ID)
				}
				return nil
			},
			func(ctx context.Context) error {
				var p struct {
					HasMore    bool                `json:"has_more"`
					TotalCount int                 `json:"total_count"`
					Data       []scribe.Transcript `json:"data"`
				}
				if err := bareGet(ctx, hc, base+"/transcripts?limit=100", &p); err != nil {
					return err
				}
				if len(p.Data) != 100 {
					return fmt.Errorf("page of %d", len(p.Data))
				}
				return nil
			}},
		sdkCaller("sdk-untimed", untimed),
	}
}

// bareGet is what a user without any client library writes.
func bareGet(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return json.Unmarshal(body, v)
}

// transports returns the memory and loopback transports with the base URL
// each is reached at.
func transports(tb testing.TB, r *recorded) []struct {
	name, base string
	hc         *http.Client
} {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		c := r.answer(req.URL.Path)
		for k, v := range c.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(c.body)
	}))
	tb.Cleanup(srv.Close)
	return []struct {
		name, base string
		hc         *http.Client
	}{
		{"memory", "https://api.scribe.example" + basePath, &http.Client{Transport: memoryTransport{r}}},
		{"loopback", srv.URL + basePath, srv.Client()},
	}
}

func benchmarkClients(b *testing.B, page bool) {
	r, err := record()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, tr := range transports(b, r) {
		for _, c := range callers(b, tr.base, tr.hc, r.id) {
			call := c.one
			if page {
				call = c.page
			}
			b.Run("transport="+tr.name+"/client="+c.name, func(b *testing.B) {
				if err := call(ctx); err != nil { // warm: connection, caches
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := call(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkClientGetTranscript: GET /transcripts/{id}, one transcript.
func BenchmarkClientGetTranscript(b *testing.B) { benchmarkClients(b, false) }

// BenchmarkClientListTranscripts100: GET /transcripts?limit=100, one page of
// 100 transcripts.
func BenchmarkClientListTranscripts100(b *testing.B) { benchmarkClients(b, true) }

// The clients must agree on what they decoded, or the comparison
// compares different work: each client's answer, through each transport, is
// checked by the calls themselves (ids, page length); this test runs them
// once.
func TestBenchmarkClientsAgree(t *testing.T) {
	r, err := record()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range transports(t, r) {
		for _, c := range callers(t, tr.base, tr.hc, r.id) {
			if err := c.one(context.Background()); err != nil {
				t.Errorf("%s/%s one transcript: %v", tr.name, c.name, err)
			}
			if err := c.page(context.Background()); err != nil {
				t.Errorf("%s/%s page: %v", tr.name, c.name, err)
			}
		}
	}
}

// BenchmarkClientInterleaved runs the clients on the same work in one
// loop, one call of each per iteration (in an order that rotates every
// iteration), timing every call. Sequential sub-benchmarks on a shared
// machine see different stretches of its load, so that ClientGetTranscript's
// ratios swing by ±30% between runs; here they share every stretch
// alike. It reports, per sub-benchmark (op=get|page100,
// transport=memory|loopback):
//
//   - sdk-ns, generated-ns, bare-ns, sdk-untimed-ns: the mean wall time of
//     one call of each;
//   - sdk/generated, sdk/bare: the ratios of those means (what a user pays,
//     garbage collection and load spikes included);
//   - sdk/generated-p50, sdk/bare-p50: the ratios of the median calls (the
//     client's own path, without the calls a preemption or a collection hit);
//   - sdk-untimed/generated: sdk/generated for the SDK without its
//     per-attempt timeout (WithRequestTimeout(0)).
//
// ns/op is the time of the four calls together and means nothing alone.
// scripts/bench prints the medians of these ratios over its rounds.
func BenchmarkClientInterleaved(b *testing.B) {
	r, err := record()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, op := range []string{"get", "page100"} {
		for _, tr := range transports(b, r) {
			cs := callers(b, tr.base, tr.hc, r.id)
			calls := make([]func(context.Context) error, len(cs))
			for i, c := range cs {
				calls[i] = c.one
				if op == "page100" {
					calls[i] = c.page
				}
			}
			b.Run("op="+op+"/transport="+tr.name, func(b *testing.B) {
				for _, call := range calls { // warm: connections, caches
					if err := call(ctx); err != nil {
						b.Fatal(err)
					}
				}
				times := make([][]time.Duration, len(calls))
				b.ReportAllocs()
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
				for j, c := range cs {
					b.ReportMetric(mean[j], c.name+"-ns")
				}
				// cs is sdk, generated, bare, sdk-untimed (callers' order).
				b.ReportMetric(mean[0]/mean[1], "sdk/generated")
				b.ReportMetric(mean[3]/mean[1], "sdk-untimed/generated")
				b.ReportMetric(mean[0]/mean[2], "sdk/bare")
				b.ReportMetric(p50[0]/p50[1], "sdk/generated-p50")
				b.ReportMetric(p50[0]/p50[2], "sdk/bare-p50")
			})
		}
	}
}
