// Package scribe is a Go client for the Plugin Integration Service of the
// voice-transcription platform (interface version 1.0.0).
//
// A plugin developer uses two kinds of credential:
//
//   - a Developer Key, for managing the developer's own plugins, their secret
//     keys, installations and webhooks (GET/POST /plugins...);
//   - an installation JWT, minted from a plugin's ask_live_ secret key by
//     package auth, for reading one installed user's transcripts
//     (GET /transcripts, GET /users/me).
//
// Every list operation returns a [Pager]: range over [Pager.All] to walk every
// item across pages, or call [Pager.Next] to page by hand. Errors from the
// service are [*Error] values carrying the RFC 9457 problem fields, the stable
// code and the request id; [errors.Is] matches them against [ErrNotFound],
// [ErrUnauthorized], [ErrForbidden] and [ErrRateLimited].
//
// [Client.Do] sends an operation the client has no method for, with the same
// credential, retries and errors. [WithMiddleware] runs code around every
// attempt and [WithOperationHook] around every operation, each told the
// [Operation] (method name, path template, attempt): the seams for logging,
// metrics and tracing.
//
// Package scribetest runs the whole service in memory for tests, and package
// webhook verifies and decodes the events the service delivers.
package scribe
