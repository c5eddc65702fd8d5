package redisdedupe_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/dedupetest"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// TestContract: the Redis store keeps the DedupeStore contract (leases,
// fencing, TTL, atomic Reserve) on a real redis-server and the real clock.
func TestContract(t *testing.T) {
	srv := startRedis(t)
	var n atomic.Int64
	dedupetest.Run(t, dedupetest.Config{
		New: func(t *testing.T, lease, ttl time.Duration) webhook.DedupeStore {
			p := prefix(t) + strconv.FormatInt(n.Add(1), 10) + ":"
			return newStore(t, srv.client(), redisdedupe.WithKeyPrefix(p), redisdedupe.WithLease(lease), redisdedupe.WithTTL(ttl))
		},
		Lease: 300 * time.Millisecond,
		TTL:   1500 * time.Millisecond,
	})
}

var secret = func() auth.WebhookSecret {
	s, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		panic(err)
	}
	return s
}()

// replica is one receiver process: its own Redis client, Store and handler.
type replica struct {
	h    http.Handler
	logs *syncBuffer
}

func newReplica(t *testing.T, srv *redisServer, fn func(context.Context, *webhook.Event) error, opts ...redisdedupe.Option) replica {
	t.Helper()
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	store := newStore(t, srv.client(), append([]redisdedupe.Option{redisdedupe.WithKeyPrefix(prefix(t))}, opts...)...)
	return replica{mustHandler(t, v, fn, webhook.WithDedupeStore(store), webhook.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))), logs}
}

// deliver sends the event id, signed now, to r and returns the answer.
func (r replica) deliver(id string) *httptest.ResponseRecorder {
	body := []byte(`{"id":"` + id + `","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,"plugin_installation_uuid":"u-1","data":{"id":1}}`)
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
	maps.Copy(req.Header, webhook.SignHeaders(secret, id, time.Now(), body))
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	return w
}

// TestThreeReplicasRunOnce: 60 concurrent deliveries of one event, spread
// over 3 replicas with separate clients and Stores, run it exactly once;
// the others answer 409 (in flight) or 200 (duplicate).
func TestThreeReplicasRunOnce(t *testing.T) {
	srv := startRedis(t)
	var runs atomic.Int32
	fn := func(context.Context, *webhook.Event) error {
		runs.Add(1)
		time.Sleep(50 * time.Millisecond)
		return nil
	}
	reps := []replica{newReplica(t, srv, fn), newReplica(t, srv, fn), newReplica(t, srv, fn)}
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			if c := reps[i%3].deliver("evt_once").Code; c != http.StatusOK && c != http.StatusConflict {
				t.Errorf("delivery %d: status %d, want 200 or 409", i, c)
			}
		})
	}
	wg.Wait()
	for i, r := range reps {
		if c := r.deliver("evt_once").Code; c != http.StatusOK {
			t.Errorf("replica %d after the run: status %d, want 200 (duplicate)", i, c)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("the event ran %d times, want 1", runs.Load())
	}
}

// TestFailedRunIsRetriedOnAnotherReplica: a run that fails releases the id,
// and the service's retry, landing on another replica, runs it.
func TestFailedRunIsRetriedOnAnotherReplica(t *testing.T) {
	srv := startRedis(t)
	var runs atomic.Int32
	failing := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return io.ErrUnexpectedEOF })
	healthy := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return nil })
	if c := failing.deliver("evt_f").Code; c != http.StatusInternalServerError {
		t.Fatalf("failing replica: status %d, want 500", c)
	}
	if c := healthy.deliver("evt_f").Code; c != http.StatusOK {
		t.Fatalf("retry on another replica: status %d, want 200", c)
	}
	if c := failing.deliver("evt_f").Code; c != http.StatusOK || runs.Load() != 2 {
		t.Errorf("a later retry: status %d after %d runs; want 200 (duplicate) after 2", c, runs.Load())
	}
}

// TestHungReplicaLosesItsClaim: a replica that hangs holds the event for its
// lease only; then another replica runs it. When the hung one finally fails,
// its release does not free the newer claim (fencing): a third replica
// still sees the event in flight, then processed.
func TestHungReplicaLosesItsClaim(t *testing.T) {
	srv := startRedis(t)
	const lease = 400 * time.Millisecond
	hungRelease, secondRelease := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	hung := newReplica(t, srv, func(context.Context, *webhook.Event) error {
		runs.Add(1)
		<-hungRelease
		return io.ErrUnexpectedEOF
	}, redisdedupe.WithLease(lease))
	second := newReplica(t, srv, func(context.Context, *webhook.Event) error {
		runs.Add(1)
		<-secondRelease
		return nil
	}, redisdedupe.WithLease(lease))
	third := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return nil }, redisdedupe.WithLease(lease))

	hungDone := make(chan int)
	go func() { hungDone <- hung.deliver("evt_h").Code }()
	waitFor(t, func() bool { return runs.Load() == 1 })
	if c := third.deliver("evt_h").Code; c != http.StatusConflict {
		t.Fatalf("within the lease: status %d, want 409", c)
	}
	time.Sleep(lease + 100*time.Millisecond)
	secondDone := make(chan int)
	go func() { secondDone <- second.deliver("evt_h").Code }()
	waitFor(t, func() bool { return runs.Load() == 2 })

	close(hungRelease) // the hung run fails late, after its lease
	if c := <-hungDone; c != http.StatusInternalServerError {
		t.Errorf("hung replica: status %d, want 500", c)
	}
	if !strings.Contains(hung.logs.String(), "lease ran out") {
		t.Errorf("the hung replica did not log its lost claim: %s", hung.logs.String())
	}
	if c := third.deliver("evt_h").Code; c != http.StatusConflict {
		t.Errorf("after the late failure: status %d, want 409 (the newer claim still holds)", c)
	}
	close(secondRelease)
	if c := <-secondDone; c != http.StatusOK {
		t.Errorf("second replica: status %d, want 200", c)
	}
	if c := third.deliver("evt_h").Code; c != http.StatusOK || runs.Load() != 2 {
		t.Errorf("after the second run: status %d after %d runs; want 200 (duplicate) after 2", c, runs.Load())
	}
}

// TestRedisOutage: with Redis down the handler answers 503 with a
// Retry-After and does not run the event; once Redis is back, the retry
// runs it once.
func TestRedisOutage(t *testing.T) {
	srv := startRedis(t)
	var runs atomic.Int32
	r := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return nil })
	if c := r.deliver("evt_before").Code; c != http.StatusOK {
		t.Fatalf("before the outage: status %d", c)
	}
	srv.kill()
	w := r.deliver("evt_o")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || runs.Load() != 1 {
		t.Fatalf("Redis down: status %d, Retry-After %q, runs %d; want 503, a Retry-After and no run", w.Code, w.Header().Get("Retry-After"), runs.Load())
	}
	if !strings.Contains(r.logs.String(), "dedupe store failed") {
		t.Errorf("the outage was not logged: %s", r.logs.String())
	}
	srv.start()
	for i := range 3 {
		if c := r.deliver("evt_o").Code; c != http.StatusOK {
			t.Fatalf("retry %d after the restart: status %d, want 200", i, c)
		}
	}
	if runs.Load() != 2 {
		t.Errorf("the event ran %d times after the restart, want once", runs.Load()-1)
	}
}

// TestEveryKeyExpires: whatever state an id is in, its key has an expiry:
// a claim its lease, a processed id the TTL.
func TestEveryKeyExpires(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	p := prefix(t)
	const lease, ttl = time.Minute, time.Hour
	s := newStore(t, srv.client(), redisdedupe.WithKeyPrefix(p), redisdedupe.WithLease(lease), redisdedupe.WithTTL(ttl))
	ctx := context.Background()
	_, _, _ = s.Reserve(ctx, "held")
	_, c, _ := s.Reserve(ctx, "done")
	_ = s.Complete(ctx, c)
	_, c, _ = s.Reserve(ctx, "released")
	_ = s.Release(ctx, c)
	_ = s.Complete(ctx, webhook.Claim{ID: "unclaimed", Token: "x"})
	want := map[string]time.Duration{p + "held": lease, p + "done": ttl, p + "unclaimed": ttl}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(want) {
		t.Errorf("keys %v, want those of %v", keys, want)
	}
	for _, k := range keys {
		pttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil || pttl <= 0 || pttl > want[k] || pttl < want[k]-10*time.Second {
			t.Errorf("key %q: PTTL %v (%v), want about %v", k, pttl, err, want[k])
		}
	}
}

// TestKeyPrefix: keys carry the prefix (DefaultKeyPrefix by default), and
// stores with different prefixes do not meet.
func TestKeyPrefix(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	ctx := context.Background()
	a := newStore(t, srv.client())
	b := newStore(t, srv.client(), redisdedupe.WithKeyPrefix("tenant-b:"))
	for _, s := range []*redisdedupe.Store{a, b} {
		if r, _, err := s.Reserve(ctx, "evt_p"); r != webhook.Reserved || err != nil {
			t.Errorf("Reserve = %v, %v; want Reserved in each prefix", r, err)
		}
	}
	keys, _ := rdb.Keys(ctx, "*").Result()
	if len(keys) != 2 || !slices.Contains(keys, redisdedupe.DefaultKeyPrefix+"evt_p") || !slices.Contains(keys, "tenant-b:evt_p") {
		t.Errorf("keys %v, want %q and %q", keys, redisdedupe.DefaultKeyPrefix+"evt_p", "tenant-b:evt_p")
	}
}

// roundTrips counts the commands a client sends.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// TestTwoRoundTripsPerDelivery: a delivery costs at most two Redis round
// trips (claim, settle) once the scripts are loaded, and a duplicate one.
func TestTwoRoundTripsPerDelivery(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	count := &roundTrips{}
	rdb.AddHook(count)
	v, _ := webhook.NewVerifier(secret)
	r := replica{h: mustHandler(t, v, func(context.Context, *webhook.Event) error { return nil },
		webhook.WithDedupeStore(newStore(t, rdb)), webhook.WithLogger(nil))}
	r.deliver("evt_warm") // loads the scripts (EVALSHA, then EVAL once)
	r.deliver("evt_warm")
	for _, tc := range []struct {
		name string
		id   string
		max  int64
	}{{"new event", "evt_rt", 2}, {"duplicate", "evt_rt", 1}} {
		before := count.n.Load()
		if c := r.deliver(tc.id).Code; c != http.StatusOK {
			t.Fatalf("%s: status %d", tc.name, c)
		}
		if got := count.n.Load() - before; got > tc.max {
			t.Errorf("%s: %d round trips, want at most %d", tc.name, got, tc.max)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// TestFullRedisRefusesNotForgets protects the advice of the package doc:
// under maxmemory-policy noeviction a Redis out of memory refuses the new
// claim (503 with Retry-After, the event does not run) and keeps the
// processed marker, so the retry of an event already run is still a
// duplicate.
func TestFullRedisRefusesNotForgets(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	ctx := context.Background()
	var runs atomic.Int32
	r := newReplica(t, srv, func(context.Context, *webhook.Event) error { runs.Add(1); return nil })
	if c := r.deliver("evt_done").Code; c != http.StatusOK {
		t.Fatalf("first delivery: status %d", c)
	}
	filler := strings.Repeat("x", 64<<10)
	for i := range 32 { // 2 MiB of other data
		if err := rdb.Set(ctx, "filler:"+strconv.Itoa(i), filler, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	info, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	used := infoField(t, info, "used_memory")
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used-1<<20, 10)).Err(); err != nil { // Redis is now full
		t.Fatal(err)
	}
	w := r.deliver("evt_new")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("a new event on a full Redis: status %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	if c := r.deliver("evt_done").Code; c != http.StatusOK {
		t.Errorf("the retry of a processed event on a full Redis: status %d, want 200", c)
	}
	if runs.Load() != 1 {
		t.Errorf("events ran %d times on a full Redis, want 1 (only the first, before it filled)", runs.Load())
	}
}

// infoField reads an integer field of INFO's output.
func infoField(t *testing.T, info, name string) int64 {
	t.Helper()
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO %s: %v", name, err)
			}
			return n
		}
	}
	t.Fatalf("INFO has no %s", name)
	return 0
}

// mustHandler is webhook.NewHandler, failing the test on its error.
func mustHandler(t testing.TB, v *webhook.Verifier, fn func(context.Context, *webhook.Event) error, opts ...webhook.HandlerOption) http.Handler {
	t.Helper()
	h, err := webhook.NewHandler(v, fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// newStore is redisdedupe.New, failing the test on its error.
func newStore(t testing.TB, rdb redis.UniversalClient, opts ...redisdedupe.Option) *redisdedupe.Store {
	t.Helper()
	s, err := redisdedupe.New(rdb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memoryStore is the handler's default store, for comparison.
func memoryStore(t testing.TB) *webhook.MemoryDedupeStore {
	t.Helper()
	s, err := webhook.NewMemoryDedupeStore(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
