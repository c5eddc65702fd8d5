// Package api holds the service contract of the Plugin Integration Service as
// an OpenAPI 3.1 document, the project's source of truth for operations,
// tokens, resources, errors, headers and webhook events.
//
// The document is embedded so that tests (see internal/apitest) and the
// reference server binary can use it without knowing where the source tree
// is. The prose explaining its decisions is in docs/contract.md,
// docs/errors.md and docs/pagination.md.
package api

import _ "embed"

// OpenAPI is the contract as an OpenAPI 3.1 YAML document (api/openapi.yaml).
// Callers must not modify it; parse it with an OpenAPI loader, such as
// github.com/getkin/kin-openapi's openapi3.NewLoader().LoadFromData.
//
//go:embed openapi.yaml
var OpenAPI []byte
