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
//	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
//	client, _ := s.DeveloperClient(dev.Key)
//
// Seeding calls (CreateUser, CreateDeveloper, CreatePlugin, CreateSecretKey,
// Install, Uninstall, CreateTranscript, UpdateTranscript, CreateWebhook,
// DeleteUser, ...) return the created resources with their credentials;
// read-back calls (Plugins, Installations, Transcripts, SecretKeys, Webhooks,
// Requests, Events) show what the client did. A fixture document (LoadFixtures, WithFixtures) sets a
// whole scene up at once, with ids and keys known in advance; DemoFixtures is
// the built-in demo set that cmd/scribe-server loads by default.
// ExportFixtures writes the state as such a document, Reset returns to the
// state the server started with, and WithStateDir keeps the state in a
// directory, so that it outlives the process.
//
// WithClock and FakeClock control time: token expiry, the timestamps of new
// resources, the 24-hour life of idempotency keys, rate-limit windows and
// webhook retries follow the clock, which moves only when the test moves it
// (Advance, or the waits of WaitForDeliveries, RequireDelivered, Shutdown).
// The clients the server hands out retry after waits of 1 to 10 ms of their
// own and never move it.
// WithBasePath serves the operations under a prefix such as /v1.
//
// For testing retry code, InjectFault makes the next requests fail (a status,
// Retry-After, a dropped connection or a delay) before they are authenticated
// or performed, and PendingFaults and FiredFaults report what waits and what
// fired; WithRateLimit (SetRateLimit on a running server) enforces a
// per-credential quota with 429 and Retry-After.
//
// Every installation and transcript change emits its event
// (docs/contract.md, "Events and webhooks") to the plugin's webhooks:
// signed with the Standard Webhooks scheme (package webhook verifies it),
// delivered at least once on the retry schedule (WithWebhookSchedule,
// WithWebhookScheduleScale shorten it for tests), each attempt recorded in
// Deliveries; WaitForDeliveries, RequireDelivered and PendingDeliveries tell
// a test what has arrived, and Shutdown drains what is pending. Trigger
// makes events happen on demand.
//
// Package devserver serves a Server with an HTTP admin API and a dashboard,
// as cmd/scribe-server does, for tests in other languages and for people.
//
// docs/server.md and docs/testing.md in the repository are the guides.
package scribetest
