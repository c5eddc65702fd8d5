// Package conformance proves that api/openapi.yaml is enough to use the
// service without the Go SDK.
//
// Its subpackage client is generated from the document by oapi-codegen with
// the default configuration (oapi-codegen.yaml sets only the package, the
// output file and "models + client"). The tests of this package drive every
// operation of the document through that generated client against the
// reference server (scribetest, real HTTP on loopback), receive every webhook
// event of the document into the generated event types, and check what comes
// back: statuses, bodies, headers, problem codes and pagination. They import
// neither the SDK's client nor its auth package: tokens are minted with
// golang-jwt as the document's installationJWT scheme describes, and webhook
// signatures are checked with crypto/hmac as its webhook-signature header
// describes.
//
// The benchmarks compare the SDK, the generated client and a bare net/http +
// encoding/json client on the same work (see scripts/bench and
// docs/performance.md).
//
// This is a module of its own (api/conformance/go.mod), so the generator and
// the generated client's runtime never become dependencies of the SDK. Run
// "go generate ./..." here after changing the document; CI regenerates and
// fails when the committed client/client.gen.go differs.
package conformance

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../openapi.yaml
