package scribe

import (
	"github.com/scribehq/scribe-go/auth"
)

// The three secrets are declared in package auth, and a response decodes
// each straight into its type, so no caller re-parses Reveal():
// PluginSecretKey.Value is an auth.SecretKey (for auth.NewCache,
// auth.NewTokenSource or NewInstallationClient), Webhook.SigningSecret an
// auth.WebhookSecret (for webhook.NewVerifier), and WithDeveloperKey takes
// an auth.DeveloperKey.

// WithDeveloperKey authorizes requests with a developer key (the operations
// on /plugins), as auth.ParseDeveloperKey or scribetest hands it out. It
// replaces any credential given before it. The zero key is an
// *ArgumentError from NewClient or WithOptions. It configures a client: a
// call refuses it.
//
// A key read from the environment is parsed first, which says what is
// wrong with a malformed one without quoting it:
//
//	key, err := auth.ParseDeveloperKey(os.Getenv("SCRIBE_DEVELOPER_KEY"))
func WithDeveloperKey(key auth.DeveloperKey) Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithDeveloperKey"); err != nil {
			return err
		}
		if key.IsZero() {
			return &ArgumentError{Func: "WithDeveloperKey", Arg: "key", Reason: "is the zero auth.DeveloperKey; pass the developer key (dk_live_...) the platform issued, parsed with auth.ParseDeveloperKey"}
		}
		s.credential = &developerKey{key}
		return nil
	}}
}
