package redisdedupe_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// BenchmarkHandler: deliveries of new events over loopback HTTP to a
// webhook.NewHandler, with the memory store (the baseline) and with the
// Redis store on a local redis-server; redis-round-trips/op counts the
// store's commands per delivery.
//
//	cd webhook/redisdedupe && go test -run '^$' -bench Handler -benchmem -cpu 1,2
func BenchmarkHandler(b *testing.B) {
	rds := startRedis(b)
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		b.Fatal(err)
	}
	fn := func(context.Context, *webhook.Event) error { return nil }
	for _, store := range []string{"memory", "redis"} {
		b.Run("store="+store, func(b *testing.B) {
			opt, count := webhook.WithDedupeStore(memoryStore(b)), &roundTrips{}
			if store == "redis" {
				rdb := rds.client()
				rdb.AddHook(count)
				opt = webhook.WithDedupeStore(newStore(b, rdb, redisdedupe.WithKeyPrefix("bench:"+strconv.Itoa(b.N)+":")))
			}
			srv := httptest.NewServer(mustHandler(b, v, fn, opt, webhook.WithLogger(nil)))
			defer srv.Close()
			var n atomic.Int64
			deliver := func(c *http.Client) error {
				id := "evt_" + strconv.FormatInt(n.Add(1), 10)
				body := []byte(`{"id":"` + id + `","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,"plugin_installation_uuid":"u-1","data":{"id":1}}`)
				req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
				maps.Copy(req.Header, webhook.SignHeaders(secret, id, time.Now(), body))
				return send(c, req)
			}
			// Load the scripts (EVALSHA, then EVAL once) before counting.
			if err := deliver(srv.Client()); err != nil {
				b.Fatal(err)
			}
			count.n.Store(0)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c := srv.Client()
				for pb.Next() {
					if err := deliver(c); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(count.n.Load())/float64(b.N), "redis-round-trips/op")
		})
	}
}

// send sends req with hc and fails on any answer but 200.
func send(hc *http.Client, req *http.Request) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
