package scribetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// Server is the Plugin Integration Service in memory: every operation of the
// contract over real HTTP, backed by state that tests seed and read back
// through plain Go calls. It is safe for concurrent use.
//
// A Server from NewServer or NewTestServer listens on a loopback port; one
// from NewUnstartedServer only answers through Handler until Start is called.
type Server struct {
	clock    Clock
	basePath string
	logger   *slog.Logger
	addr     string

	st       *store
	idem     *idempotencyStore
	log      *requestLog
	limiter  *rateLimiter // nil: rate limiting is off (ratelimit.go)
	injected faultQueue   // injected faults (faults.go)
	verified verifyCache  // installation JWTs verified before (verifycache.go)
	// developers holds the principal of each developer key that
	// authenticated (verifycache.go).
	developers developerCache
	verifier   *auth.Verifier
	handler    http.Handler

	deliveries *deliveries // webhook delivery (delivery.go)

	mu       sync.Mutex // guards the fields below
	hs       *http.Server
	listener net.Listener
	url      string
	closed   bool
}

// Option configures a Server.
type Option func(*config) error

type config struct {
	clock    Clock
	basePath string
	addr     string
	logger   *slog.Logger
	fixtures []io.Reader
	limiter  *rateLimiter   // WithRateLimit (ratelimit.go)
	delivery deliveryConfig // the WithWebhook... options (delivery.go)
	admin    bool           // WithAdminAPI (admin.go)
}

// WithClock makes the server read time from c instead of the system clock:
// token expiry, timestamps of new resources and the 24-hour life of
// idempotency keys all follow it. NewFakeClock returns a clock a test moves
// by hand.
func WithClock(c Clock) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("scribetest: WithClock: clock is nil")
		}
		cfg.clock = c
		return nil
	}
}

// WithBasePath serves the operations under the path prefix p, such as "/v1",
// so that a client given a base URL with a prefix is exercised. URL includes
// the prefix. p must begin with "/"; a trailing "/" is ignored.
func WithBasePath(p string) Option {
	return func(cfg *config) error {
		p = strings.TrimSuffix(p, "/")
		if p != "" && (!strings.HasPrefix(p, "/") || strings.ContainsAny(p, "{}?#% \t\r\n") || strings.Contains(p, "//")) {
			return fmt.Errorf("scribetest: WithBasePath: %q must be a path such as /v1, without {}, ?, #, %% or spaces", p)
		}
		cfg.basePath = p
		return nil
	}
}

// WithAddr makes NewServer listen on addr (host:port; port 0 picks a free
// one) instead of a free port on 127.0.0.1.
func WithAddr(addr string) Option {
	return func(cfg *config) error {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return fmt.Errorf("scribetest: WithAddr: %q is not host:port: %w", addr, err)
		}
		cfg.addr = addr
		return nil
	}
}

// WithLogger sends the server's own diagnostics to l instead of
// slog.Default(): recovered panics and webhook events that cannot be sent
// (Error), webhook deliveries given up or failed permanently, and those left
// undelivered at Close (Warn). Secrets are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *config) error {
		if l == nil {
			return errors.New("scribetest: WithLogger: logger is nil")
		}
		cfg.logger = l
		return nil
	}
}

// WithFixtures loads the fixture document read from r (CONTRACT §8) when the
// server is created; see LoadFixtures. Several WithFixtures load in order.
func WithFixtures(r io.Reader) Option {
	return func(cfg *config) error {
		if r == nil {
			return errors.New("scribetest: WithFixtures: reader is nil")
		}
		cfg.fixtures = append(cfg.fixtures, r)
		return nil
	}
}

// NewUnstartedServer returns a Server that does not listen yet: mount its
// Handler in a server of your own, or call Start.
func NewUnstartedServer(opts ...Option) (*Server, error) {
	cfg := config{clock: realClock{}, addr: "127.0.0.1:0", logger: slog.Default()}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{
		clock:    cfg.clock,
		basePath: cfg.basePath,
		logger:   cfg.logger,
		addr:     cfg.addr,
		st:       newStore(cfg.clock),
		idem:     newIdempotencyStore(),
		log:      newRequestLog(),
		limiter:  cfg.limiter,
		verifier: auth.NewVerifier(auth.WithClock(cfg.clock.Now)),
	}
	s.deliveries = newDeliveries(cfg.delivery, cfg.clock, cfg.logger)
	s.st.onEvent = s.emit
	s.handler = s.chain(s.routes()) // canonicalPaths before the ServeMux: no mux redirects
	if cfg.admin {
		s.handler = s.adminHandler(s.handler) // outside the chain: not logged, limited nor faulted
	}
	for _, r := range cfg.fixtures {
		if _, err := s.LoadFixtures(r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// NewServer returns a Server listening on a free loopback port (or the
// address given with WithAddr). Close it when done.
func NewServer(opts ...Option) (*Server, error) {
	s, err := NewUnstartedServer(opts...)
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
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
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errors.New("scribetest: Start: the server is closed")
	case s.hs != nil:
		return errors.New("scribetest: Start: the server is already started")
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("scribetest: listening on %s: %w", s.addr, err)
	}
	s.listener = ln
	s.hs = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    maxHeadBytes, // above the 414/431 limits of checkRequestSize
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	s.url = "http://" + ln.Addr().String() + s.basePath
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

// Handler returns the server's HTTP handler, with the base path, for
// mounting in a server of your own (an httptest.Server with TLS, say).
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the server at once: it stops listening, closes every
// connection, and stops webhook delivery, aborting attempts in flight.
// Deliveries not yet delivered stay listed by PendingDeliveries (and their
// count is logged); none is attempted again. Calling it again does nothing.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	if s.hs != nil {
		_ = s.hs.Close()
	}
	s.mu.Unlock()
	s.deliveries.close()
}

// Shutdown stops the server gracefully: it stops listening, waits for
// requests in flight to finish (see http.Server.Shutdown), then waits for
// every pending webhook delivery to be delivered or given up, retries
// included, all until ctx is done. Then it stops delivery like Close. When
// deliveries are left undelivered it says how many in an error that wraps
// ctx.Err(); PendingDeliveries lists them.
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

// chain builds the middleware around the routes, outermost first:
//
//	requestID → recoverer → faults → rateLimit → canonicalPaths → routes
//
// requestID comes first so that every answer, even a recovered panic, has a
// Request-Id; faults (InjectFault) sits inside recoverer and before
// everything else, so a faulted request is neither authenticated, counted
// nor performed; rateLimit (WithRateLimit) sees every request that reaches
// an operation, and shares its authentication with it.
func (s *Server) chain(h http.Handler) http.Handler {
	return s.requestID(s.recoverer(s.faults(s.rateLimit(h))))
}

// emit is the single funnel of the server's events (CONTRACT §7): every
// installation and transcript change made through HTTP or a seeding call
// passes here, after the state lock is released. It queues one delivery per
// webhook of the event's plugin and returns without waiting for the network.
func (s *Server) emit(e event) {
	s.deliveries.publish(e, s.st.webhooksOf(e.PluginID))
}
