// A webhook receiver for the Plugin Integration Service in Node, on the
// Standard Webhooks reference library (npm package standardwebhooks). It
// verifies each delivery, processes each event once, and answers with the
// status that makes the service retry exactly when it should.
//
//   npm ci
//   SCRIBE_WEBHOOK_SECRET=whsec_... node server.js [port]
//
// It listens on 127.0.0.1 (port 0, the default, picks a free one) and prints
// "listening on http://127.0.0.1:PORT/hook", the URL to register as the
// webhook's uri. scripts/check-receiver-node checks it with
// "scribe-server check-receiver" (docs/webhooks.md, "Check your receiver").
"use strict";

const http = require("node:http");
const { Webhook, WebhookVerificationError } = require("standardwebhooks");

// The largest event the service sends (docs/contract.md).
const MAX_BODY_BYTES = 4 << 20;

const secret = process.env.SCRIBE_WEBHOOK_SECRET || "";
if (!secret.startsWith("whsec_")) {
  console.error("webhook-receiver-node: set SCRIBE_WEBHOOK_SECRET to the webhook's signing secret (whsec_...)");
  process.exit(2);
}
// verify() checks the signature against the body as received (any of the
// space-separated entries, for a secret rotation) and that webhook-timestamp
// is within 5 minutes of the clock.
const webhook = new Webhook(secret);

// Delivery is at least once: a retry, or a delivery that overlaps one still
// running, carries the same webhook-id. So process each id once, answer 2xx
// to a duplicate (a 5xx would make the service retry it for a day), and 409
// with Retry-After while the id is being processed. These sets live in one
// process; several replicas need a store they share (Redis, or a table keyed
// by the id), keeping ids longer than the service retries (30 hours).
const processed = new Set();
const inFlight = new Set();

// handle is the plugin's work. It acknowledges the event types it does not
// know: the service may add types at any time.
async function handle(event) {
  switch (event.type) {
    case "installation.created":
    case "installation.deleted":
      console.log(`${event.type} ${event.id} installation ${event.data.uuid}`);
      break;
    case "transcript.created":
    case "transcript.updated":
      console.log(`${event.type} ${event.id} transcript ${event.data.id}: ${JSON.stringify(event.data.headline)}`);
      break;
    default:
      console.log(`${event.type} ${event.id} (not handled)`);
  }
}

function reply(res, status, text, headers = {}) {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers });
  res.end(text + "\n");
}

// readBody reads the whole body, as bytes; it fails with a RangeError
// beyond limit bytes.
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => (size <= limit ? resolve(Buffer.concat(chunks)) : reject(new RangeError("body too large"))));
    req.on("error", reject);
  });
}

async function receive(req, res) {
  if (req.url !== "/hook") return reply(res, 404, "not found");
  if (req.method !== "POST") return reply(res, 405, "webhook deliveries are POST requests", { Allow: "POST" });
  let body;
  try {
    body = await readBody(req, MAX_BODY_BYTES);
  } catch (err) {
    return reply(res, err instanceof RangeError ? 413 : 400, "cannot read the body");
  }
  let event;
  try {
    event = webhook.verify(body, req.headers); // the bytes as received: never re-encoded JSON
  } catch (err) {
    // Refusals are 4xx: a 5xx would make the service retry what can never pass.
    return reply(res, err instanceof WebhookVerificationError ? 401 : 400, `refused: ${err.message}`);
  }
  if (typeof event?.type !== "string") return reply(res, 400, "refused: the body is not an event");
  const id = req.headers["webhook-id"];
  if (processed.has(id)) return reply(res, 200, "duplicate: event already processed");
  if (inFlight.has(id)) {
    return reply(res, 409, "another delivery of this event is being processed; retry later", { "Retry-After": "5" });
  }
  inFlight.add(id);
  try {
    await handle(event);
    processed.add(id);
    reply(res, 200, "ok");
  } catch (err) {
    console.error(`${event.type} ${id} failed: ${err.message}`);
    reply(res, 500, "the event handler failed; retry later"); // the service retries; the id was not marked
  } finally {
    inFlight.delete(id);
  }
}

const server = http.createServer((req, res) => {
  receive(req, res).catch((err) => {
    console.error(`webhook-receiver-node: ${err.message}`);
    if (!res.headersSent) reply(res, 500, "internal error");
  });
});
server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/hook`);
});
