/**
 * A bundle's chain spans checked in the browser (docs/bundle.md, step 4), ported from
 * `arborist/_bundles/chain.py`: each event hashed onto the one before it up to the span's
 * head, and the first event whose hash does not begin as its tag (the first six base64url
 * characters of its hash: a locator, not a proof) named by the turn, record or document it
 * records; the events after it cannot be checked. Also the base64url digests' decoding.
 *
 * @module bundle_chain
 */

import { EVENT_HASH_FIELDS, canonicalJson, concatBytes, toHex } from "./hashing.js";
import { sha256Sync } from "./sha256.js";

// The hash rules' digests as the bundle spells them (base64url, docs/bundle.md).
const B64 = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const B64_DIGITS = new Uint8Array(128);
[..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"].forEach((c, i) => {
  B64_DIGITS[c.charCodeAt(0)] = i;
});
/**
 * The 32 bytes a base64url digest of the bundle spells (43 characters, no padding, the
 * last one's spare bits zero: each digest has one spelling); anything else is refused.
 *
 * @param {unknown} text
 * @returns {Uint8Array}
 */
export function fromB64(text) {
  if (typeof text !== "string" || !B64.test(text)) throw new TypeError("a hash is not 43 characters of base64url");
  const out = new Uint8Array(32);
  let at = 0;
  for (let i = 0; i < 40; i += 4) {
    const n = (B64_DIGITS[text.charCodeAt(i)] << 18) | (B64_DIGITS[text.charCodeAt(i + 1)] << 12) | (B64_DIGITS[text.charCodeAt(i + 2)] << 6) | B64_DIGITS[text.charCodeAt(i + 3)];
    out[at++] = n >> 16;
    out[at++] = (n >> 8) & 0xff;
    out[at++] = n & 0xff;
  }
  const n = (B64_DIGITS[text.charCodeAt(40)] << 12) | (B64_DIGITS[text.charCodeAt(41)] << 6) | B64_DIGITS[text.charCodeAt(42)];
  out[30] = n >> 10;
  out[31] = (n >> 2) & 0xff;
  return out;
}
const list = (value) => (Array.isArray(value) ? value : []);
const eventBytes = (event, body) =>
  canonicalJson(Object.fromEntries(EVENT_HASH_FIELDS.map((n) => [n, n === "body" ? body : event[n]])));

/**
 * Who each event of the spans belongs to, by chain and seq: the turn it records (its
 * node_insert, its session's event, its label events), the record (its cache_write), the
 * document (its document_add), as `[kind, id]`.
 */
export function eventOwners(bundle, sessions) {
  const owners = { sessions: new Map(), store: new Map() };
  const turns = new Set(list(bundle.turns).map((t) => t?.bates));
  for (const [seq, event] of sessions) {
    if (event?.event_type === "label" && turns.has(event.bates)) owners.sessions.set(seq, ["turn", event.bates]);
  }
  for (const turn of list(bundle.turns)) owners.sessions.set(turn?.event_seq, ["turn", turn?.bates]);
  for (const record of list(bundle.records)) owners.store.set(record?.event_seq, ["record", `${record?.cache_key} ${record?.revision}`]);
  for (const doc of list(bundle.documents)) owners.store.set(doc?.event_seq, ["document", doc?.source_root]);
  return owners;
}

// An event's tag: the first six base64url characters of its hash (docs/bundle.md).
const B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const tagOf = (d) =>
  [d[0] >> 2, ((d[0] & 3) << 4) | (d[1] >> 4), ((d[1] & 15) << 2) | (d[2] >> 6), d[2] & 63, d[3] >> 2, ((d[3] & 3) << 4) | (d[4] >> 4)]
    .map((i) => B64_ALPHABET[i])
    .join("");

/**
 * A chain's span: consecutive seqs, each event hashed onto the one before it, the last
 * hash the head's. The first event whose hash does not begin as its tag is the chain's
 * break: a problem of what it records (its turn, record or document; else of the event),
 * carrying `breaks: {chain, seq}`; the events after it cannot be checked.
 */
export function chainProblems(name, chain, built, owners, problems) {
  const events = chain.events;
  if (!Array.isArray(events)) throw new TypeError("its events are not a list");
  const prev = chain.prev_event_hash;
  if (!events.length) return chain.head === null && prev === null ? [] : ["a head but no event leads to it"];
  const found = [];
  if ((events[0].seq === 1) !== (prev === null)) found.push(`seq ${events[0].seq}: its prev_event_hash does not fit its seq`);
  let digest = prev === null ? new Uint8Array(0) : fromB64(prev);
  let before = null;
  let differs = null;
  for (const event of events) {
    if (before !== null && event.seq !== before + 1) found.push(`seq ${event.seq} follows seq ${before}: the span has a gap`);
    let body = null;
    if ("body" in event) body = event.body;
    else if (built.has(event.seq)) body = built.get(event.seq);
    // an event a turn or record owns has no body only when that item's own check failed
    else if (!owners.has(event.seq)) found.push(`seq ${event.seq}: no turn or record of the bundle rebuilds its body`);
    digest = sha256Sync(concatBytes(digest, eventBytes(event, body)));
    if (differs === null && tagOf(digest) !== event.tag) differs = event;
    before = event.seq;
  }
  const head = chain.head;
  if (differs !== null) {
    const [kind, id] = owners.get(differs.seq) ?? ["event", `${name} ${differs.seq}`];
    problems.add(
      kind,
      id,
      `its ${differs.event_type} event (${name}.db seq ${differs.seq}) differs from what the bundle committed (its hash is not its tag): the chain first differs there, and its events after it cannot be checked`,
      { breaks: { chain: name, seq: differs.seq } },
    );
  } else if (head === null || head.seq !== before || toHex(fromB64(head.event_hash)) !== toHex(digest)) {
    found.push("its events do not hash to its head (each event hashes to its tag: the head, or the tags with the events, was changed)");
  }
  return found;
}
