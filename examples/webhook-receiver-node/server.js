// A webhook receiver for the Plugin Integration Service in Node, on the
// Standard Webhooks reference library (npm package standardwebhooks). It
// verifies each delivery, processes each event once, calls the service back
// for the user and the transcript an event names, and answers with the
// status that makes the service retry exactly when it should.
//
//   npm ci
//   SCRIBE_WEBHOOK_SECRET=whsec_... \
//   SCRIBE_API_URL=http://127.0.0.1:8080 SCRIBE_SECRET_KEY=ask_live_... \
//   node server.js [port]
//
// It listens on 127.0.0.1 (port 0, the default, picks a free one) and prints
// "listening on http://127.0.0.1:PORT/hook", the URL to register as the
// webhook's uri. With SCRIBE_API_URL (the service's base URL, base path
// included) and SCRIBE_SECRET_KEY (the plugin's secret key), it fetches
// GET /users/me for an installation.created and GET /transcripts/{id} for a
// transcript event, with an installation JWT it mints (docs/auth.md);
// without them it only logs. SCRIBE_EVENTS (comma-separated) limits the event
// types it acts on, as a plugin that cares about new transcripts alone
// (SCRIBE_EVENTS=transcript.created); the others are acknowledged. To see
// "scribe-server check-receiver -server" fail a receiver that processes an
// event twice, SCRIBE_DEDUPE=off turns the dedupe off, and two of these
// behind round-robin-proxy.js are replicas that each dedupe in their own
// memory. scripts/check-receiver-node runs the check on each, with and
// without -server (docs/webhooks.md, "Check your receiver").
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
const apiURL = (process.env.SCRIBE_API_URL || "").replace(/\/+$/, "");
const secretKey = process.env.SCRIBE_SECRET_KEY || "";
if (Boolean(apiURL) !== Boolean(secretKey) || (secretKey && !secretKey.startsWith("ask_live_"))) {
  console.error("webhook-receiver-node: set both SCRIBE_API_URL and SCRIBE_SECRET_KEY (the plugin's ask_live_ key), or neither");
  process.exit(2);
}
const dedupe = process.env.SCRIBE_DEDUPE !== "off";
const acts = (process.env.SCRIBE_EVENTS || "installation.created,installation.deleted,transcript.created,transcript.updated").split(",");

// verify() checks the signature against the body as received (any of the
// space-separated entries, for a secret rotation) and that webhook-timestamp
// is within 5 minutes of the clock.
const webhook = new Webhook(secret);

// An installation JWT (docs/contract.md, "Tokens"): HS256 over the UTF-8
// bytes of the plugin's secret key, with iat, exp = iat + 3600 and
// plugin_installation_uuid, signed by jose (npm package jose). Each is
// reused until a minute before it expires.
const jose = import("jose"); // an ES module, loaded once
const tokens = new Map(); // installation uuid -> { token, exp }

async function installationToken(uuid) {
  const now = Math.floor(Date.now() / 1000);
  const cached = tokens.get(uuid);
  if (cached && cached.exp - 60 > now) return cached.token;
  const { SignJWT } = await jose;
  const exp = now + 3600;
  const token = await new SignJWT({ plugin_installation_uuid: uuid })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secretKey));
  tokens.set(uuid, { token, exp });
  return token;
}

// InstallationDeleted is thrown when the service answers 401
// installation_deleted: the user uninstalled the plugin.
class InstallationDeleted extends Error {}

// call sends GET path for the installation and returns the JSON answer.
async function call(uuid, path) {
  const res = await fetch(apiURL + path, {
    headers: { Authorization: `Bearer ${await installationToken(uuid)}`, Accept: "application/json" },
    signal: AbortSignal.timeout(10_000), // well within the service's 15 s for the whole delivery
  });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401 && body.code === "installation_deleted") throw new InstallationDeleted(body.detail);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${body.code || ""} ${body.detail || ""}`.trim());
  return body;
}

// handle is the plugin's work. It acknowledges the event types it does not
// know: the service may add types at any time.
async function handle(event) {
  const uuid = event.plugin_installation_uuid;
  try {
    switch (acts.includes(event.type) ? event.type : "") {
      case "installation.created": {
        const me = apiURL ? await call(uuid, "/users/me") : event.data;
        console.log(`${event.type} ${event.id} installation ${uuid}: ${me.first_name} ${me.last_name}`);
        break;
      }
      case "installation.deleted":
        tokens.delete(uuid); // forget the installation: no call for it will succeed again
        console.log(`${event.type} ${event.id} installation ${uuid}`);
        break;
      case "transcript.created":
      case "transcript.updated": {
        const t = apiURL ? await call(uuid, `/transcripts/${event.data.id}`) : event.data;
        console.log(`${event.type} ${event.id} transcript ${t.id}: ${JSON.stringify(t.headline)}`);
        break;
      }
      default:
        console.log(`${event.type} ${event.id} (not handled)`);
    }
  } catch (err) {
    if (!(err instanceof InstallationDeleted)) throw err;
    // Uninstalled since the event was sent: nothing to do, and a retry would
    // get the same answer, so acknowledge the event (2xx) and forget it.
    tokens.delete(uuid);
    console.log(`${event.type} ${event.id}: installation ${uuid} was uninstalled; acknowledged`);
  }
}

// Delivery is at least once: a retry, or a delivery that overlaps one still
// running, carries the same webhook-id. So process each id once, answer 2xx
// to a duplicate (a 5xx would make the service retry it for a day), and 409
// with Retry-After while the id is being processed. These sets live in one
// process; several replicas need a store they share (Redis, or a table keyed
// by the id), keeping ids longer than the service retries (30 hours).
const processed = new Set();
const inFlight = new Set();

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
  const id = req.headers["webhook-id"];
  if (typeof event?.type !== "string") return reply(res, 400, "refused: the body is not an event");
  if (event.id !== id) return reply(res, 400, "refused: the body's id differs from webhook-id");
  if (dedupe && processed.has(id)) return reply(res, 200, "duplicate: event already processed");
  if (dedupe && inFlight.has(id)) {
    return reply(res, 409, "another delivery of this event is being processed; retry later", { "Retry-After": "5" });
  }
  inFlight.add(id);
  try {
    await handle(event);
    processed.add(id);
    reply(res, 200, "ok");
  } catch (err) {
    console.error(`${event.type} ${id} failed: ${err.message}`);
    reply(res, 500, `the event handler failed; retry later: ${err.message}`); // the service retries; the id was not marked
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
