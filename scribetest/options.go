package scribetest

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/hostcheck"
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
)

// Option configures a Server; a bad value is an error from NewServer (or
// NewUnstartedServer, NewTestServer). The zero Option does nothing.
type Option struct {
	apply func(*config) error
}

// option is an Option that fails with err, or else sets what set sets.
func option(err error, set func(*config)) Option { return Option{checked(err, set)} }

// checked is the apply of an option (an Option, a CheckOption) that fails
// with err, or else sets what set sets.
func checked[C any](err error, set func(*C)) func(*C) error {
	return func(cfg *C) error {
		if err == nil {
			set(cfg)
		}
		return err
	}
}

// refuse returns the error of an option given a bad value, if bad.
func refuse(bad bool, format string, args ...any) error {
	if !bad {
		return nil
	}
	return fmt.Errorf(format, args...)
}

type config struct {
	clock    auth.Clock
	basePath string
	addr     string
	logger   *slog.Logger
	fixtures []io.Reader
	limiter  *httpapi.Limiter // WithRateLimit
	stateDir string           // WithStateDir
	hosts    hostcheck.List   // WithAllowedHosts
	budget   int64            // WithBodyBudget; 0: DefaultBodyBudget

	// The WithWebhook... options; zero is the default, but for the
	// schedule, which starts as defaultSchedule.
	schedule  []time.Duration
	scale     float64
	workers   int
	timeout   time.Duration
	transport http.RoundTripper
}

// WithClock makes the server read time from c instead of the system clock:
// token expiry, timestamps of new resources and the 24-hour life of
// idempotency keys all follow it. NewFakeClock returns a clock a test moves by
// hand.
func WithClock(c auth.Clock) Option {
	return option(refuse(c == nil, "scribetest: WithClock: clock is nil"), func(cfg *config) { cfg.clock = c })
}

// WithBasePath serves the operations under the path prefix p, such as "/v1",
// so that a client given a base URL with a prefix is exercised. URL includes
// the prefix. p must begin with "/"; a trailing "/" is ignored.
func WithBasePath(p string) Option {
	p = strings.TrimSuffix(p, "/")
	bad := p != "" && (!strings.HasPrefix(p, "/") || strings.ContainsAny(p, "{}?#% \t\r\n") || strings.Contains(p, "//"))
	return option(refuse(bad, "scribetest: WithBasePath: %q must be a path such as /v1, without {}, ?, #, %% or spaces", p),
		func(cfg *config) { cfg.basePath = p })
}

// WithAddr makes NewServer listen on addr (host:port; port 0 picks a free one)
// instead of a free port on 127.0.0.1.
func WithAddr(addr string) Option {
	_, _, err := net.SplitHostPort(addr)
	return option(refuse(err != nil, "scribetest: WithAddr: %q is not host:port: %w", addr, err), func(cfg *config) { cfg.addr = addr })
}

// WithLogger sends the server's own diagnostics to l instead of
// slog.Default(): recovered panics and webhook events that cannot be sent
// (Error), webhook deliveries given up or failed permanently, and those left
// undelivered at Close (Warn). Secrets are never logged.
func WithLogger(l *slog.Logger) Option {
	return option(refuse(l == nil, "scribetest: WithLogger: logger is nil"), func(cfg *config) { cfg.logger = l })
}

// WithFixtures loads the fixture document read from r (docs/server.md,
// "Fixtures") when the server is created; see LoadFixtures. Several
// WithFixtures load in order.
func WithFixtures(r io.Reader) Option {
	return option(refuse(r == nil, "scribetest: WithFixtures: reader is nil"), func(cfg *config) { cfg.fixtures = append(cfg.fixtures, r) })
}

// WithStateDir keeps the server's state in the directory dir (created if
// missing), so that it outlives the process: its resources, events,
// deliveries (a pending retry resumes when it is due, or at once if that
// time has passed) and the answers kept for Idempotency-Keys, but not the
// request log (docs/server.md, "State"). Memory stays the copy the server
// reads; each change is written to dir, and fsync'd, before the call or
// request that made it returns, so an answered request survives a crash.
//
// A dir that holds no state is seeded with the fixtures (WithFixtures); one
// that holds a state is loaded as it is, and fixtures are then an error. A
// state that cannot be read (damaged, cut short, of a newer format) makes
// NewServer fail with an error naming the file, which is left as it is; so
// does a dir another process has open. Close lets dir go.
func WithStateDir(dir string) Option {
	return option(refuse(dir == "", `scribetest: WithStateDir: the directory is ""; give one, such as t.TempDir()`), func(cfg *config) { cfg.stateDir = dir })
}

// WithRateLimit limits each credential holder (a developer key's developer, an
// installation JWT's installation) to limit requests per window of the
// server's clock. Windows are fixed and aligned on the clock (a one-minute
// window runs from one whole minute to the next), so a FakeClock moved past
// the window's end gives every holder its full quota again.
//
// Every request with a valid credential counts, whatever it is answered; a
// request over the quota is answered 429 rate_limited with Retry-After (the
// seconds until the window ends, rounded up) before any work is done. Answers
// to counted requests carry RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (seconds until the window ends). Requests without a valid
// credential are not counted. Without WithRateLimit, nothing is limited.
//
// limit must be at least 1 and window at least one second. SetRateLimit
// changes the limit of a running server.
func WithRateLimit(limit int, window time.Duration) Option {
	_, err := newLimiter("WithRateLimit", limit, window)
	// A limiter per server: one Option given to two servers counts apart.
	return option(err, func(cfg *config) { cfg.limiter, _ = newLimiter("WithRateLimit", limit, window) })
}

// SetRateLimit replaces the server's rate limit, as WithRateLimit sets it,
// with a fresh quota for every holder; limit 0 turns rate limiting off.
// Requests in flight finish under the limit they started with.
func (s *Server) SetRateLimit(limit int, window time.Duration) error {
	if limit == 0 {
		s.limiter.Store(nil)
		return nil
	}
	l, err := newLimiter("SetRateLimit", limit, window)
	if err == nil {
		s.limiter.Store(l)
	}
	return err
}

// newLimiter checks a rate limit and returns its limiter.
func newLimiter(call string, limit int, window time.Duration) (*httpapi.Limiter, error) {
	switch {
	case limit < 1:
		return nil, fmt.Errorf("scribetest: %s: limit is %d; it must be at least 1 request per window", call, limit)
	case window < time.Second:
		return nil, fmt.Errorf("scribetest: %s: window is %s; it must be at least 1s, since the RateLimit headers count whole seconds", call, window)
	}
	return &httpapi.Limiter{Limit: limit, Window: window}, nil
}

// WithWebhookSchedule replaces the delivery schedule: delays[i] is how long a
// delivery waits before attempt i+1, so delays[0] is the wait before the first
// attempt (0: at once) and len(delays) is the number of attempts before the
// delivery is given up. The default is docs/contract.md's ("Events and
// webhooks"): 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Every wait gets ±20
// % jitter. Tests pass short delays, such as 0, 10ms, 20ms, 40ms.
func WithWebhookSchedule(delays ...time.Duration) Option {
	delays = slices.Clone(delays) // what the caller does with theirs changes nothing
	err := refuse(len(delays) == 0, "scribetest: WithWebhookSchedule: give at least one delay (0 for an immediate single attempt)")
	if i := slices.IndexFunc(delays, func(d time.Duration) bool { return d < 0 }); i >= 0 {
		err = refuse(true, "scribetest: WithWebhookSchedule: delay %d is %v; delays must be 0 or more", i, delays[i])
	}
	return option(err, func(cfg *config) { cfg.schedule = delays })
}

// WithWebhookScheduleScale multiplies every delay of the delivery schedule
// (the default one or WithWebhookSchedule's) by f: 0.001 turns 5 s into 5 ms
// and 10 h into 36 s. f must be positive and finite. However large f is, a
// scaled delay, jitter included, is at most a week (MaxWebhookDelay), so the
// attempts stay spaced. It scales webhook deliveries only: the clients the
// server hands out have short waits of their own (1 to 10 ms), and a
// Retry-After is never scaled.
func WithWebhookScheduleScale(f float64) Option {
	return option(refuse(!(f > 0) || math.IsInf(f, 0), "scribetest: WithWebhookScheduleScale: %v must be a positive finite factor, such as 0.001", f),
		func(cfg *config) { cfg.scale = f })
}

// WithWebhookWorkers bounds how many delivery attempts are in flight at once
// (default 8). One webhook has at most half of them (at least one), so a slow
// receiver cannot hold every sender.
func WithWebhookWorkers(n int) Option {
	return option(refuse(n < 1, "scribetest: WithWebhookWorkers: %d must be at least 1", n), func(cfg *config) { cfg.workers = n })
}

// WithWebhookTimeout replaces the 15 s a receiver has to answer an attempt
// with a 2xx; a receiver slower than d fails the attempt. Tests of slow
// receivers pass a short one.
func WithWebhookTimeout(d time.Duration) Option {
	return option(refuse(d <= 0, "scribetest: WithWebhookTimeout: %v must be positive", d), func(cfg *config) { cfg.timeout = d })
}

// WithWebhookTransport sends deliveries through rt instead of a transport of
// the server's own, for example the Client().Transport of an
// httptest.NewTLSServer receiver. Redirects are still not followed and the
// attempt timeout still applies; the server never closes rt's connections.
func WithWebhookTransport(rt http.RoundTripper) Option {
	return option(refuse(rt == nil, "scribetest: WithWebhookTransport: transport is nil"), func(cfg *config) { cfg.transport = rt })
}

// WithAllowedHosts adds names to the Host headers the server answers
// (besides localhost, *.localhost and IP addresses, always answered), such
// as a compose service name or, for a request from httptest.NewRequest,
// "example.com". A request for any other host is refused with 403, so that
// a web page whose name was made to resolve to 127.0.0.1 (DNS rebinding)
// can neither read nor change the server. Each name is a DNS name without
// scheme or port; several calls add up.
func WithAllowedHosts(hosts ...string) Option {
	return Option{func(cfg *config) (err error) {
		cfg.hosts, err = cfg.hosts.With("scribetest: WithAllowedHosts: ", hosts...)
		return err
	}}
}
