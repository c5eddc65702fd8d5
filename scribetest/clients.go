package scribetest

import (
	"errors"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// DeveloperClient returns a client of the server authorized with a developer's
// key, for the /plugins operations. opts are applied after the server's URL,
// the key and the short retry waits of the server's clients (see
// InstallationClient).
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
// The clients the server hands out back off between retries for 1 to 10 ms
// (scribe.WithRetryWait(time.Millisecond, 10*time.Millisecond)) instead of
// the SDK's 500 ms to 8 s, so that two injected 503s cost a test
// milliseconds; they wait in real time and never move the server's clock.
// A Retry-After the server sends is honoured as sent, as by any client
// (docs/testing.md, "Injected failures cost no real time"). Pass
// scribe.WithRetryWait among opts for other waits. They decode strictly
// (scribe.WithStrictDecoding): an answer short of a member of the
// contract fails the test instead of reading as the zero value.
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
	// Back off 1 to 10 ms between retries (InstallationClient), and read
	// every answer strictly: our own server must send every member.
	return scribe.NewClient(u, append([]scribe.Option{scribe.WithRetryWait(time.Millisecond, 10*time.Millisecond), scribe.WithStrictDecoding()}, opts...)...)
}

// Clock returns the clock the server reads (WithClock's, or the system's).
func (s *Server) Clock() auth.Clock { return s.cfg.clock }

// TokenSource returns a token source of installation uuid minted from key that
// reads the server's clock, so that a FakeClock given to WithClock moves token
// expiry too. opts follow the clock: an auth.WithClock among them wins. Give
// it to your own client with scribe.WithTokenSource.
func (s *Server) TokenSource(key auth.SecretKey, uuid string, opts ...auth.SourceOption) (*auth.TokenSource, error) {
	return auth.NewTokenSource(key, uuid, append([]auth.SourceOption{auth.WithClock(s.cfg.clock)}, opts...)...)
}

// TokenCache returns an auth.Cache of installation tokens minted from key
// whose token sources read the server's clock, for
// scribe.NewInstallationClients in the backend under test. opts follow the
// clock option; a zero key or a bad option is auth.NewCache's error.
func (s *Server) TokenCache(key auth.SecretKey, opts ...auth.CacheOption) (*auth.Cache, error) {
	return auth.NewCache(key, append([]auth.CacheOption{auth.WithSourceOptions(auth.WithClock(s.cfg.clock))}, opts...)...)
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
	return webhook.NewVerifier(hook.SigningSecret, append([]webhook.VerifierOption{webhook.WithClock(s.cfg.clock)}, opts...)...)
}
