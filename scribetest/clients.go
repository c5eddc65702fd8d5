package scribetest

import (
	"context"
	"errors"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// DeveloperClient returns a client with a developer's key; opts follow the server's.
func (s *Server) DeveloperClient(key auth.DeveloperKey, opts ...scribe.Option) (*scribe.Client, error) {
	if key.IsZero() {
		return nil, errors.New("scribetest: DeveloperClient: key is the zero value; pass Developer.Key")
	}
	return s.client(append([]scribe.Option{scribe.WithDeveloperKey(key)}, opts...))
}

// InstallationClient returns a client of installation uuid with tokens from key;
// opts follow the server's. The server's clients wait between retries on its
// clock: a FakeClock advances; the system clock waits a thousandth
// (WithWebhookScheduleScale). scribe.WithRetrySleep(nil) waits for real.
func (s *Server) InstallationClient(key auth.SecretKey, uuid string, opts ...scribe.Option) (*scribe.Client, error) {
	ts, err := s.TokenSource(key, uuid)
	if err != nil {
		return nil, err
	}
	return s.client(append([]scribe.Option{scribe.WithTokenSource(ts)}, opts...))
}

func (s *Server) client(opts []scribe.Option) (*scribe.Client, error) {
	u := s.URL()
	if u == "" {
		return nil, errors.New("scribetest: the server is not started; call Start, or use NewServer")
	}
	return scribe.NewClient(u, append([]scribe.Option{scribe.WithRetrySleep(s.retrySleep)}, opts...)...)
}

// retrySleep is how the server's clients wait between attempts.
func (s *Server) retrySleep(ctx context.Context, d time.Duration) error {
	if a, ok := s.clock.(advancer); ok {
		a.Advance(d)
		return ctx.Err()
	}
	t := time.NewTimer(scaled(d, s.retryScale))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Clock returns the clock the server reads (WithClock's, or the system's).
func (s *Server) Clock() Clock { return s.clock }

// TokenSource returns a token source of uuid from key on the server's clock;
// opts come after the clock, so an auth.WithClock among them wins.
func (s *Server) TokenSource(key auth.SecretKey, uuid string, opts ...auth.SourceOption) (*auth.TokenSource, error) {
	return auth.NewTokenSource(key, uuid, append([]auth.SourceOption{auth.WithClock(s.clock.Now)}, opts...)...)
}

// TokenCache returns an auth.Cache of tokens from key on the server's clock.
func (s *Server) TokenCache(key auth.SecretKey, opts ...auth.CacheOption) *auth.Cache {
	return auth.NewCache(key, append([]auth.CacheOption{auth.WithSourceOptions(auth.WithClock(s.clock.Now))}, opts...)...)
}

// WebhookVerifier returns a verifier of hook's deliveries on the server's clock.
func (s *Server) WebhookVerifier(hook scribe.Webhook, opts ...webhook.VerifierOption) (*webhook.Verifier, error) {
	if hook.SigningSecret.IsZero() {
		return nil, errors.New("scribetest: WebhookVerifier: the webhook has no signing secret; pass the scribe.Webhook that CreateWebhook or the fixtures returned")
	}
	return webhook.NewVerifier(hook.SigningSecret, append([]webhook.VerifierOption{webhook.WithClock(s.clock.Now)}, opts...)...)
}
