package redisdedupe_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// replyLoser loses the replies of chosen script runs after Redis ran them:
// a go-redis dial hook wraps each connection, and when a script's reply
// (EVALSHA or EVAL) is one to lose, it reads the reply from Redis, closes
// the connection and reports an EOF, as a network that fails on the way
// back does. go-redis then sends the command again on a new connection.
type replyLoser struct {
	mu   sync.Mutex
	n    int          // script replies read since plan
	lose map[int]bool // which of them to lose, counted from 1
	lost atomic.Int32
}

// plan makes the loser lose the script replies numbered nth (1 is the next).
func (l *replyLoser) plan(nth ...int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n, l.lose = 0, map[int]bool{}
	for _, i := range nth {
		l.lose[i] = true
	}
}

// next counts one script reply and says whether to lose it.
func (l *replyLoser) next() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.lose[l.n]
}

func (l *replyLoser) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &lossyConn{Conn: c, l: l}, nil
	}
}
func (l *replyLoser) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (l *replyLoser) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// lossyConn is one connection of a replyLoser's client.
type lossyConn struct {
	net.Conn
	l      *replyLoser
	script bool // the last command written was a script
}

func (c *lossyConn) Write(p []byte) (int, error) {
	lower := bytes.ToLower(p)
	c.script = bytes.Contains(lower, []byte("evalsha")) || bytes.Contains(lower, []byte("\r\neval\r\n"))
	return c.Conn.Write(p)
}

func (c *lossyConn) Read(p []byte) (int, error) {
	if !c.script {
		return c.Conn.Read(p)
	}
	c.script = false
	n, err := c.Conn.Read(p) // the reply: the script has run
	if err == nil && !bytes.HasPrefix(p[:n], []byte("-NOSCRIPT")) && c.l.next() {
		c.l.lost.Add(1)
		c.Conn.Close()
		return 0, io.EOF
	}
	return n, err
}

// scriptRuns returns how many scripts Redis has run (EVALSHA and EVAL).
func scriptRuns(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for line := range strings.Lines(info) { // cmdstat_evalsha:calls=5,usec=...
		name, stats, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name != "cmdstat_evalsha" && name != "cmdstat_eval" {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
		c, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			t.Fatalf("INFO commandstats: %q: %v", line, err)
		}
		n += c
	}
	return n
}

// TestLostReplies: when the reply of a Reserve, a Complete or a Release is
// lost after Redis ran its script, go-redis runs the script again, and the
// store answers as the first run did: the Reserve gets its claim back at
// once (not "in flight" for a whole lease), and the Complete and the Release
// succeed (no ErrClaimLost).
func TestLostReplies(t *testing.T) {
	srv := startRedis(t)
	admin := srv.client()
	loser := &replyLoser{}
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr()}) // go-redis's defaults: 3 retries
	t.Cleanup(func() { rdb.Close() })
	rdb.AddHook(loser)
	s := newStore(t, rdb, redisdedupe.WithKeyPrefix(prefix(t))) // the default lease, 4 minutes
	ctx := context.Background()
	if _, c, err := s.Reserve(ctx, "evt_warm"); err != nil || s.Complete(ctx, c) != nil { // loads the scripts
		t.Fatalf("warming up: %v", err)
	}

	runs := scriptRuns(t, admin)
	loser.plan(1)
	start := time.Now()
	r, c, err := s.Reserve(ctx, "evt_lost")
	if took := time.Since(start); r != webhook.Reserved || err != nil || took > 5*time.Second {
		t.Fatalf("Reserve whose reply was lost = %v, %v after %v; want Reserved at once", r, err, took)
	}
	if got := scriptRuns(t, admin) - runs; loser.lost.Load() != 1 || got != 2 {
		t.Fatalf("%d replies lost, %d script runs; want 1 lost and the script run twice (else this shows nothing)", loser.lost.Load(), got)
	}

	loser.plan(1)
	if err := s.Complete(ctx, c); err != nil {
		t.Errorf("Complete whose reply was lost = %v, want nil", err)
	}
	if r, _, err := s.Reserve(ctx, "evt_lost"); r != webhook.Duplicate || err != nil {
		t.Errorf("Reserve after the Complete = %v, %v; want Duplicate", r, err)
	}

	_, c, err = s.Reserve(ctx, "evt_released")
	if err != nil {
		t.Fatal(err)
	}
	loser.plan(1)
	if err := s.Release(ctx, c); err != nil {
		t.Errorf("Release whose reply was lost = %v, want nil", err)
	}
	if r, _, err := s.Reserve(ctx, "evt_released"); r != webhook.Reserved || err != nil {
		t.Errorf("Reserve after the Release = %v, %v; want Reserved", r, err)
	}
	if loser.lost.Load() != 3 {
		t.Errorf("%d replies lost, want 3", loser.lost.Load())
	}
}

// TestLostRepliesThroughTheHandler: a delivery whose Reserve reply and
// Complete reply are both lost runs the event once, answers 200, and logs
// no lost claim; its retry is a duplicate. One whose event fails and whose
// Release reply is lost answers 500, logs nothing about a claim, and its
// retry runs the event again.
func TestLostRepliesThroughTheHandler(t *testing.T) {
	srv := startRedis(t)
	loser := &replyLoser{}
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr()})
	t.Cleanup(func() { rdb.Close() })
	rdb.AddHook(loser)
	var runs atomic.Int32
	fail := atomic.Bool{}
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	r := replica{mustHandler(t, v, func(context.Context, *webhook.Event) error {
		runs.Add(1)
		if fail.Load() {
			return io.ErrUnexpectedEOF
		}
		return nil
	}, webhook.WithDedupeStore(newStore(t, rdb, redisdedupe.WithKeyPrefix(prefix(t)))), webhook.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))), logs}
	if c := r.deliver("evt_warm").Code; c != http.StatusOK { // loads the scripts
		t.Fatalf("warming up: status %d", c)
	}

	// Script replies: 1 the Reserve's (lost), 2 its run again, 3 the
	// Complete's (lost), 4 its run again.
	loser.plan(1, 3)
	start := time.Now()
	w := r.deliver("evt_1")
	if w.Code != http.StatusOK || runs.Load() != 2 || time.Since(start) > 5*time.Second {
		t.Errorf("delivery with both replies lost: status %d, %d runs after %v; want 200, the event run once, at once", w.Code, runs.Load()-1, time.Since(start))
	}
	if c := r.deliver("evt_1").Code; c != http.StatusOK || runs.Load() != 2 {
		t.Errorf("its retry: status %d, %d runs; want 200 (duplicate), the event run once", c, runs.Load()-1)
	}

	fail.Store(true)
	loser.plan(2) // 1 the Reserve's, 2 the Release's
	if c := r.deliver("evt_2").Code; c != http.StatusInternalServerError {
		t.Errorf("failing delivery with its Release reply lost: status %d, want 500", c)
	}
	fail.Store(false)
	if c := r.deliver("evt_2").Code; c != http.StatusOK || runs.Load() != 4 {
		t.Errorf("its retry: status %d after %d runs; want 200 and the event run again", c, runs.Load()-1)
	}
	if loser.lost.Load() != 3 {
		t.Errorf("%d replies lost, want 3 (else this shows nothing)", loser.lost.Load())
	}
	if l := logs.String(); strings.Contains(l, "lease ran out") || strings.Contains(l, "dedupe store") {
		t.Errorf("the handler logged a lost claim or a store failure:\n%s", l)
	}
}
