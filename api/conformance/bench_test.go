package conformance_test

import (
	"context"
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

// The client benchmarks compare the SDK (scribe.Client) with the client
// oapi-codegen generates from api/openapi.yaml (client.ClientWithResponses)
// on the same work, a GET of one transcript and of a 100-transcript page,
// over loopback: an httptest.Server on 127.0.0.1 writing the bytes and
// headers the reference server answered to the same requests (recorded
// once), so that a real connection, keep-alive and the HTTP/1.1 codec are
// included, as in a user's call. Only ratios within one run mean anything:
//
//	go test -run '^$' -bench 'ClientInterleaved' -benchmem -count 6 .
//
// BenchmarkClient's sub-benchmarks (op=<get|page100>/client=<sdk|generated>)
// are for benchstat across commits: benchstat -col /client sets the two
// clients side by side.

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
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		return nil, err
	}
	user, err := s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	if err != nil {
		return nil, err
	}
	p, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "Bench", Permissions: scribe.Permissions{User: "read", Transcript: "read"}})
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

// staticToken is a TokenSource of one fixed token.
type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

// caller is one of the clients under comparison: a call of one transcript
// and a call of one 100-item page.
type caller struct {
	name      string
	one, page func(ctx context.Context) error
}

// callers builds the SDK and the generated client over hc for base, in that
// order.
func callers(tb testing.TB, base string, hc *http.Client, id int64) []caller {
	sdk, err := scribe.NewClient(base, scribe.WithHTTPClient(hc), scribe.WithTokenSource(staticToken(benchToken)))
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
	return []caller{
		{"sdk",
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
			}},
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
	}
}

// loopback serves the recorded answers on 127.0.0.1 and returns the base URL
// and an HTTP client for it.
func loopback(tb testing.TB, r *recorded) (string, *http.Client) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		c := r.answer(req.URL.Path)
		for k, v := range c.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(c.body)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + basePath, srv.Client()
}

// ops are the two operations compared, and the call of each on a caller.
var ops = []struct {
	name string
	call func(caller) func(context.Context) error
}{
	{"get", func(c caller) func(context.Context) error { return c.one }},
	{"page100", func(c caller) func(context.Context) error { return c.page }},
}

// BenchmarkClient runs each client on each operation as a sub-benchmark of
// its own, for benchstat.
func BenchmarkClient(b *testing.B) {
	r, err := record()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	base, hc := loopback(b, r)
	for _, op := range ops {
		for _, c := range callers(b, base, hc, r.id) {
			call := op.call(c)
			b.Run("op="+op.name+"/client="+c.name, func(b *testing.B) {
				if err := call(ctx); err != nil { // warm: the connection
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

// TestBenchmarkClientsAgree protects the comparison: the clients must agree
// on what they decoded, or it compares different work. Each client's answer
// is checked by the calls themselves (ids, page length); this test runs them
// once.
func TestBenchmarkClientsAgree(t *testing.T) {
	r, err := record()
	if err != nil {
		t.Fatal(err)
	}
	base, hc := loopback(t, r)
	for _, c := range callers(t, base, hc, r.id) {
		if err := c.one(context.Background()); err != nil {
			t.Errorf("%s one transcript: %v", c.name, err)
		}
		if err := c.page(context.Background()); err != nil {
			t.Errorf("%s page: %v", c.name, err)
		}
	}
}

// BenchmarkClientInterleaved runs the two clients on the same work in one
// loop, one call of each per iteration (alternating which goes first),
// timing every call. Sequential sub-benchmarks on a shared machine see
// different stretches of its load, and their ratio swings by ±30% between
// runs; here both share every stretch alike. It reports, per operation
// (op=get|page100):
//
//   - sdk-ns, generated-ns: the mean wall time of one call of each;
//   - sdk/generated: the ratio of those means (what a user pays, garbage
//     collection and load spikes included);
//   - sdk/generated-p50: the ratio of the median calls (the client's own
//     path, without the calls a preemption or a collection hit).
//
// ns/op is the time of the two calls together and means nothing alone.
func BenchmarkClientInterleaved(b *testing.B) {
	r, err := record()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	base, hc := loopback(b, r)
	cs := callers(b, base, hc, r.id)
	for _, op := range ops {
		b.Run("op="+op.name, func(b *testing.B) {
			calls := []func(context.Context) error{op.call(cs[0]), op.call(cs[1])}
			for _, call := range calls { // warm: the connection
				if err := call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			var times [2][]time.Duration
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
			var mean, p50 [2]float64
			for j, ts := range times {
				var sum time.Duration
				for _, t := range ts {
					sum += t
				}
				mean[j] = float64(sum) / float64(len(ts))
				slices.Sort(ts)
				p50[j] = float64(ts[len(ts)/2])
			}
			b.ReportMetric(mean[0], cs[0].name+"-ns")
			b.ReportMetric(mean[1], cs[1].name+"-ns")
			b.ReportMetric(mean[0]/mean[1], "sdk/generated")
			b.ReportMetric(p50[0]/p50[1], "sdk/generated-p50")
		})
	}
}
