// h2c check of a running plantstore-mock from node, with its built-in
// http2 module (node 10 and later): concurrent creates multiplexed on one
// prior-knowledge connection, each answered over HTTP/2 and each in the
// journal once.
//
// Usage: node e2e_h2c.mjs BASE_URL API_TOKEN
import http2 from "node:http2";
import assert from "node:assert/strict";

const [url, token] = process.argv.slice(2);
const base = new URL(url);
const prefix = base.pathname.replace(/\/$/, "");
const session = http2.connect(base.origin);
session.on("error", (err) => { console.error(`e2e h2c (node): ${err}`); process.exit(1); });

function request(headers, body) {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    let status;
    const chunks = [];
    stream.on("response", (h) => { status = h[":status"]; });
    stream.on("data", (c) => chunks.push(c));
    stream.on("end", () => resolve({ status, body: Buffer.concat(chunks).toString() }));
    stream.on("error", reject);
    stream.end(body);
  });
}

const n = 10;
const creates = await Promise.all(Array.from({ length: n }, (_, i) => request({
  ":method": "POST", ":path": `${prefix}/plants`,
  authorization: `Bearer ${token}`, "content-type": "application/json",
}, JSON.stringify({ id: 100 + i, name: `Fern ${i}` }))));
for (const [i, r] of creates.entries()) {
  assert.equal(r.status, 200, `create ${i}: ${r.body}`);
  assert.equal(JSON.parse(r.body).name, `Fern ${i}`);
}
const journal = await request({ ":method": "GET", ":path": `${prefix}/__plantstore/requests` });
assert.equal(journal.status, 200);
const ids = JSON.parse(journal.body).filter((r) => r.method === "POST" && r.status === 200)
  .map((r) => JSON.parse(r.body).id).filter((id) => id >= 100).sort((a, b) => a - b);
assert.deepEqual(ids, Array.from({ length: n }, (_, i) => 100 + i), "each create in the journal once");
session.close();
console.log(`e2e h2c (node ${process.version}, http2 module): passed`);
