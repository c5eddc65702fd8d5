package scribetest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// The server's benchmarks measure what a user feels: requests over loopback
// TCP, each beside a baseline measured in the same run, request for request
// interleaved so that the machine's load falls on both alike. They report
// the nanoseconds of each side and their ratio; compare runs with benchstat.

// The plugin's secret key and the installation of the benchmarks' fixtures.
const (
	benchSecretKey    = "ask_live_benchbenchbenchbenchbenchbench"
	benchInstallation = "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90"
)

// benchServer is a started server whose installation's user owns n
// transcripts, with the Authorization value of the installation.
type benchServer struct {
	s    *scribetest.Server
	n    int
	auth string
}

// benchServers holds one server per size for the whole process: one of 10^6
// transcripts takes seconds to load.
var benchServers = struct {
	sync.Mutex
	m map[int]*benchServer
}{m: map[int]*benchServer{}}

// serverOf returns the started server of n transcripts.
func serverOf(b *testing.B, n int) *benchServer {
	b.Helper()
	benchServers.Lock()
	defer benchServers.Unlock()
	if bs, ok := benchServers.m[n]; ok {
		return bs
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBenchFixtures(pw, n)) }()
	s, err := scribetest.NewServer(scribetest.WithFixtures(pr))
	if err != nil {
		b.Fatal(err)
	}
	key, _ := auth.ParseSecretKey(benchSecretKey)
	tok, err := auth.Mint(key, benchInstallation, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	bs := &benchServer{s: s, n: n, auth: "Bearer " + tok}
	benchServers.m[n] = bs
	return bs
}

// writeBenchFixtures writes a fixture document of a plugin that may read
// transcripts, installed by a user who owns n transcripts of a meeting's
// length.
func writeBenchFixtures(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprint(bw, `{"users": [{"id": 1, "developer_key": "dk_live_bench"}, {"id": 2, "first_name": "Grace", "last_name": "Hopper"}],
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
			`"metadata": {"room": "B2"}, "job": {"id": %d, "lines": 4}, "audio": {"id": %d, "length_in_seconds": 1800}}`, i, i, i, i)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// get sends GET target to base with the installation's credential and reads
// the whole answer; anything but a 200 is an error.
func (bs *benchServer) get(hc *http.Client, base, target string) error {
	r, err := http.NewRequest(http.MethodGet, base+target, nil)
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", bs.auth)
	resp, err := hc.Do(r)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s%s: status %d", base, target, resp.StatusCode)
	}
	return nil
}

// canned returns a handler that writes what the server answers to GET
// target, headers (but Date) and body, whatever it is asked: the floor of
// serving those bytes over HTTP, with nothing authenticated, looked up,
// encoded or logged.
func (bs *benchServer) canned(b *testing.B, target string) http.Handler {
	b.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Authorization", bs.auth)
	rec := httptest.NewRecorder()
	bs.s.Handler().ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: status %d: %.300s", target, rec.Code, rec.Body)
	}
	header, body := rec.Result().Header, rec.Body.Bytes()
	header.Del("Date")
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// interleave runs each of sides once per iteration, in turn, and reports
// the nanoseconds each took per iteration as <name>-ns and the first's over
// the second's as x-<name of the second>.
func interleave(b *testing.B, names [2]string, sides [2]func() error) {
	var took [2]time.Duration
	for b.Loop() {
		for i, side := range sides {
			start := time.Now()
			if err := side(); err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
		}
	}
	for i, name := range names {
		b.ReportMetric(float64(took[i].Nanoseconds())/float64(b.N), name+"-ns")
	}
	b.ReportMetric(float64(took[0])/float64(took[1]), "x-"+names[1])
}

// client returns a keep-alive client for b, closed when it ends.
func client(b *testing.B) *http.Client {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	b.Cleanup(hc.CloseIdleConnections)
	return hc
}

// BenchmarkServerVsCanned is one GET /transcripts/{id} (get) and one page
// of 100 (page100), both from the middle of 1,000 transcripts, against the
// server and, interleaved, against a handler writing the same bytes. Its
// x-canned is the server's time over the canned handler's, measured two
// ways:
//
//   - client=sdk calls the operation as a test does, through the SDK's
//     installation client, which decodes the answer strictly, as the
//     clients the server hands out do: what a test feels the reference
//     server cost, against a server that costs nothing;
//   - client=http sends the request with net/http and discards the body:
//     the server's own work over HTTP. For a page that is mostly encoding
//     100 transcripts with the JSON library.
func BenchmarkServerVsCanned(b *testing.B) {
	bs := serverOf(b, 1000)
	key, err := auth.ParseSecretKey(benchSecretKey)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, op := range []struct {
		name, target string
		call         func(c *scribe.Client) error
	}{
		{"get", "/transcripts/500", func(c *scribe.Client) error {
			_, err := c.GetTranscript(ctx, 500)
			return err
		}},
		{"page100", "/transcripts?limit=100&after_id=500", func(c *scribe.Client) error {
			_, err := c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 100, AfterID: 500}}).Next()
			return err
		}},
	} {
		b.Run(op.name+"/client=sdk", func(b *testing.B) {
			canned := httptest.NewServer(bs.canned(b, op.target))
			defer canned.Close()
			sdk := func(base string) func() error {
				c, err := scribe.NewInstallationClient(base, key, benchInstallation, scribe.WithStrictDecoding())
				if err != nil {
					b.Fatal(err)
				}
				return func() error { return op.call(c) }
			}
			interleave(b, [2]string{"server", "canned"}, [2]func() error{sdk(bs.s.URL()), sdk(canned.URL)})
		})
		b.Run(op.name+"/client=http", func(b *testing.B) {
			canned := httptest.NewServer(bs.canned(b, op.target))
			defer canned.Close()
			hc := client(b)
			interleave(b, [2]string{"server", "canned"}, [2]func() error{
				func() error { return bs.get(hc, bs.s.URL(), op.target) },
				func() error { return bs.get(hc, canned.URL, op.target) },
			})
		})
	}
}

// BenchmarkPageAtScale is one page of 100 transcripts from the middle of a
// user's 10^6 and, interleaved, from the middle of 10^3, each from its own
// server. Its x-1e3 is the first's time over the second's: a page costs the
// same however many transcripts there are.
func BenchmarkPageAtScale(b *testing.B) {
	small, large := serverOf(b, 1_000), serverOf(b, 1_000_000)
	hc := client(b)
	page := func(bs *benchServer) func() error {
		target := "/transcripts?limit=100&after_id=" + strconv.Itoa(bs.n/2)
		return func() error { return bs.get(hc, bs.s.URL(), target) }
	}
	interleave(b, [2]string{"1e6", "1e3"}, [2]func() error{page(large), page(small)})
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
}

// stateServers holds, for the whole process, a server of 1,000 transcripts
// kept in a state directory, beside serverOf's in memory.
var stateServers = struct {
	sync.Once
	bs  *benchServer
	err error
}{}

// stateServerOf returns the started server of 1,000 transcripts on a state
// directory of its own.
func stateServerOf(b *testing.B) *benchServer {
	b.Helper()
	stateServers.Do(func() {
		dir := b.TempDir() // removed at the first benchmark's end: the server keeps its open file
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeBenchFixtures(pw, 1000)) }()
		s, err := scribetest.NewServer(scribetest.WithFixtures(pr), scribetest.WithStateDir(dir))
		stateServers.bs, stateServers.err = &benchServer{s: s, n: 1000, auth: serverOf(b, 1000).auth}, err
	})
	if stateServers.err != nil {
		b.Fatal(stateServers.err)
	}
	return stateServers.bs
}

// BenchmarkStateDirReads is one GET /transcripts/{id} and one page of 100
// from a server on a state directory (WithStateDir, scribe-server -state)
// and, interleaved, from one in memory, over raw HTTP. Reads never touch
// the disk, so its x-memory is about 1.
func BenchmarkStateDirReads(b *testing.B) {
	onDisk, inMemory := stateServerOf(b), serverOf(b, 1000)
	for _, op := range []struct{ name, target string }{
		{"get", "/transcripts/500"},
		{"page100", "/transcripts?limit=100&after_id=500"},
	} {
		b.Run(op.name, func(b *testing.B) {
			hc := client(b)
			interleave(b, [2]string{"state", "memory"}, [2]func() error{
				func() error { return onDisk.get(hc, onDisk.s.URL(), op.target) },
				func() error { return inMemory.get(hc, inMemory.s.URL(), op.target) },
			})
		})
	}
}

// BenchmarkStateDirWrite is one POST /plugins to a server on a state
// directory and, interleaved, to one in memory, over raw HTTP: its x-memory
// is what writing the change through to the disk, fsync included, costs.
func BenchmarkStateDirWrite(b *testing.B) {
	const devKey = "dk_live_bench"
	doc := `{"users": [{"id": 1, "developer_key": "` + devKey + `"}]}`
	onDisk := scribetest.NewTestServer(b, scribetest.WithFixtures(strings.NewReader(doc)), scribetest.WithStateDir(b.TempDir()))
	inMemory := scribetest.NewTestServer(b, scribetest.WithFixtures(strings.NewReader(doc)))
	hc := client(b)
	post := func(s *scribetest.Server) func() error {
		return func() error {
			r, err := http.NewRequest(http.MethodPost, s.URL()+"/plugins", strings.NewReader(`{"name": "bench"}`))
			if err != nil {
				return err
			}
			r.Header.Set("Authorization", "Bearer "+devKey)
			r.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(r)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("POST /plugins: status %d", resp.StatusCode)
			}
			return nil
		}
	}
	interleave(b, [2]string{"state", "memory"}, [2]func() error{post(onDisk), post(inMemory)})
}
