package scribetest

import (
	"context"
	"errors"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// DeveloperClient returns a client of the server authorized with a developer's
// key, for the /plugins operations. opts are applied after the server's URL,
// the key and the server's retry waits (see InstallationClient).
func (s *Server) DeveloperClient(key auth.DeveloperKey, opts ...scribe.Option) (*scribe.Client, error) {
	if key.IsZero() {
		return nil, errors.New("scribetest: DeveloperClient: key is the zero value; pass Developer.Key")
	}
	return s.client(append([]scribe.Option{scribe.WithDeveloperKey(key)}, opts...))
}

// InstallationClient returns a client of the server authorized as installation
// uuid, with tokens minted from key by an auth.TokenSource that reads the
// server's clock (so a FakeClock moves token expiry too), for the /transcripts
// and /users/me operations. opts are applied after the server's own.
//
// The clients the server hands out wait between retries on the server's clock,
// not the wall clock: on a FakeClock a wait moves the clock forward by its
// length, as if that time had passed; on the system clock it lasts a
// thousandth of its length (or the WithWebhookScheduleScale factor). Two
// injected 503s then cost a test milliseconds. Pass scribe.WithRetrySleep(nil)
// among opts for real waits.
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

// TokenSource returns a token source of installation uuid minted from key that
// reads the server's clock, so that a FakeClock given to WithClock moves token
// expiry too. opts follow the clock: an auth.WithClock among them wins. Give
// it to your own client with scribe.WithTokenSource.
func (s *Server) TokenSource(key auth.SecretKey, uuid string, opts ...auth.SourceOption) (*auth.TokenSource, error) {
	return auth.NewTokenSource(key, uuid, append([]auth.SourceOption{auth.WithClock(s.clock.Now)}, opts...)...)
}

// TokenCache returns an auth.Cache of installation tokens minted from key
// whose token sources read the server's clock, for
// scribe.NewInstallationClients in the backend under test. opts follow the
// clock option.
func (s *Server) TokenCache(key auth.SecretKey, opts ...auth.CacheOption) *auth.Cache {
	return auth.NewCache(key, append([]auth.CacheOption{auth.WithSourceOptions(auth.WithClock(s.clock.Now))}, opts...)...)
}

// WebhookVerifier returns a verifier of the deliveries the server sends to
// hook: it holds hook's signing secret and reads the server's clock, so a
// FakeClock given to WithClock needs no wiring of its own on the receiving
// side. opts follow (WithMaxBodyBytes, WithTolerance, ...); a
// webhook.WithClock among them wins. Give it to webhook.NewHandler.
func (s *Server) WebhookVerifier(hook scribe.Webhook, opts ...webhook.VerifierOption) (*webhook.Verifier, error) {
	if hook.SigningSecret.IsZero() {
		return nil, errors.New("scribetest: WebhookVerifier: the webhook has no signing secret; pass the scribe.Webhook that CreateWebhook or the fixtures returned")
	}
	return webhook.NewVerifier(hook.SigningSecret, append([]webhook.VerifierOption{webhook.WithClock(s.clock.Now)}, opts...)...)
}
