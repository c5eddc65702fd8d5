package scribetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// Server benchmarks, each beside its baseline measured in the same run;
// docs/performance.md records the figures and the commands. The index alone
// is BenchmarkPage (internal_test.go); these measure whole requests.

// BenchmarkAuthenticateJWTCached is the per-request cost of an installation
// JWT the server has verified before: hash the token, look it up, re-check
// time, keys, installation and plugin against the store.
func BenchmarkAuthenticateJWTCached(b *testing.B) {
	f := newJWTFixture(b)
	if _, p := f.s.authenticateJWT(f.token); p != nil {
		b.Fatal(p)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, p := f.s.authenticateJWT(f.token); p != nil {
			b.Fatal(p)
		}
	}
}

// BenchmarkAuthenticateJWTFull is the baseline: what every request cost
// before the cache, and what a token's first request costs still (the full
// verification by package auth, the store lookup, parsing the plugin's
// keys).
func BenchmarkAuthenticateJWTFull(b *testing.B) {
	f := newJWTFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		c, p := f.s.verifyJWT(f.token)
		if p == nil {
			_, p = installationPrincipal(c)
		}
		if p != nil {
			b.Fatal(p)
		}
	}
}

// benchEnv is a server for the request benchmarks: a developer with a
// plugin that may read transcripts and users, the plugin installed by a user
// who owns n transcripts, and the Authorization values of both credentials.
type benchEnv struct {
	s      *Server
	n      int
	user   int64  // the installation's user, who owns the transcripts
	plugin int64  // the developer's plugin, installed by user
	inst   string // Authorization of the installation (a JWT)
	dev    string // Authorization of the developer (a developer key)

	startOnce sync.Once
	url       string
}

// benchTranscriptText is a transcript body of a realistic few hundred bytes.
const benchTranscriptText = "Ada: Let's start with the release. Grace: The build is green and the docs are merged. " +
	"Ada: Then we ship on Thursday. Grace: I'll write the announcement & send it to <team@example.com>."

// The server runs on the system clock, as a server from NewServer does (the
// clock is read on every request); the token is good for an hour.
func newBenchEnv(n int) (*benchEnv, error) {
	clock := realClock{}
	s, err := NewUnstartedServer()
	if err != nil {
		return nil, err
	}
	dev, err := s.CreateDeveloper(UserParams{FirstName: "Ada", LastName: "Lovelace", EmailAddress: "ada@example.com"})
	if err != nil {
		return nil, err
	}
	p, err := s.CreatePlugin(dev.User.ID, PluginParams{Name: "bench", Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}})
	if err != nil {
		return nil, err
	}
	key, err := s.CreateSecretKey(p.ID, "bench")
	if err != nil {
		return nil, err
	}
	u, err := s.CreateUser(UserParams{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	if err != nil {
		return nil, err
	}
	in, err := s.Install(p.ID, u.ID)
	if err != nil {
		return nil, err
	}
	tok, err := auth.Mint(key.Key, in.UUID, clock.Now())
	if err != nil {
		return nil, err
	}
	// Seeded straight into the store: CreateTranscript would emit an event
	// each. The rows are what addTranscriptLocked stores.
	now := clock.Now().UTC()
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	for id := int64(1); id <= int64(n); id++ {
		t := scribe.Transcript{
			ID: id, Headline: "Weekly sync #" + strconv.FormatInt(id, 10), Text: benchTranscriptText, Type: "meeting", CreatedOn: now,
			Metadata: map[string]json.RawMessage{},
			User:     scribe.TranscriptUser{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName},
			Job:      scribe.TranscriptJob{ID: id, Lines: 4},
			Audio:    scribe.TranscriptAudio{ID: id, LengthInSeconds: 1800, CreatedOn: now},
		}
		b, err := st.encodeTranscriptLocked(&t, nil)
		if err != nil {
			return nil, err
		}
		st.putTranscriptLocked(id, u.ID, b)
	}
	return &benchEnv{s: s, n: n, user: u.ID, plugin: p.ID, inst: "Bearer " + tok, dev: "Bearer " + dev.Key.Reveal()}, nil
}

// start makes the server listen on loopback, once; it is never closed (the
// environment lives as long as the benchmark process).
func (e *benchEnv) start(b *testing.B) string {
	e.startOnce.Do(func() {
		if err := e.s.Start(); err != nil {
			b.Fatal(err)
		}
		e.url = e.s.URL()
	})
	return e.url
}

// benchEnvs holds one environment per size for the whole benchmark process:
// a store of 10^6 transcripts takes seconds and hundreds of MiB to build.
var benchEnvs struct {
	sync.Mutex
	m map[int]*benchEnv
}

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
	if benchEnvs.m == nil {
		benchEnvs.m = map[int]*benchEnv{}
	}
	benchEnvs.m[n] = e
	return e
}

// benchOp is one request of the benchmarks.
type benchOp struct {
	name, method, target, body string
	status                     int  // the success status; capture sets it from the server's answer
	developer                  bool // sent with the developer key, else the installation JWT
	idempotent                 bool // sent with a fresh Idempotency-Key, as the SDK sends a create
}

// benchKeys numbers the Idempotency-Keys of the benchmarks' requests, so
// that each is a first request (a reused key would be a replay).
var benchKeys atomic.Int64

// benchOps are the requests measured against the floor: one transcript, a
// page of 100 (both from the middle of the user's n transcripts) and a
// POST /plugins with an Idempotency-Key (the SDK's CreatePlugin).
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
		r.Header["Idempotency-Key"] = []string{"bench-" + strconv.FormatInt(benchKeys.Add(1), 10)}
	}
	if op.developer {
		r.Header.Set("Authorization", e.dev)
	} else {
		r.Header.Set("Authorization", e.inst)
	}
	return r
}

// sink is the ResponseWriter of the direct benchmarks: it keeps the headers
// and counts the body, for the server and its floor alike, so that neither
// pays for a recorder's copies.
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
func (s *sink) reset() { clear(s.h); s.status, s.n = 0, 0 }

// capture answers op once through the server's handler, sets op.status to
// the success status answered, and returns the headers (less Date) and
// body: what the floor is to write.
func (e *benchEnv) capture(b *testing.B, op *benchOp) (http.Header, []byte) {
	b.Helper()
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, e.request(*op, ""))
	if rec.Code/100 != 2 {
		b.Fatalf("%s %s: status %d, want a success: %.300s", op.method, op.target, rec.Code, rec.Body)
	}
	op.status = rec.Code
	h := rec.Result().Header
	h.Del("Date")
	return h, rec.Body.Bytes()
}

// floorHandler is the floor of an operation: a bare net/http handler that
// writes the bytes and headers the server answered, having read the request
// body; nothing is authenticated, looked up, logged or encoded.
func floorHandler(status int, header http.Header, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// BenchmarkVsFloor measures each request of benchOps against its floor in
// the same run, interleaved request by request so that the machine's load
// falls on both alike: direct/ through Server.Handler() and the floor
// handler into the same minimal ResponseWriter (the server's whole cost per
// request without a network: middleware, request log, cached JWT, store,
// JSON), loopback/ over TCP on 127.0.0.1 against the started server and an
// httptest.Server running the floor handler, from parallel keep-alive
// clients. Each iteration is one request to each. It reports server-ns and
// floor-ns (mean time per request, summed over the parallel clients) and
// x-floor = floor-ns / server-ns: the server's throughput as a fraction of
// the floor's at the same concurrency (targets: get >= 0.9, page100 >= 0.8,
// post >= 0.85). A request that creates a resource (post) runs each
// sub-benchmark, and each of its rounds, against a fresh server with the
// same 10^3 transcripts, so that every run starts from the same store: on
// the shared one, direct/post would leave hundreds of thousands of plugins
// behind it and loopback/post would measure a larger store (map growth,
// more for the GC to scan) than the one it started from.
//
// The same requests then run against a store of 10^6 transcripts, under
// items=1e6/ (`-bench 'VsFloor/items=1e6/loopback'`; a pattern such as
// 'VsFloor/loopback' leaves them out): the page and the transcript come
// from the middle of the million. There post runs on the shared 10^6 store,
// whose tens of thousands of added plugins are small beside it: a fresh
// store of 10^6 transcripts per round would take longer than the round.
func BenchmarkVsFloor(b *testing.B) {
	vsFloor(b, sharedBenchEnv(b, 1_000), true)
	b.Run("items=1e6", func(b *testing.B) {
		vsFloor(b, sharedBenchEnv(b, 1_000_000), false)
	})
}

// vsFloor runs BenchmarkVsFloor's sub-benchmarks against shared; with
// freshPost, each round of post gets a fresh store of the same size.
func vsFloor(b *testing.B, shared *benchEnv, freshPost bool) {
	for _, op := range benchOps(shared.n) {
		header, body := shared.capture(b, &op)
		floorH := floorHandler(op.status, header, body)
		// env is the environment of one round: the shared one, or a fresh
		// one for an operation that creates resources.
		env := func(b *testing.B) *benchEnv {
			if op.method == http.MethodGet || !freshPost {
				return shared
			}
			e, err := newBenchEnv(shared.n)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(e.s.Close)
			return e
		}
		b.Run("direct/"+op.name, func(b *testing.B) {
			e := env(b)
			w := &sink{h: http.Header{}}
			var server, floor time.Duration
			b.ReportAllocs()
			for b.Loop() {
				for _, side := range []struct {
					h http.Handler
					d *time.Duration
				}{{e.s.Handler(), &server}, {floorH, &floor}} {
					w.reset()
					r := e.request(op, "")
					start := time.Now()
					side.h.ServeHTTP(w, r)
					*side.d += time.Since(start)
					if w.status != op.status || (op.method == http.MethodGet && w.n != len(body)) {
						b.Fatalf("status %d, %d bytes; want %d, %d", w.status, w.n, op.status, len(body))
					}
				}
			}
			reportVsFloor(b, server, floor)
		})
		b.Run("loopback/"+op.name, func(b *testing.B) {
			e := env(b)
			url := e.start(b)
			fs := httptest.NewServer(floorH)
			defer fs.Close()
			hc := loopbackClient()
			defer hc.CloseIdleConnections()
			var mu sync.Mutex
			var server, floor time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var ds, df time.Duration
				for pb.Next() {
					for _, side := range []struct {
						base string
						d    *time.Duration
					}{{url, &ds}, {fs.URL, &df}} {
						start := time.Now()
						err := e.send(hc, op, side.base)
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

func reportVsFloor(b *testing.B, server, floor time.Duration) {
	b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-ns")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns")
	b.ReportMetric(float64(floor)/float64(server), "x-floor")
}

// loopbackClient is an HTTP client that keeps enough idle connections for
// b.RunParallel's goroutines.
func loopbackClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	return &http.Client{Transport: tr}
}

// send sends op to base through hc and reads the whole answer; an answer
// without op's status is an error.
func (e *benchEnv) send(hc *http.Client, op benchOp, base string) error {
	resp, err := hc.Do(e.request(op, base))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != op.status {
		return fmt.Errorf("%s %s: status %d, want %d", op.method, op.target, resp.StatusCode, op.status)
	}
	return nil
}

// runLoopback sends op from parallel goroutines over keep-alive connections
// to base and reports requests per second.
func runLoopback(b *testing.B, e *benchEnv, op benchOp, base string) {
	hc := loopbackClient()
	defer hc.CloseIdleConnections()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := e.send(hc, op, base); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkLoopback sends each request of benchOps to the started server
// over real TCP on 127.0.0.1 (keep-alive, parallel clients) and, beside it,
// to its floor handler in an httptest.Server, with the same client: the
// issue's "throughput against a handler that writes the same bytes". The
// ratio is server req/s over floor req/s of the same operation.
func BenchmarkLoopback(b *testing.B) {
	e := sharedBenchEnv(b, 1000)
	url := e.start(b)
	for _, op := range benchOps(e.n) {
		header, body := e.capture(b, &op)
		floor := httptest.NewServer(floorHandler(op.status, header, body))
		b.Run(op.name+"/server", func(b *testing.B) { runLoopback(b, e, op, url) })
		b.Run(op.name+"/floor", func(b *testing.B) { runLoopback(b, e, op, floor.URL) })
		floor.Close()
	}
}

// BenchmarkListPage is one GET /transcripts?limit=20&after_id=<middle>
// through the server's handler (middleware, cached JWT, page, JSON) with
// 10^3 and 10^6 transcripts in scope: the two must cost about the same
// (target: 10^6 within 1.3x of 10^3).
func BenchmarkListPage(b *testing.B) {
	for _, n := range []struct {
		name  string
		items int
	}{{"items=1e3", 1_000}, {"items=1e6", 1_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			e := sharedBenchEnv(b, n.items)
			op := benchOp{method: http.MethodGet, target: "/transcripts?limit=20&after_id=" + strconv.Itoa(n.items/2)}
			_, body := e.capture(b, &op)
			var page struct {
				Data       []json.RawMessage `json:"data"`
				TotalCount int               `json:"total_count"`
			}
			if err := json.Unmarshal(body, &page); err != nil || len(page.Data) != 20 || page.TotalCount != n.items {
				b.Fatalf("%d items of %d (%v): %.200s", len(page.Data), page.TotalCount, err, body)
			}
			h := e.s.Handler()
			w := &sink{h: http.Header{}}
			r := e.request(op, "")
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				h.ServeHTTP(w, r)
				if w.status != http.StatusOK || w.n != len(body) {
					b.Fatal(w.status, w.n)
				}
			}
		})
	}
}

// perfChildEnv names the environment variable that makes
// TestPerfChildServer serve; see BenchmarkPageP99.
const perfChildEnv = "SCRIBETEST_PERF_CHILD_ITEMS"

// TestPerfChildServer is not a test: started by BenchmarkPageP99 as a child
// process with SCRIBETEST_PERF_CHILD_ITEMS=n, it builds a server with n
// transcripts, prints its URL and the installation's Authorization, and
// serves until its standard input closes. Without the variable it skips.
func TestPerfChildServer(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(perfChildEnv))
	if err != nil {
		t.Skip("the child server of BenchmarkPageP99; set " + perfChildEnv + " to run it")
	}
	e, err := newBenchEnv(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Start(); err != nil {
		t.Fatal(err)
	}
	defer e.s.Close()
	fmt.Printf("scribetest-child %s %s\n", e.s.URL(), e.inst)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// perfChild is a server in a process of its own.
type perfChild struct {
	cmd       *exec.Cmd
	stdin     io.Closer
	url, auth string
}

func startPerfChild(b *testing.B, n int) *perfChild {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPerfChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), perfChildEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &perfChild{cmd: cmd, stdin: stdin}
	b.Cleanup(c.stop)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "scribetest-child "); ok {
			c.url, c.auth, _ = strings.Cut(rest, " ")
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return c
		}
	}
	b.Fatalf("the child server for %d transcripts did not start: %v", n, sc.Err())
	return nil
}

func (c *perfChild) stop() {
	_ = c.stdin.Close()
	_ = c.cmd.Wait()
}

// BenchmarkPageP99 measures the latency of GET /transcripts?limit=100 from
// the middle of 10^3 and of 10^6 transcripts over loopback, each server in a
// process of its own (so that neither heap slows the other's collector),
// from one client alternating between them request by request (so that the
// machine's load falls on both alike). It reports the p50 and p99 of each
// and p99-ratio, p99 at 10^6 over p99 at 10^3 (target: at most 1.3).
// b.N is the number of requests to each.
func BenchmarkPageP99(b *testing.B) {
	sizes := []int{1_000, 1_000_000}
	children := make([]*perfChild, len(sizes))
	for i, n := range sizes {
		children[i] = startPerfChild(b, n)
	}
	hc := loopbackClient()
	defer hc.CloseIdleConnections()
	get := func(c *perfChild, n int) time.Duration {
		r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, c.url+"/transcripts?limit=100&after_id="+strconv.Itoa(n/2), nil)
		r.Header.Set("Authorization", c.auth)
		start := time.Now()
		resp, err := hc.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return d
	}
	for i := range 200 { // warm the connections and both servers
		get(children[i%2], sizes[i%2])
	}
	lat := make([][]time.Duration, len(sizes))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for k := range sizes {
			j := (k + i) % len(sizes) // alternate which goes first
			lat[j] = append(lat[j], get(children[j], sizes[j]))
		}
	}
	b.StopTimer()
	p := func(d []time.Duration, q float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(q*float64(len(d))))].Microseconds())
	}
	b.ReportMetric(p(lat[0], 0.5), "p50-1e3-µs")
	b.ReportMetric(p(lat[1], 0.5), "p50-1e6-µs")
	b.ReportMetric(p(lat[0], 0.99), "p99-1e3-µs")
	b.ReportMetric(p(lat[1], 0.99), "p99-1e6-µs")
	b.ReportMetric(p(lat[1], 0.99)/p(lat[0], 0.99), "p99-ratio")
}

// BenchmarkEncodeTranscript is what storing a transcript costs in encoding:
// hand/ is the store's encoder into its reused scratch buffer, baseline
// encoding-json/ is json.Marshal of the same transcript, the same bytes.
func BenchmarkEncodeTranscript(b *testing.B) {
	now := time.Now().UTC().Truncate(time.Second)
	t := scribe.Transcript{
		ID: 123456, Headline: "Weekly sync #123456", Text: benchTranscriptText, Type: "meeting", CreatedOn: now,
		Metadata: map[string]json.RawMessage{},
		User:     scribe.TranscriptUser{ID: 7, FirstName: "Grace", LastName: "Hopper"},
		Job:      scribe.TranscriptJob{ID: 123456, Lines: 4},
		Audio:    scribe.TranscriptAudio{ID: 123456, LengthInSeconds: 1800, CreatedOn: now},
	}
	b.Run("hand", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = appendTranscriptMeta(buf[:0], &t, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&t); err != nil {
				b.Fatal(err)
			}
		}
	})
}
