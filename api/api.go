// Package api holds the service contract of the Plugin Integration Service as
// an OpenAPI 3.1 document, the project's source of truth for operations,
// tokens, resources, errors, headers and webhook events. The prose explaining
// it is in docs/contract.md, docs/errors.md and docs/pagination.md.
package api

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the contract as an OpenAPI 3.1 YAML document
// (api/openapi.yaml), a copy of its own for each call. The project's tests
// read it from here, without knowing where the source tree is: the traffic
// validator of internal/apitest, which the client's, the reference server's
// and the quickstart's tests send through, checks every request and answer
// against it; this package's tests hold the SDK's types and codes to it; and
// api/conformance drives every operation it declares against the reference
// server. Parse it with an OpenAPI loader, such as
// github.com/getkin/kin-openapi's openapi3.NewLoader().LoadFromData.
func OpenAPI() []byte { return bytes.Clone(openAPI) }
