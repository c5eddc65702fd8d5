package scribe

// The Code constants are the stable machine-readable codes of the service's
// problem documents (docs/errors.md), one for every code it sends; compare
// them with [Error.Code]. New codes may appear: treat an unknown one by its
// status. The reference server in package scribetest answers with these
// constants. Each is declared on its own, so that go doc lists them all.

// CodeInvalidParameter is the code of a 400: a query or path parameter is
// malformed or out of range.
const CodeInvalidParameter = "invalid_parameter"

// CodeValidationFailed is the code of a 400: the request body is not JSON of
// the right shape, or a field is invalid.
const CodeValidationFailed = "validation_failed"

// CodeMissingToken is the code of a 401: no Authorization header.
const CodeMissingToken = "missing_token"

// CodeInvalidToken is the code of a 401: the token is unknown, malformed or
// badly signed.
const CodeInvalidToken = "invalid_token"

// CodeTokenExpired is the code of a 401: the installation JWT has expired.
const CodeTokenExpired = "token_expired"

// CodeInstallationDeleted is the code of a 401: the JWT names an uninstalled
// installation.
const CodeInstallationDeleted = "installation_deleted"

// CodePluginDisabled is the code of a 403: the plugin has been disabled.
const CodePluginDisabled = "plugin_disabled"

// CodeWrongTokenKind is the code of a 403: a developer key where a JWT is
// needed, or the reverse.
const CodeWrongTokenKind = "wrong_token_kind"

// CodePermissionDenied is the code of a 403: the plugin lacks the permission
// the operation needs.
const CodePermissionDenied = "permission_denied"

// CodeNotFound is the code of a 404: no such resource in the caller's scope.
const CodeNotFound = "not_found"

// CodeMethodNotAllowed is the code of a 405.
const CodeMethodNotAllowed = "method_not_allowed"

// CodeIdempotencyKeyReused is the code of a 409: the Idempotency-Key was used
// with another body.
const CodeIdempotencyKeyReused = "idempotency_key_reused"

// CodeIdempotencyKeyInUse is the code of a 409: a request with this
// Idempotency-Key is still running; retry later with the same key.
const CodeIdempotencyKeyInUse = "idempotency_key_in_use"

// CodeRequestTooLarge is the code of a 413: the body exceeds 1 MiB.
const CodeRequestTooLarge = "request_too_large"

// CodeURITooLong is the code of a 414: the request target (path and query)
// exceeds 8 KiB.
const CodeURITooLong = "uri_too_long"

// CodeUnsupportedMediaType is the code of a 415: a POST body that is not
// application/json.
const CodeUnsupportedMediaType = "unsupported_media_type"

// CodeRateLimited is the code of a 429: see Retry-After.
const CodeRateLimited = "rate_limited"

// CodeHeadersTooLarge is the code of a 431: the header fields add up to more
// than 32 KiB.
const CodeHeadersTooLarge = "headers_too_large"

// CodeInternalError is the code of a 500.
const CodeInternalError = "internal_error"

// CodeBadGateway is the code of a 502.
const CodeBadGateway = "bad_gateway"

// CodeServiceUnavailable is the code of a 503.
const CodeServiceUnavailable = "service_unavailable"

// CodeGatewayTimeout is the code of a 504.
const CodeGatewayTimeout = "gateway_timeout"
