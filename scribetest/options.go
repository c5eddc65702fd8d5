package scribetest

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	clock    Clock
	basePath string
	addr     string
	logger   *slog.Logger
	fixtures []io.Reader
	limiter  *httpapi.Limiter // WithRateLimit
	admin    bool             // WithAdminAPI

	// The WithWebhook... options; zero is the default.
	schedule  []time.Duration
	scale     float64
	workers   int
	timeout   time.Duration
	transport http.RoundTripper
}

// WithClock makes the server read time from c (see Clock), such as a FakeClock.
func WithClock(c Clock) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("scribetest: WithClock: clock is nil")
		}
		cfg.clock = c
		return nil
	}
}

// WithBasePath serves the operations under the path prefix p, such as "/v1" (URL includes it).
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

// WithAddr makes NewServer listen on addr instead of 127.0.0.1:0.
func WithAddr(addr string) Option {
	return func(cfg *config) error {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return fmt.Errorf("scribetest: WithAddr: %q is not host:port: %w", addr, err)
		}
		cfg.addr = addr
		return nil
	}
}

// WithLogger sends the server's diagnostics to l instead of slog.Default():
// recovered panics and events that cannot be sent (Error); deliveries given
// up, failed permanently or left at Close (Warn). Secrets are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *config) error {
		if l == nil {
			return errors.New("scribetest: WithLogger: logger is nil")
		}
		cfg.logger = l
		return nil
	}
}

// WithFixtures loads the fixture document read from r, as LoadFixtures does.
func WithFixtures(r io.Reader) Option {
	return func(cfg *config) error {
		if r == nil {
			return errors.New("scribetest: WithFixtures: reader is nil")
		}
		cfg.fixtures = append(cfg.fixtures, r)
		return nil
	}
}

// WithRateLimit limits each credential holder to limit requests per fixed
// window (at least 1s) of the server's clock; one over the quota is answered
// 429 with Retry-After (docs/server.md, "Rate limits").
func WithRateLimit(limit int, window time.Duration) Option {
	return func(cfg *config) error {
		switch {
		case limit < 1:
			return fmt.Errorf("scribetest: WithRateLimit: limit is %d; it must be at least 1 request per window", limit)
		case window < time.Second:
			return fmt.Errorf("scribetest: WithRateLimit: window is %s; it must be at least 1s, since the RateLimit headers count whole seconds", window)
		}
		cfg.limiter = &httpapi.Limiter{Limit: limit, Window: window}
		return nil
	}
}

// WithAdminAPI enables an HTTP API without credentials under AdminPathPrefix
// that drives the server as the seeding calls do, for tests in other
// languages (docs/server.md, "The admin API").
func WithAdminAPI() Option {
	return func(cfg *config) error {
		cfg.admin = true
		return nil
	}
}

// WithWebhookSchedule replaces the delivery schedule (docs/contract.md's 0,
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): delays[i] is the wait before
// attempt i+1, jittered by ±20 %.
func WithWebhookSchedule(delays ...time.Duration) Option {
	return func(cfg *config) error {
		if len(delays) == 0 {
			return errors.New("scribetest: WithWebhookSchedule: give at least one delay (0 for an immediate single attempt)")
		}
		for i, d := range delays {
			if d < 0 {
				return fmt.Errorf("scribetest: WithWebhookSchedule: delay %d is %v; delays must be 0 or more", i, d)
			}
		}
		cfg.schedule = slices.Clone(delays)
		return nil
	}
}

// WithWebhookScheduleScale multiplies by f (positive, finite) the schedule's delays, each
// at most MaxWebhookDelay, and the server's clients' retry waits: 0.001 makes 10 h 36 s.
func WithWebhookScheduleScale(f float64) Option {
	return func(cfg *config) error {
		if !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("scribetest: WithWebhookScheduleScale: %v must be a positive finite factor, such as 0.001", f)
		}
		cfg.scale = f
		return nil
	}
}

// WithWebhookWorkers bounds the attempts in flight (8); a webhook has half at most.
func WithWebhookWorkers(n int) Option {
	return func(cfg *config) error {
		if n < 1 {
			return fmt.Errorf("scribetest: WithWebhookWorkers: %d must be at least 1", n)
		}
		cfg.workers = n
		return nil
	}
}

// WithWebhookTimeout replaces the 15 s a receiver has to answer an attempt.
func WithWebhookTimeout(d time.Duration) Option {
	return func(cfg *config) error {
		if d <= 0 {
			return fmt.Errorf("scribetest: WithWebhookTimeout: %v must be positive", d)
		}
		cfg.timeout = d
		return nil
	}
}

// WithWebhookTransport sends deliveries through rt, such as an
// httptest.NewTLSServer's Client().Transport; redirects are not followed.
func WithWebhookTransport(rt http.RoundTripper) Option {
	return func(cfg *config) error {
		if rt == nil {
			return errors.New("scribetest: WithWebhookTransport: transport is nil")
		}
		cfg.transport = rt
		return nil
	}
}
