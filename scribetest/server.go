package scribetest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/internal/persist"
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// Server is the Plugin Integration Service in memory: every operation of the
// contract over real HTTP, backed by state that tests seed and read back
// through plain Go calls. It is safe for concurrent use.
//
// A Server from NewServer or NewTestServer listens on a loopback port; one
// from NewUnstartedServer only answers through Handler until Start is called.
type Server struct {
	cfg        config // as the options left it
	st         *state.Store
	requests   ring[Request]
	faults     faults
	deliveries *engine
	limiter    atomic.Pointer[httpapi.Limiter] // nil: no rate limit
	handler    http.Handler
	answers    *httpapi.Answers // to Idempotency-Keys
	started    atomic.Bool      // by Start or Handler: the state to Reset to is the one it had then

	// Guarded by the state's lock (its Before and Save hooks).
	initial    []byte // the state to Reset to, as a fixture document; nil: the one it holds
	initialErr error
	db         *persist.DB // WithStateDir's; nil: none
	saveErr    error       // the first write the state directory refused

	mu     sync.Mutex // guards the fields below
	hs     *http.Server
	url    string
	closed bool
}

// ErrNotFound is returned (wrapped) by the seeding calls when an id or uuid
// names nothing, such as CreatePlugin for a developer that does not exist.
var ErrNotFound = state.ErrNotFound

// ErrConflict is returned (wrapped) by the seeding calls when the change
// clashes with the server's state, such as an id already taken or a second
// active installation of a plugin for the same user.
var ErrConflict = state.ErrConflict

// NewUnstartedServer returns a Server that does not listen yet: until Start,
// it answers only through Handler, to mount in a server of your own. URL is
// "" until then, and the clients it hands out cannot be made.
func NewUnstartedServer(opts ...Option) (*Server, error) {
	cfg := config{clock: realClock{}, addr: "127.0.0.1:0", logger: slog.Default(), schedule: defaultSchedule}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{cfg: cfg, deliveries: newEngine(&cfg), answers: httpapi.NewAnswers()}
	s.cfg.fixtures = nil // loaded below, and not held on to
	s.st = state.New(cfg.clock.Now, func(e webhook.Event) {
		s.deliveries.publish(e, s.st.WebhooksOf(e.PluginID))
	})
	s.limiter.Store(cfg.limiter)
	s.handler = s.cfg.hosts.Wrap(httpapi.New(httpapi.Config{State: s.st, Now: cfg.clock.Now, Limiter: s.limiter.Load, BasePath: cfg.basePath,
		Logger: cfg.logger, Log: s.logRequest, Answers: s.answers, Fail: s.fault}))
	if cfg.stateDir != "" {
		if err := s.openState(&cfg); err != nil {
			s.Close()
			return nil, err
		}
	}
	for _, r := range cfg.fixtures {
		if _, err := s.loadFixtures(r); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.st.Before = s.keepInitial
	return s, nil
}

// NewServer returns a Server listening on a free loopback port (or the address
// given with WithAddr). Close it when done.
func NewServer(opts ...Option) (*Server, error) {
	s, err := NewUnstartedServer(opts...)
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		s.Close() // lets the state directory go
		return nil, err
	}
	return s, nil
}

// NewTestServer is NewServer for a test: it fails t at once if the server
// cannot start (a bad option or fixture, say), and closes the server when t
// and its subtests finish.
func NewTestServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatalf("scribetest.NewTestServer: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start makes the server listen on its address and serve. Starting a started
// or closed server is an error.
func (s *Server) Start() error { return s.StartWith(s.handler) }

// StartWith is Start serving h instead of Handler(): a handler that wraps
// Handler(), such as the dev server's (package devserver), which then
// answers at URL.
func (s *Server) StartWith(h http.Handler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errors.New("scribetest: Start: the server is closed")
	case s.hs != nil:
		return errors.New("scribetest: Start: the server is already started")
	case h == nil:
		return errors.New("scribetest: StartWith: the handler is nil")
	}
	ln, err := net.Listen("tcp", s.cfg.addr)
	if err != nil {
		return fmt.Errorf("scribetest: listening on %s: %w", s.cfg.addr, err)
	}
	s.hs = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    httpapi.MaxHeadBytes, // above the 414/431 limits the handler answers
		ErrorLog:          slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelWarn),
	}
	s.url = "http://" + ln.Addr().String() + s.cfg.basePath
	s.started.Store(true)
	go func() { _ = s.hs.Serve(ln) }()
	return nil
}

// URL returns the base URL clients should use, base path included, such as
// "http://127.0.0.1:53127/v1". It is empty until the server is started.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Handler returns the server's HTTP handler, with the base path, for mounting
// in a server of your own (an httptest.Server with TLS, say).
func (s *Server) Handler() http.Handler {
	s.started.Store(true)
	return s.handler
}

// AllowsHost reports whether the server answers a request whose Host header
// is host: localhost, *.localhost, an IP address, or a name given with
// WithAllowedHosts, with or without a port. Handler refuses any other with
// 403; a handler wrapping it (such as package devserver's) asks this first.
func (s *Server) AllowsHost(host string) bool { return s.cfg.hosts.Allows(host) }

// Close stops the server at once: it stops listening, closes every connection,
// and stops webhook delivery, aborting attempts in flight. Deliveries not yet
// delivered stay listed by PendingDeliveries (and their count is logged); none
// is attempted again, but by a server started later on the same state
// directory (WithStateDir), which Close lets go. Calling it again does nothing.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	if s.hs != nil {
		_ = s.hs.Close()
	}
	s.mu.Unlock()
	s.deliveries.close()
}

// Shutdown stops the server gracefully: it stops listening, waits for requests
// in flight to finish (see http.Server.Shutdown), then waits for every pending
// webhook delivery to be delivered or given up, retries included, all until
// ctx is done. Then it stops delivery like Close. When deliveries are left
// undelivered it says how many in an error that wraps ctx.Err();
// PendingDeliveries lists them.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	hs := s.hs
	s.mu.Unlock()
	var err error
	if hs != nil {
		err = hs.Shutdown(ctx)
	}
	return errors.Join(err, s.deliveries.shutdown(ctx))
}
