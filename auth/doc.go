// Package auth handles the credentials of the Plugin Integration Service:
// plugin secret keys and developer keys that never print, installation JWTs
// (minting and verification), token sources that cache a JWT and refresh it
// ahead of expiry, and a bounded cache of token sources for a backend serving
// many installations.
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
// Servers, such as the reference server in package scribetest, check tokens
// with a Verifier.
//
// Package auth imports nothing of this module but internal packages, so that
// package scribe can build on it.
package auth
