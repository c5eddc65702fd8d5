package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go"
)

// The client benchmarks compare the SDK with a bare net/http +
// encoding/json client doing the same work (one GET, status check, read,
// decode), through the same transport and the same answer bytes, in one run:
//
//   - InMemory: a RoundTripper that answers from memory on the calling
//     goroutine (no goroutine per request, no network), so the ratio shows
//     the SDK's own cost at its most visible;
//   - Loopback: an httptest server on 127.0.0.1 with keep-alive.
//
// go test -run '^$' -bench 'GetTranscript|ListPage100' -benchmem -count 5 .
//
// Besides ns/op each reports cpu-ns/op, the process's CPU time per operation,
// which a busy machine disturbs less than wall-clock time.

// benchTranscriptJSON renders one transcript as the service would, with a
// text of a few hundred bytes.
func benchTranscriptJSON(id int) string {
	text := strings.Repeat("Ada opened the meeting and went through the quarter's numbers. ", 8)
	return fmt.Sprintf(`{"id":%d,"headline":"Weekly sync %d","text":%q,"type":"meeting","created_on":"2026-11-21T09:30:00Z",`+
		`"metadata":{"crm":"acme","deal":"D-1042"},"user":{"id":8,"first_name":"Grace","last_name":"Hopper"},`+
		`"job":{"id":5,"lines":3},"audio":{"id":9,"length_in_seconds":1800,"created_on":"2026-11-21T09:00:00Z"}}`, id, id, text)
}

func benchPageJSON(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = benchTranscriptJSON(i + 1)
	}
	return page(true, 1000, items...)
}

// memTransport answers every request with body, synchronously.
type memTransport struct{ body []byte }

func (m memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		StatusCode:    200,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_bench"}},
		Body:          io.NopCloser(bytes.NewReader(m.body)),
		ContentLength: int64(len(m.body)),
		Request:       req,
	}, nil
}

// benchServer serves body over loopback; the caller closes it.
func benchServer(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Request-Id"] = []string{"req_bench"}
		_, _ = w.Write(body)
	}))
}

// bareGet is what a user would write with net/http and encoding/json.
func bareGet(ctx context.Context, hc *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testDevKey)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.Unmarshal(data, out)
}

var benchTimeout = scribe.DefaultRequestTimeout

// benchOp is one operation the benchmarks compare: the same work through the
// SDK and through the bare client, against the answer body.
type benchOp struct {
	name, body string
	sdk        func(*scribe.Client) error
	bare       func(hc *http.Client, base string) error
}

// benchGetTranscript is GET /transcripts/42, one transcript.
func benchGetTranscript() benchOp {
	ctx := context.Background()
	return benchOp{"GetTranscript", benchTranscriptJSON(42),
		func(c *scribe.Client) error { _, err := c.GetTranscript(ctx, 42); return err },
		func(hc *http.Client, base string) error {
			var t scribe.Transcript
			return bareGet(ctx, hc, base+"/transcripts/42", &t)
		}}
}

// benchList is the list envelope as a bare client would declare it.
type benchList struct {
	HasMore    bool                `json:"has_more"`
	TotalCount int                 `json:"total_count"`
	Data       []scribe.Transcript `json:"data"`
}

// benchListPage100 is GET /transcripts?limit=100, one page of 100
// transcripts (Pager.Next against a bare GET and decode of the envelope).
func benchListPage100() benchOp {
	ctx := context.Background()
	params := &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 100}}
	return benchOp{"ListPage100", benchPageJSON(100),
		func(c *scribe.Client) error {
			p, err := c.ListTranscripts(ctx, params).Next()
			if err == nil && len(p.Data) != 100 {
				err = fmt.Errorf("page of %d", len(p.Data))
			}
			return err
		},
		func(hc *http.Client, base string) error {
			var l benchList
			err := bareGet(ctx, hc, base+"/transcripts?limit=100", &l)
			if err == nil && len(l.Data) != 100 {
				err = fmt.Errorf("page of %d", len(l.Data))
			}
			return err
		}}
}

// benchTransports runs run, as the sub-benchmarks prefix+"InMemory" and
// prefix+"Loopback", against a transport that answers body.
func benchTransports(b *testing.B, prefix, body string, run func(b *testing.B, base string, tr http.RoundTripper)) {
	b.Run(prefix+"InMemory", func(b *testing.B) { run(b, testBase, memTransport{[]byte(body)}) })
	b.Run(prefix+"Loopback", func(b *testing.B) {
		srv := benchServer([]byte(body))
		defer srv.Close()
		tr := srv.Client().Transport.(*http.Transport).Clone()
		defer tr.CloseIdleConnections()
		run(b, srv.URL+"/v1", tr)
	})
}

// benchPair runs the SDK and the bare client, in memory and over loopback,
// on op.
func benchPair(b *testing.B, op benchOp) {
	benchTransports(b, "", op.body, func(b *testing.B, base string, tr http.RoundTripper) {
		b.Run("SDK", func(b *testing.B) {
			c, err := scribe.NewClient(base, scribe.WithHTTPClient(&http.Client{Transport: tr}), scribe.WithDeveloperKey(testDevKey), scribe.WithRequestTimeout(benchTimeout))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0, ok := processCPU()
			for b.Loop() {
				if err := op.sdk(c); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0, ok)
		})
		b.Run("Bare", func(b *testing.B) {
			hc := &http.Client{Transport: tr}
			b.ReportAllocs()
			cpu0, ok := processCPU()
			for b.Loop() {
				if err := op.bare(hc, base); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0, ok)
		})
	})
}

// reportCPU adds the metric cpu-ns/op: the process's CPU time (all threads:
// the client, the garbage collector and, over loopback, the server) per
// operation since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu1, ok1 := processCPU(); ok && ok1 && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkGetTranscript: GET /transcripts/42, one transcript.
func BenchmarkGetTranscript(b *testing.B) { benchPair(b, benchGetTranscript()) }

// BenchmarkListPage100: GET /transcripts?limit=100, one page of 100
// transcripts (Pager.Next against a bare GET and decode of the envelope).
func BenchmarkListPage100(b *testing.B) { benchPair(b, benchListPage100()) }

// BenchmarkVsBare runs the SDK and the bare client on the same work in one
// loop, one call of each per iteration (alternating which goes first),
// timing every call: the sequential SDK and Bare sub-benchmarks above see
// different stretches of a shared machine's load, and their ratio swings
// from 0.8 to 1.6 between runs. It reports sdk-ns and bare-ns (the mean
// call), sdk/bare (their ratio) and sdk/bare-p50 (the ratio of the median
// calls, without those a preemption or a collection hit). ns/op is the
// two calls together. scripts/bench prints the medians of the ratios.
//
// go test -run '^$' -bench 'VsBare' -benchmem -count 6 .
func BenchmarkVsBare(b *testing.B) {
	for _, op := range []benchOp{benchGetTranscript(), benchListPage100()} {
		run := func(b *testing.B, base string, tr http.RoundTripper) {
			hc := &http.Client{Transport: tr}
			c, err := scribe.NewClient(base, scribe.WithHTTPClient(hc), scribe.WithDeveloperKey(testDevKey), scribe.WithRequestTimeout(benchTimeout))
			if err != nil {
				b.Fatal(err)
			}
			calls := []func() error{func() error { return op.sdk(c) }, func() error { return op.bare(hc, base) }}
			for _, call := range calls { // warm: connections
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
			times := [2][]time.Duration{}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				for k := range 2 {
					j := (i + k) % 2
					t0 := time.Now()
					err := calls[j]()
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
			b.ReportMetric(mean[0], "sdk-ns")
			b.ReportMetric(mean[1], "bare-ns")
			b.ReportMetric(mean[0]/mean[1], "sdk/bare")
			b.ReportMetric(p50[0]/p50[1], "sdk/bare-p50")
		}
		benchTransports(b, op.name+"/", op.body, run)
	}
}
