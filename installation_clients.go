package scribe

import (
	"errors"
	"strings"

	"github.com/scribehq/scribe-go/auth"
)

// NewInstallationClient returns a client that acts for one installation of a
// plugin, for the operations that take an installation JWT (GET /transcripts,
// GET /transcripts/{id}, GET /users/me). It mints the JWT from key with
// package auth, reuses it until shortly before its one-hour expiry, refreshes
// it ahead of time, and after a 401 retries the request once with a fresh
// token. opts are the options of NewClient; a credential among them is
// replaced by the installation's token source. Errors are *ArgumentError
// values; a key or uuid that package auth refuses is one whose Err is auth's
// error (matching auth.ErrInvalidKey or auth.ErrInvalidInstallationUUID).
func NewInstallationClient(baseURL string, key auth.SecretKey, installationUUID string, opts ...Option) (*Client, error) {
	ts, err := auth.NewTokenSource(key, installationUUID)
	if err != nil {
		return nil, authArgumentError("NewInstallationClient", "key", err)
	}
	return NewClient(baseURL, append(opts[:len(opts):len(opts)], WithTokenSource(ts))...)
}

// authArgumentError is the *ArgumentError of fn for err, an error of package
// auth refusing the installation uuid or the secret key (held by keyArg).
func authArgumentError(fn, keyArg string, err error) *ArgumentError {
	arg := keyArg
	if errors.Is(err, auth.ErrInvalidInstallationUUID) {
		arg = "installationUUID"
	}
	return &ArgumentError{Func: fn, Arg: arg, Reason: strings.TrimPrefix(err.Error(), "auth: "), Err: err}
}

// InstallationClients hands out clients scoped to the installations of one
// plugin, for a backend that acts for many users. Every client it returns
// shares one HTTP transport (and so one connection pool) and one bounded
// [auth.Cache] of installation tokens; a backend keeps one InstallationClients
// per plugin for its lifetime. It is safe for concurrent use.
type InstallationClients struct {
	base  *Client
	cache *auth.Cache
}

// NewInstallationClients returns an InstallationClients whose clients send
// their requests to baseURL with the tokens of cache, which holds the
// plugin's secret key (auth.NewCache(key)). opts are the options of
// NewClient, shared by every client handed out; give WithHTTPClient here to
// choose the transport they share.
func NewInstallationClients(baseURL string, cache *auth.Cache, opts ...Option) (*InstallationClients, error) {
	if cache == nil {
		return nil, &ArgumentError{Func: "NewInstallationClients", Arg: "cache", Reason: "is nil; pass auth.NewCache(secretKey)"}
	}
	base, err := NewClient(baseURL, opts...)
	if err != nil {
		return nil, err
	}
	return &InstallationClients{base: base, cache: cache}, nil
}

// For returns a client scoped to the installation with the given uuid. It is
// cheap: the client shares the transport and takes its token source from the
// cache, so calling For on every request is fine. An invalid uuid, or a cache
// whose key package auth refuses, is an *ArgumentError whose Err is auth's
// error (matching auth.ErrInvalidInstallationUUID or auth.ErrInvalidKey).
func (ic *InstallationClients) For(installationUUID string) (*Client, error) {
	src, err := ic.cache.Source(installationUUID)
	if err != nil {
		return nil, authArgumentError("InstallationClients.For", "cache", err)
	}
	return ic.base.WithOptions(WithTokenSource(src))
}

// Forget drops the cached token source, and with it the cached token, of the
// installation with the given uuid: call it when the installation is gone,
// typically on its installation.deleted webhook event, so that the cache
// neither keeps nor reuses its token. A client For returned earlier keeps
// working (its requests then fail with the service's 401
// installation_deleted); a later For starts afresh. An uuid the cache does
// not hold is ignored.
func (ic *InstallationClients) Forget(installationUUID string) {
	ic.cache.Remove(installationUUID)
}
