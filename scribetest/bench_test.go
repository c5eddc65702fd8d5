package scribetest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// Server benchmarks, each beside its baseline measured in the same run;
// docs/performance.md records the figures and scripts/bench prints them.

// benchEnv is a server for the request benchmarks, seeded by a fixture
// document: a developer with a plugin that may read transcripts and users,
// the plugin installed by a user who owns n transcripts, and the
// Authorization values of both credentials.
type benchEnv struct {
	s         *scribetest.Server
	n         int
	inst, dev string

	startOnce sync.Once
	url       string
}

// benchFixtures writes the fixture document of a benchEnv to w.
func benchFixtures(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprint(bw, `{"users": [{"id": 1, "first_name": "Ada", "developer_key": "dk_live_bench"}, {"id": 2, "first_name": "Grace", "last_name": "Hopper"}],
"plugins": [{"id": 1, "user_id": 1, "name": "bench", "permissions": {"user": "read", "transcript": "read"}}],
"secret_keys": [{"id": 1, "plugin_id": 1, "value": "ask_live_benchbenchbenchbenchbenchbench"}],
"installations": [{"id": 1, "uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 1, "user_id": 2}],
"transcripts": [`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, `{"id": %d, "user_id": 2, "headline": "Weekly sync #%d", "type": "meeting", "created_on": "2026-11-21T09:30:00Z", `+
			`"text": "Ada: Let's start with the release. Grace: The build is green and the docs are merged. Ada: Then we ship on Thursday. Grace: I'll write the announcement & send it to <team@example.com>.", `+
			`"job": {"id": %d, "lines": 4}, "audio": {"id": %d, "length_in_seconds": 1800}}`, i, i, i, i)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func newBenchEnv(n int) (*benchEnv, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(benchFixtures(pw, n)) }()
	s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(pr))
	if err != nil {
		return nil, err
	}
	key, _ := auth.ParseSecretKey("ask_live_benchbenchbenchbenchbenchbench")
	tok, err := auth.Mint(key, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", time.Now())
	if err != nil {
		return nil, err
	}
	return &benchEnv{s: s, n: n, inst: "Bearer " + tok, dev: "Bearer dk_live_bench"}, nil
}

// start makes the server listen on loopback, once; it lives as long as the
// benchmark process.
func (e *benchEnv) start(b *testing.B) string {
	e.startOnce.Do(func() {
		if err := e.s.Start(); err != nil {
			b.Fatal(err)
		}
		e.url = e.s.URL()
	})
	return e.url
}

// benchEnvs holds one environment per size for the whole process: a store
// of 10^6 transcripts takes seconds and hundreds of MiB to build.
var benchEnvs = struct {
	sync.Mutex
	m map[int]*benchEnv
}{m: map[int]*benchEnv{}}

func sharedBenchEnv(b *testing.B, n int) *benchEnv {
	b.Helper()
	benchEnvs.Lock()
	defer benchEnvs.Unlock()
	if e, ok := benchEnvs.m[n]; ok {
		return e
	}
	e, err := newBenchEnv(n)
	if err != nil {
		b.Fatal(err)
	}
	benchEnvs.m[n] = e
	return e
}

// benchOp is one request of the benchmarks.
type benchOp struct {
	name, method, target, body string
	developer, idempotent      bool
}

var benchKeys atomic.Int64

// benchOps are the requests measured against the floor: one transcript, a
// page of 100 (both from the middle of the user's n transcripts) and a
// POST /plugins with a fresh Idempotency-Key (the SDK's CreatePlugin).
func benchOps(n int) []benchOp {
	mid := strconv.Itoa(n / 2)
	return []benchOp{
		{name: "get", method: http.MethodGet, target: "/transcripts/" + mid},
		{name: "page100", method: http.MethodGet, target: "/transcripts?limit=100&after_id=" + mid},
		{name: "post", method: http.MethodPost, target: "/plugins", developer: true, idempotent: true,
			body: `{"name":"Meeting notes","description":"Summarises meetings.","permissions":{"user":"read","transcript":"read"}}`},
	}
}

func (e *benchEnv) request(op benchOp, base string) *http.Request {
	r, _ := http.NewRequestWithContext(context.Background(), op.method, base+op.target, strings.NewReader(op.body))
	if op.body == "" {
		r.Body, r.ContentLength = http.NoBody, 0
	} else {
		r.Header.Set("Content-Type", "application/json")
	}
	if op.idempotent {
		r.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(benchKeys.Add(1), 10))
	}
	r.Header.Set("Authorization", e.inst)
	if op.developer {
		r.Header.Set("Authorization", e.dev)
	}
	return r
}

// capture answers op once through the server's handler and returns the
// headers (less Date) and body the floor is to write.
func (e *benchEnv) capture(b *testing.B, op benchOp) (http.Header, []byte) {
	b.Helper()
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, e.request(op, ""))
	if rec.Code != http.StatusOK {
		b.Fatalf("%s %s: status %d: %.300s", op.method, op.target, rec.Code, rec.Body)
	}
	h := rec.Result().Header
	h.Del("Date")
	return h, rec.Body.Bytes()
}

// floorHandler is the floor of an operation: a bare net/http handler that
// reads the request body and writes the bytes and headers the server
// answered; nothing is authenticated, looked up, logged or encoded.
func floorHandler(header http.Header, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// sink is the ResponseWriter of the direct benchmarks: it keeps the headers
// and counts the body, for the server and its floor alike.
type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header { return s.h }
func (s *sink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}
func (s *sink) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.n += len(p)
	return len(p), nil
}

// BenchmarkVsFloor measures each request of benchOps against its floor,
// interleaved request by request so that the machine's load falls on both
// alike: direct/ through Server.Handler() and the floor handler into the
// same ResponseWriter (the server's whole cost per request without a
// network), loopback/ over TCP on 127.0.0.1 from parallel keep-alive
// clients against the started server and an httptest.Server running the
// floor. It reports server-ns, floor-ns and x-floor = server-ns / floor-ns
// (targets over loopback: get ≤ 1.15, page100 ≤ 1.25). The same requests
// then run against 10^6 transcripts, under items=1e6/.
func BenchmarkVsFloor(b *testing.B) {
	vsFloor(b, sharedBenchEnv(b, 1_000))
	b.Run("items=1e6", func(b *testing.B) { vsFloor(b, sharedBenchEnv(b, 1_000_000)) })
}

func vsFloor(b *testing.B, e *benchEnv) {
	for _, op := range benchOps(e.n) {
		header, body := e.capture(b, op)
		floorH := floorHandler(header, body)
		b.Run("direct/"+op.name, func(b *testing.B) {
			w := &sink{h: http.Header{}}
			var server, floor time.Duration
			b.ReportAllocs()
			for b.Loop() {
				for _, side := range []struct {
					h http.Handler
					d *time.Duration
				}{{e.s.Handler(), &server}, {floorH, &floor}} {
					clear(w.h)
					w.status, w.n = 0, 0
					r := e.request(op, "")
					start := time.Now()
					side.h.ServeHTTP(w, r)
					*side.d += time.Since(start)
					if w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
				}
			}
			reportVsFloor(b, server, floor)
		})
		b.Run("loopback/"+op.name, func(b *testing.B) {
			url := e.start(b)
			fs := httptest.NewServer(floorH)
			defer fs.Close()
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = 256
			hc := &http.Client{Transport: tr}
			defer hc.CloseIdleConnections()
			var mu sync.Mutex
			var server, floor time.Duration
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var ds, df time.Duration
				for pb.Next() {
					for _, side := range []struct {
						base string
						d    *time.Duration
					}{{url, &ds}, {fs.URL, &df}} {
						start := time.Now()
						err := send(hc, e.request(op, side.base))
						*side.d += time.Since(start)
						if err != nil {
							b.Error(err)
							return
						}
					}
				}
				mu.Lock()
				server, floor = server+ds, floor+df
				mu.Unlock()
			})
			reportVsFloor(b, server, floor)
		})
	}
}

// send sends r through hc and reads the whole answer; anything but a 200
// is an error.
func send(hc *http.Client, r *http.Request) error {
	resp, err := hc.Do(r)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d", r.Method, r.URL, resp.StatusCode)
	}
	return nil
}

func reportVsFloor(b *testing.B, server, floor time.Duration) {
	b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-ns")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns")
	b.ReportMetric(float64(server)/float64(floor), "x-floor")
}

// BenchmarkListPage is one GET /transcripts?limit=20&after_id=<middle>
// through the server's handler with 10^3 and 10^6 transcripts in scope: the
// two must cost about the same (target: 10^6 within 1.3× of 10^3).
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("items=1e%d", len(strconv.Itoa(n))-1), func(b *testing.B) {
			e := sharedBenchEnv(b, n)
			op := benchOp{method: http.MethodGet, target: "/transcripts?limit=20&after_id=" + strconv.Itoa(n/2)}
			_, body := e.capture(b, op)
			h, w, r := e.s.Handler(), &sink{h: http.Header{}}, e.request(op, "")
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, r)
				if w.status != http.StatusOK || w.n != len(body) {
					b.Fatal(w.status, w.n)
				}
			}
		})
	}
}

// BenchmarkNewServer is what a test pays to start a server with the demo
// fixtures and close it (allocated bytes: B/op).
func BenchmarkNewServer(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := scribetest.NewServer(scribetest.WithFixtures(scribetest.DemoFixtures()))
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// TestNewServerAllocatesLittle protects what a user's suite pays per test:
// a server with the demo fixtures, started and closed, allocates at most
// 1 MiB.
func TestNewServerAllocatesLittle(t *testing.T) {
	res := testing.Benchmark(BenchmarkNewServer)
	if per := res.AllocedBytesPerOp(); per > 1<<20 {
		t.Errorf("NewServer with the demo fixtures allocates %d bytes, want at most 1 MiB", per)
	}
	runtime.GC()
}
