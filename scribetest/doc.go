// Package scribetest runs the Plugin Integration Service in memory, for
// tests, like net/http/httptest runs an HTTP server: real HTTP on a loopback
// port, every operation and rule of the service contract (authentication with
// developer keys and installation JWTs, scoping, permissions, pagination,
// problem+json errors, idempotency keys), backed by state a test seeds and
// reads back with plain Go calls.
//
// A test starts a server, seeds it, and points a client at it:
//
//	s := scribetest.NewTestServer(t)
//	dev, _ := s.CreateDeveloper(scribetest.UserParams{FirstName: "Ada"})
//	client, _ := s.DeveloperClient(dev.Key)
//
// Seeding calls (CreateDeveloper, CreatePlugin, Install, CreateTranscript,
// CreateWebhook, ...) return the resources with their credentials;
// read-back calls (Plugins, Transcripts, Requests, ...) show what the client
// did. A fixture document (LoadFixtures, WithFixtures, DemoFixtures) sets a
// whole scene up at once.
//
// WithClock and FakeClock control time. InjectFault makes requests fail for
// testing retry code, and WithRateLimit enforces a quota. Every
// installation and transcript change emits its event to the plugin's
// webhooks, signed and delivered at least once on the retry schedule;
// Deliveries, WaitForDeliveries and RequireDelivered tell a test what
// arrived. docs/testing.md is the guide.
//
// # Layout
//
// This package is a thin face over internal packages that each own one
// concern, in layers: httpapi; the services (authn, idempotency, ratelimit,
// faults, reqlog, delivery, fixtures); state; index and clock. A package
// imports only packages below it, one layer's packages never import each
// other, and nothing under internal/ imports this package. docs/design.md
// draws it; TestLayering holds the code to it.
package scribetest
