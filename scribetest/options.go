package scribetest

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/delivery"
	"github.com/scribehq/scribe-go/scribetest/internal/ratelimit"
)

// Option configures a Server.
type Option func(*config) error

type config struct {
	clock    Clock
	basePath string
	addr     string
	logger   *slog.Logger
	fixtures []io.Reader
	limiter  *ratelimit.Limiter // WithRateLimit
	delivery delivery.Config    // the WithWebhook... options
	admin    bool               // WithAdminAPI
}

// WithClock makes the server read time from c instead of the system clock
// (see Clock); NewFakeClock returns one a test moves by hand.
func WithClock(c Clock) Option {
	return func(cfg *config) error {
		if c == nil {
			return errors.New("scribetest: WithClock: clock is nil")
		}
		cfg.clock = c
		return nil
	}
}

// WithBasePath serves the operations under the path prefix p, such as "/v1";
// URL includes it. A trailing "/" is ignored.
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

// WithAddr makes NewServer listen on addr (host:port; port 0 is any free
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

// WithFixtures loads the fixture document read from r when the server is
// created, as LoadFixtures does; several load in order.
func WithFixtures(r io.Reader) Option {
	return func(cfg *config) error {
		if r == nil {
			return errors.New("scribetest: WithFixtures: reader is nil")
		}
		cfg.fixtures = append(cfg.fixtures, r)
		return nil
	}
}

// WithRateLimit limits each credential holder (developer or installation) to
// limit requests per window (at least 1s) of the server's clock, in fixed
// windows aligned on the clock. Every request with a valid credential
// counts; one over the quota is answered 429 rate_limited with Retry-After,
// before any work is done. docs/server.md, "Rate limits", has the headers.
func WithRateLimit(limit int, window time.Duration) Option {
	return func(cfg *config) error {
		switch {
		case limit < 1:
			return fmt.Errorf("scribetest: WithRateLimit: limit is %d; it must be at least 1 request per window", limit)
		case window < time.Second:
			return fmt.Errorf("scribetest: WithRateLimit: window is %s; it must be at least 1s, since the RateLimit headers count whole seconds", window)
		}
		cfg.limiter = &ratelimit.Limiter{Limit: limit, Window: window}
		return nil
	}
}

// WithAdminAPI enables an HTTP API under AdminPathPrefix that drives the
// server as the seeding calls do, for tests in other languages against
// cmd/scribe-server (docs/server.md, "The admin API"). It takes no
// credentials; its requests are not logged, rate limited nor faulted.
func WithAdminAPI() Option {
	return func(cfg *config) error {
		cfg.admin = true
		return nil
	}
}

// WithWebhookSchedule replaces the delivery schedule: delays[i] is the wait
// before attempt i+1, and len(delays) the attempts before a delivery is
// given up. The default is docs/contract.md's: 0, 5 s, 5 min, 30 min, 2 h,
// 5 h, 10 h, 10 h. Every wait gets ±20 % jitter.
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
		cfg.delivery.Schedule = slices.Clone(delays)
		return nil
	}
}

// WithWebhookScheduleScale multiplies every delay of the delivery schedule
// by f, positive and finite (0.001 turns 10 h into 36 s), up to
// MaxWebhookDelay. The clients the server hands out scale their waits
// between retries by f too.
func WithWebhookScheduleScale(f float64) Option {
	return func(cfg *config) error {
		if err := delivery.CheckScale(f); err != nil {
			return fmt.Errorf("scribetest: WithWebhookScheduleScale: %w", err)
		}
		cfg.delivery.Scale = f
		return nil
	}
}

// MaxWebhookDelay is the longest wait between two delivery attempts, after
// WithWebhookScheduleScale and jitter.
const MaxWebhookDelay = delivery.MaxDelay

// WithWebhookWorkers bounds the delivery attempts in flight at once
// (default 8); one webhook has at most half of them.
func WithWebhookWorkers(n int) Option {
	return func(cfg *config) error {
		if n < 1 {
			return fmt.Errorf("scribetest: WithWebhookWorkers: %d must be at least 1", n)
		}
		cfg.delivery.Workers = n
		return nil
	}
}

// WithWebhookTimeout replaces the 15 s a receiver has to answer an attempt
// with a 2xx.
func WithWebhookTimeout(d time.Duration) Option {
	return func(cfg *config) error {
		if d <= 0 {
			return fmt.Errorf("scribetest: WithWebhookTimeout: %v must be positive", d)
		}
		cfg.delivery.Timeout = d
		return nil
	}
}

// WithWebhookTransport sends deliveries through rt, such as an
// httptest.NewTLSServer's Client().Transport, instead of the server's own.
// Redirects are still not followed; rt's connections are never closed.
func WithWebhookTransport(rt http.RoundTripper) Option {
	return func(cfg *config) error {
		if rt == nil {
			return errors.New("scribetest: WithWebhookTransport: transport is nil")
		}
		cfg.delivery.Transport = rt
		return nil
	}
}
