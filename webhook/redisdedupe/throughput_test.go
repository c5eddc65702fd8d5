//go:build unix

package redisdedupe_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// Receive throughput: senders × events per round.
const (
	throughputSenders = 32
	throughputEvents  = 5000
)

// BenchmarkReceiveThroughput measures webhook receive throughput on
// loopback: 32 concurrent senders deliver 5,000 distinct events over HTTP
// (kept-alive connections, requests signed before the clock starts) to one
// handler with the memory store, and to three handlers (replicas, taken in
// turn), each with its own go-redis client and Store on one redis-server.
// One op runs one round of each side back to back, the first side taking
// turns, so that both sample the same stretch of a shared machine's load.
// It reports the medians over the ops of memory-deliveries/s and
// redis-deliveries/s, and of redis/memory, their quotient in each op; of
// the CPU time (user and system) of this process per delivery, which covers
// the senders' HTTP client, the handlers, the stores and go-redis
// (memory-go-cpu-us/delivery, redis-go-cpu-us/delivery); and of
// redis-server's CPU time per delivery from INFO cpu, idle for the memory
// store (memory-redis-cpu-us/delivery, redis-redis-cpu-us/delivery).
//
//	cd webhook/redisdedupe && go test -run '^$' -bench ReceiveThroughput -benchtime 5x
func BenchmarkReceiveThroughput(b *testing.B) {
	rds := startRedis(b)
	admin := rds.client()
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		b.Fatal(err)
	}
	var runs atomic.Int64
	fn := func(context.Context, *webhook.Event) error { runs.Add(1); return nil }
	serve := func(store webhook.DedupeStore) string {
		srv := httptest.NewServer(mustHandler(b, v, fn, webhook.WithDedupeStore(store), webhook.WithLogger(nil)))
		b.Cleanup(srv.Close)
		return srv.URL
	}
	memory := []string{serve(memoryStore(b))}
	var replicas []string
	for range 3 {
		rdb := redis.NewClient(&redis.Options{Addr: rds.addr()}) // go-redis's defaults, as a replica would run
		b.Cleanup(func() { rdb.Close() })
		replicas = append(replicas, serve(newStore(b, rdb, redisdedupe.WithKeyPrefix("throughput:"))))
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: throughputSenders}}
	b.Cleanup(hc.CloseIdleConnections)

	round := 0
	measure := func(urls []string, events int) sample {
		round++
		if err := admin.FlushDB(context.Background()).Err(); err != nil {
			b.Fatal(err)
		}
		reqs := signedDeliveries(fmt.Sprintf("evt_r%d_", round), events)
		before := runs.Load()
		cpu0, redis0 := processCPU(b), redisCPU(b, admin)
		start := time.Now()
		if err := sendAll(hc, urls, reqs); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		cpu, rcpu := processCPU(b)-cpu0, redisCPU(b, admin)-redis0
		if n := runs.Load() - before; n != int64(events) {
			b.Fatalf("%d events ran, want %d", n, events)
		}
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(events) }
		return sample{rate: float64(events) / took.Seconds(), goCPU: per(cpu), redisCPU: per(rcpu)}
	}
	measure(memory, 500) // warm up: connections, scripts
	measure(replicas, 500)

	var mem, red []sample
	var ratio []float64
	b.ResetTimer()
	for i := range b.N {
		var m, r sample
		if i%2 == 0 {
			m, r = measure(memory, throughputEvents), measure(replicas, throughputEvents)
		} else {
			r, m = measure(replicas, throughputEvents), measure(memory, throughputEvents)
		}
		mem, red, ratio = append(mem, m), append(red, r), append(ratio, r.rate/m.rate)
	}
	b.StopTimer()
	for _, s := range []struct {
		name    string
		samples []sample
	}{{"memory", mem}, {"redis", red}} {
		b.ReportMetric(median(s.samples, func(x sample) float64 { return x.rate }), s.name+"-deliveries/s")
		b.ReportMetric(median(s.samples, func(x sample) float64 { return x.goCPU }), s.name+"-go-cpu-us/delivery")
		b.ReportMetric(median(s.samples, func(x sample) float64 { return x.redisCPU }), s.name+"-redis-cpu-us/delivery")
	}
	b.ReportMetric(median(ratio, func(x float64) float64 { return x }), "redis/memory")
}

// sample is one round of one side.
type sample struct {
	rate     float64 // deliveries per second
	goCPU    float64 // this process's CPU time per delivery, in µs
	redisCPU float64 // redis-server's CPU time per delivery, in µs
}

func median[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// delivery is a signed delivery, ready to send.
type delivery struct {
	body   []byte
	header http.Header
}

func signedDeliveries(prefix string, n int) []delivery {
	ds := make([]delivery, n)
	now := time.Now()
	for i := range ds {
		id := prefix + strconv.Itoa(i)
		body := []byte(`{"id":"` + id + `","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,"plugin_installation_uuid":"u-1","data":{"id":1}}`)
		ds[i] = delivery{body, webhook.SignHeaders(secret, id, now, body)}
	}
	return ds
}

// sendAll sends every delivery from throughputSenders goroutines, delivery
// i to urls[i%len(urls)], and fails on any answer but 200.
func sendAll(hc *http.Client, urls []string, ds []delivery) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range throughputSenders {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ds); i = int(next.Add(1) - 1) {
				req, err := http.NewRequest(http.MethodPost, urls[i%len(urls)], bytes.NewReader(ds[i].body))
				if err == nil {
					maps.Copy(req.Header, ds[i].header)
					err = send(hc, req)
				}
				if err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// processCPU returns the CPU time, user and system, this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// redisCPU returns the CPU time, user and system, redis-server has used.
func redisCPU(b *testing.B, rdb *redis.Client) time.Duration {
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for line := range strings.Lines(info) {
		name, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name == "used_cpu_sys" || name == "used_cpu_user" {
			d, err := time.ParseDuration(v + "s")
			if err != nil {
				b.Fatalf("INFO cpu: %s: %v", line, err)
			}
			total += d
		}
	}
	return total
}
