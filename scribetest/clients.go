package scribetest

import (
	"errors"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// DeveloperClient returns a client of the server authorized with a
// developer's key, for the /plugins operations. opts are applied after the
// server's URL and the key (WithHTTPClient, WithMaxRetries, ...).
func (s *Server) DeveloperClient(key auth.DeveloperKey, opts ...scribe.Option) (*scribe.Client, error) {
	if key.IsZero() {
		return nil, errors.New("scribetest: DeveloperClient: key is the zero value; pass Developer.Key")
	}
	return s.client(append([]scribe.Option{scribe.WithDeveloperKey(key)}, opts...))
}

// InstallationClient returns a client of the server authorized as
// installation uuid, with tokens minted from key by an auth.TokenSource that
// reads the server's clock (so a FakeClock moves token expiry too), for the
// /transcripts and /users/me operations.
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
	return scribe.NewClient(u, opts...)
}
