package scribetest_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// Fixture loading at scale. The baseline is one pass of the JSON library
// over the same file into structs of the same members (bareFixtureDoc),
// without the checks: what any loader must at least pay.
// docs/performance.md records the figures and the commands.

// writeFixtureFile writes a fixture document of n transcripts of 100 users
// (one a developer with a plugin) to a file in dir and returns its path.
func writeFixtureFile(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("fixtures-%d.json", n))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, `{"users": [`)
	const users = 100
	for u := 1; u <= users; u++ {
		if u > 1 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id": %d, "first_name": "First%d", "last_name": "Last%d", "email_address": "user%d@example.com"`, u, u, u, u)
		if u == 1 {
			w.WriteString(`, "developer_key": "dk_live_fixture_bench"`)
		}
		w.WriteString("}")
	}
	w.WriteString("],\n" + `"plugins": [{"id": 1, "user_id": 1, "name": "Bench", "permissions": {"user": "read", "transcript": "read"}, "crm_integration_id": null}],` + "\n")
	w.WriteString(`"transcripts": [`)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		if i > 1 {
			w.WriteString(",\n")
		}
		ts := at.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		fmt.Fprintf(w, `{"id": %d, "user_id": %d, "headline": "Call %d", "text": "Speaker one said hello and speaker two answered; they agreed on item %d.", "type": "phone_call", "metadata": {"source": "bench"}, "job": {"id": %d, "lines": %d}, "audio": {"id": %d, "length_in_seconds": %d, "created_on": "%s"}, "created_on": "%s"}`,
			i, 1+i%users, i, i, i, 1+i%40, i, 30+i%600, ts, ts)
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// bareFixtureDoc is what the baseline decodes into: structs of the
// document's members, with no check of unknown members, nulls or
// references.
type bareFixtureDoc struct {
	Users []struct {
		ID           int64   `json:"id"`
		FirstName    string  `json:"first_name"`
		LastName     string  `json:"last_name"`
		EmailAddress string  `json:"email_address"`
		DeveloperKey *string `json:"developer_key"`
	} `json:"users"`
	Plugins []struct {
		ID          int64              `json:"id"`
		UserID      int64              `json:"user_id"`
		Name        string             `json:"name"`
		Permissions scribe.Permissions `json:"permissions"`
		CRM         *int64             `json:"crm_integration_id"`
	} `json:"plugins"`
	Transcripts []bareTranscript `json:"transcripts"`
}

// bareTranscript is a transcript of the document decoded as Go holds it:
// its metadata a map of encoded values, as in scribe.Transcript. The
// decoded data the fixture targets compare with is these structs' heap.
type bareTranscript struct {
	ID        int64                     `json:"id"`
	UserID    int64                     `json:"user_id"`
	Headline  string                    `json:"headline"`
	Text      string                    `json:"text"`
	Type      string                    `json:"type"`
	Metadata  map[string]jsontext.Value `json:"metadata"`
	Job       scribe.TranscriptJob      `json:"job"`
	Audio     scribe.TranscriptAudio    `json:"audio"`
	CreatedOn time.Time                 `json:"created_on"`
}

// bareDecode decodes the whole file in one json.UnmarshalRead.
func bareDecode(tb testing.TB, path string) bareFixtureDoc {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var doc bareFixtureDoc
	if err := json.UnmarshalRead(bufio.NewReaderSize(f, 64<<10), &doc); err != nil {
		tb.Fatal(err)
	}
	return doc
}

// streamDecode is the streaming form of the baseline: a jsontext.Decoder
// over the document's object and arrays, one UnmarshalDecode per
// transcript.
func streamDecode(tb testing.TB, path string) []bareTranscript {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var transcripts []bareTranscript
	dec := jsontext.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	must := func(_ any, err error) {
		if err != nil && !errors.Is(err, io.EOF) {
			tb.Fatal(err)
		}
	}
	must(dec.ReadToken()) // {
	for dec.PeekKind() == jsontext.String("").Kind() {
		tok, err := dec.ReadToken()
		must(nil, err)
		name := tok.String()  // the token is valid only until the next read
		must(dec.ReadToken()) // [
		for dec.PeekKind() != jsontext.EndArray.Kind() {
			switch name {
			case "transcripts":
				transcripts = append(transcripts, bareTranscript{})
				must(nil, json.UnmarshalDecode(dec, &transcripts[len(transcripts)-1]))
			default:
				must(nil, dec.SkipValue())
			}
		}
		must(dec.ReadToken()) // ]
	}
	return transcripts
}

func loadFixtureFile(tb testing.TB, path string) *scribetest.Server {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	s, err := scribetest.NewUnstartedServer()
	if err != nil {
		tb.Fatal(err)
	}
	fx, err := s.LoadFixtures(f)
	if err != nil {
		tb.Fatal(err)
	}
	if fx.Transcripts.Len() == 0 {
		tb.Fatal("no transcripts loaded")
	}
	return s
}

// fixtureFileFor returns a fixture file of n transcripts: the file named
// by SCRIBE_FIXTURE_FILE, written there first if it does not exist (so
// that repeated runs at 10^6 build it once), or a new one in a temporary
// directory.
func fixtureFileFor(tb testing.TB, n int) string {
	keep := os.Getenv("SCRIBE_FIXTURE_FILE")
	if keep == "" {
		return writeFixtureFile(tb, tb.TempDir(), n)
	}
	if _, err := os.Stat(keep); err == nil {
		return keep
	}
	path := writeFixtureFile(tb, filepath.Dir(keep), n)
	if err := os.Rename(path, keep); err != nil {
		tb.Fatal(err)
	}
	return keep
}

func fixtureBenchSize() int {
	if n, err := strconv.Atoi(os.Getenv("SCRIBE_FIXTURE_N")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// BenchmarkFixtureLoad loads a file of 10^5 transcripts (SCRIBE_FIXTURE_N
// sets another size) with LoadFixtures, and decodes the same file with a
// bare decode of the JSON library, alternating in every iteration so that
// both see the same machine. It reports each one's wall time and the ratio
// (target: 2 or less), both as wall time (load/decode-ratio over all
// iterations, wall-median-ratio) and as the process's CPU time, GC workers
// included (cpu-median-ratio), which a busy machine disturbs less. It also
// times the streaming form of the baseline (Token, then Decode per
// resource: streamDecode) in CPU time (cpu-vs-stream-median-ratio).
func BenchmarkFixtureLoad(b *testing.B) {
	n := fixtureBenchSize()
	path := fixtureFileFor(b, n)
	var decode, load time.Duration
	var wall, cpu, cpuStream []float64
	for b.Loop() {
		runtime.GC()
		c0, t0 := cpuTime(), time.Now()
		doc := bareDecode(b, path)
		c1, t1 := cpuTime(), time.Now()
		if len(doc.Transcripts) != n {
			b.Fatalf("decoded %d transcripts", len(doc.Transcripts))
		}
		doc = bareFixtureDoc{}
		runtime.GC()
		c2, t2 := cpuTime(), time.Now()
		s := loadFixtureFile(b, path)
		c3, t3 := cpuTime(), time.Now()
		runtime.KeepAlive(s)
		s = nil
		runtime.GC()
		c4 := cpuTime()
		streamed := streamDecode(b, path)
		c5 := cpuTime()
		if len(streamed) != n {
			b.Fatalf("stream-decoded %d transcripts", len(streamed))
		}
		decode += t1.Sub(t0)
		load += t3.Sub(t2)
		wall = append(wall, float64(t3.Sub(t2))/float64(t1.Sub(t0)))
		cpu = append(cpu, float64(c3-c2)/float64(c1-c0))
		cpuStream = append(cpuStream, float64(c3-c2)/float64(c5-c4))
	}
	b.ReportMetric(float64(decode.Milliseconds())/float64(b.N), "decode-ms/op")
	b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-ms/op")
	b.ReportMetric(float64(load)/float64(decode), "load/decode-ratio")
	b.ReportMetric(median(wall), "wall-median-ratio")
	b.ReportMetric(median(cpu), "cpu-median-ratio")
	b.ReportMetric(median(cpuStream), "cpu-vs-stream-median-ratio")
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// cpuTime is the CPU time the process has used, all threads.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestFixtureLoadPeakRSS measures peak memory at scale; it runs only when
// SCRIBE_FIXTURE_RSS is set to the number of transcripts, as it takes a
// minute and gigabytes at 10^6 (SCRIBE_FIXTURE_FILE keeps the generated
// file between runs). Each mode runs in a fresh process (this test binary,
// re-run) so its VmHWM is its own: a decoding pass over the whole document,
// a streaming one (streamDecode), whose heap is the decoded data, and
// LoadFixtures. It logs each one's time, peak RSS
// and heap after GC and the ratios, and fails if LoadFixtures' peak is
// more than 1.3 times the decoded data or the heap the server holds after
// the load.
func TestFixtureLoadPeakRSS(t *testing.T) {
	if mode := os.Getenv("SCRIBE_FIXTURE_RSS_MODE"); mode != "" {
		fixtureRSSChild(t, mode, os.Getenv("SCRIBE_FIXTURE_RSS_FILE"))
		return
	}
	n, err := strconv.Atoi(os.Getenv("SCRIBE_FIXTURE_RSS"))
	if err != nil || n <= 0 {
		t.Skip("set SCRIBE_FIXTURE_RSS=<transcripts> to measure peak memory of a fixture load")
	}
	path := fixtureFileFor(t, n)
	st, _ := os.Stat(path)
	run := func(mode string) map[string]float64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFixtureLoadPeakRSS$", "-test.v")
		cmd.Env = append(os.Environ(), "SCRIBE_FIXTURE_RSS_MODE="+mode, "SCRIBE_FIXTURE_RSS_FILE="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		m := map[string]float64{}
		for line := range strings.Lines(string(out)) {
			if _, kv, ok := strings.Cut(line, "RSS-RESULT "); ok {
				for f := range strings.FieldsSeq(kv) {
					k, v, _ := strings.Cut(f, "=")
					m[k], _ = strconv.ParseFloat(v, 64)
				}
			}
		}
		return m
	}
	dec, stream, load := run("decode"), run("stream"), run("load")
	t.Logf("file %d MiB, %d transcripts", st.Size()>>20, n)
	t.Logf("library decode, whole document: %.2f s, peak RSS %.0f MiB, heap after GC %.0f MiB", dec["seconds"], dec["peak_mib"], dec["live_mib"])
	t.Logf("library decode, streaming:      %.2f s, peak RSS %.0f MiB, heap after GC %.0f MiB", stream["seconds"], stream["peak_mib"], stream["live_mib"])
	t.Logf("LoadFixtures:                 %.2f s, peak RSS %.0f MiB, heap after GC %.0f MiB", load["seconds"], load["peak_mib"], load["live_mib"])
	t.Logf("CPU time (GC workers included): whole-document decode %.2f s, streaming %.2f s, LoadFixtures %.2f s; LoadFixtures / whole %.2f, / streaming %.2f",
		dec["cpu"], stream["cpu"], load["cpu"], load["cpu"]/dec["cpu"], load["cpu"]/stream["cpu"])
	t.Logf("LoadFixtures / whole-document decode: time %.2f, peak RSS %.2f", load["seconds"]/dec["seconds"], load["peak_mib"]/dec["peak_mib"])
	t.Logf("LoadFixtures / streaming decode: time %.2f, peak RSS %.2f; peak RSS / decoded data (streaming decode's heap) %.2f",
		load["seconds"]/stream["seconds"], load["peak_mib"]/stream["peak_mib"], load["peak_mib"]/stream["live_mib"])
	t.Logf("LoadFixtures peak RSS / its own heap after GC (the server holding the data): %.2f", load["peak_mib"]/load["live_mib"])
	if r := load["peak_mib"] / stream["live_mib"]; r > 1.3 {
		t.Errorf("LoadFixtures peak RSS is %.2f times the decoded data; want 1.3 or less", r)
	}
	// LoadFixtures collects as it adds transcripts, so its peak stays near
	// what the server holds; at the collector's own pacing it would reach
	// 1.7 times or more.
	if r := load["peak_mib"] / load["live_mib"]; r > 1.3 {
		t.Errorf("LoadFixtures peak RSS is %.2f times the server's heap after the load; want 1.3 or less", r)
	}
}

func fixtureRSSChild(t *testing.T, mode, path string) {
	start, cpu0 := time.Now(), cpuTime()
	var keep any
	switch mode {
	case "decode":
		keep = bareDecode(t, path)
	case "stream":
		keep = streamDecode(t, path)
	case "load":
		keep = loadFixtureFile(t, path)
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	secs, cpuSecs := time.Since(start).Seconds(), (cpuTime() - cpu0).Seconds()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: peak RSS is measured on Linux only")
	}
	var peakKB float64
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			peakKB, _ = strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		}
	}
	fmt.Printf("RSS-RESULT seconds=%.3f cpu=%.3f peak_mib=%.1f live_mib=%.1f\n", secs, cpuSecs, peakKB/1024, float64(ms.HeapAlloc)/(1<<20))
}
