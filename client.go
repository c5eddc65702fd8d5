package scribe

import "context"

// TokenSource supplies the bearer token the client sends. Package auth's
// installation token sources implement it; a fixed developer key is wrapped by
// the client itself.
type TokenSource interface {
	// Token returns a token valid for at least the next request.
	Token(ctx context.Context) (string, error)
}

// TokenInvalidator is implemented by token sources that can drop a token the
// service refused. After a 401 the client calls Invalidate with the refused
// token and retries the request once with a fresh one.
type TokenInvalidator interface {
	Invalidate(token string)
}
