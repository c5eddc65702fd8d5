// A round-robin load balancer in front of replicas of a webhook receiver, as
// a deployment runs them: each request goes to the next replica in turn, and
// the answer says which one answered (X-Backend). With replicas of
// server.js, each deduping in its own memory, a redelivery or a duplicate
// that reaches another replica is processed again:
// scripts/check-receiver-node shows "scribe-server check-receiver -server"
// failing them.
//
//   node round-robin-proxy.js PORT http://127.0.0.1:9001 http://127.0.0.1:9002
//
// It listens on 127.0.0.1 (port 0 picks a free one) and prints
// "listening on http://127.0.0.1:PORT/hook".
"use strict";

const http = require("node:http");

const [port, ...replicas] = process.argv.slice(2);
if (replicas.length === 0) {
  console.error("round-robin-proxy: give a port and the URLs of the replicas");
  process.exit(2);
}
let next = 0;

const server = http.createServer((req, res) => {
  const n = next++ % replicas.length;
  const forward = http.request(new URL(req.url, replicas[n]), { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode, { ...answer.headers, "x-backend": `replica-${n + 1}` });
    answer.pipe(res);
  });
  forward.on("error", (err) => {
    if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain; charset=utf-8", "X-Backend": `replica-${n + 1}` });
    res.end(`replica ${n + 1} did not answer: ${err.message}\n`);
  });
  req.pipe(forward);
});
server.listen(Number(port || 0), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/hook`);
});
