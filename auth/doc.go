// Package auth holds the credentials of the Plugin Integration Service: the
// three secrets, which never print (a plugin's secret key, a developer key,
// a webhook's signing secret); installation JWTs, minted from the secret
// key; token sources that cache a JWT and refresh it ahead of expiry; and a
// bounded cache of token sources for a backend serving many installations.
//
// A plugin backend holds its plugin's secret key ("ask_live_...") and, for
// each installation it acts for, a TokenSource:
//
//	key, err := auth.ParseSecretKey(os.Getenv("SCRIBE_SECRET_KEY"))
//	...
//	ts, err := auth.NewTokenSource(key, installationUUID)
//	...
//	token, err := ts.Token(ctx) // cached; minted again shortly before expiry
//
// A TokenSource satisfies scribe.TokenSource and scribe.TokenInvalidator.
// The service issues the keys (POST /plugins/{id}/secret_keys) and
// verifies the tokens; in tests, package scribetest does both.
//
// Package auth imports nothing of this module but internal packages, so that
// package scribe can build on it.
package auth
