package redisdedupe_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server process of Debian's package, on a free
// loopback port, stopped by its PID when the test ends. It persists nothing
// unless its args say so, in a directory of the test's own that outlives a
// restart.
type redisServer struct {
	t    testing.TB
	port int
	dir  string
	args []string // more redis-server options
	cmd  *exec.Cmd
}

// startRedis starts a redis-server for the test. Without the binary the test
// is skipped, unless CI is set: .ci/run installs the package (through
// scripts/redis-tests), so there a missing binary is a failure.
func startRedis(t testing.TB, args ...string) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed; scripts/redis-tests installs Debian's redis-server package")
		}
		t.Skip("redis-server is not installed; run scripts/redis-tests, which installs it")
	}
	s := &redisServer{t: t, port: freePort(t), dir: t.TempDir(), args: args}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start runs redis-server on s.port and waits until it answers PING.
func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"}, s.args...)...)
	s.cmd.Dir = s.dir
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if rdb.Ping(context.Background()).Err() == nil {
			return
		}
		if time.Now().After(deadline) {
			s.stop()
			s.t.Fatalf("redis-server on %s did not answer PING within 10 s", s.addr())
		}
	}
}

// stop ends the process by its PID (SIGTERM, then SIGKILL) and reaps it.
func (s *redisServer) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// kill ends the process at once, as a crash would.
func (s *redisServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// client returns a new client of the server (a replica's own connection
// pool), closed when the test ends.
func (s *redisServer) client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: 1})
	s.t.Cleanup(func() { rdb.Close() })
	return rdb
}

// prefix returns a key prefix of the test's own.
func prefix(t testing.TB) string { return fmt.Sprintf("test:%s:", t.Name()) }
