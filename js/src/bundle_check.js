/**
 * A bundle (docs/bundle.md) checked in the browser: steps 2-7 of "What a reader
 * checks", and of step 1 each turn's shape and time and the turns' order (turn_shape.js,
 * turn_order.js), ported from `arborist/_bundles/check.py` onto the hash port
 * (hashing.js) and the synchronous SHA-256 (sha256.js). Every failure is one problem naming the item it
 * belongs to (`turn BATES`, `record KEY REVISION`, `chunk ROOT INDEX`,
 * `document ROOT`, `session SID`, a chain), and {@link turnVerdicts} gives each
 * turn the problems of everything it stands on: its own, its records', their
 * chunks' and documents', and the chains'.
 *
 * An item whose fields are not of their types fails as that item (its check
 * throws, the throw is its problem): the page never stops at the first bad
 * entry.
 *
 * @module bundle_check
 */

import {
  CACHE_KEY_DIMENSIONS,
  COMBINE_PREFIX,
  LEAF_PREFIX,
  NODE_HASH_FIELDS,
  canonicalJson,
  compareCodePoints,
  concatBytes,
  normalizeQuestion,
  toHex,
  utf8,
} from "./hashing.js";
import { chainProblems, eventOwners, fromB64 } from "./bundle_chain.js";
import { sha256Sync } from "./sha256.js";
import { orderProblems } from "./turn_order.js";
import { bundleTurnProblems } from "./turn_shape.js";

export { fromB64 };

/** The format a bundle names. */
export const BUNDLE_FORMAT = "arborist-bundle/3";

/** The formats this page names when it refuses them (docs/bundle.md says why). */
const OLDER = { "arborist-bundle/1": "format 1", "arborist-bundle/2": "format 2" };

/** The members that carry what records' hashed dimensions describe, with that dimension. */
const DESCRIBED = [
  ["profiles", "model_profile_hash", "profile"],
  ["policies", "governance_policy_hash", "policy"],
];

/** The reason a superseded record is stale (arborist/_store/cache/records.py). */
export const SUPERSEDED_REASON = "superseded by a fresh answer (--no-cache)";

const BATES = /^([0-9]{8}T[0-9]{6}Z-[0-9a-f]{6})-([0-9]{6})$/;

/**
 * The canonical JSON text of a parsed value, as hashing.js's canonicalJson writes it
 * (keys in code point order, no spacing, strings as Python's encoder writes them, which
 * is JSON.stringify's for every well-formed string), built in one pass for a whole
 * bundle. A string with a lone surrogate comes out escaped here; the hashes refuse it.
 *
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalText(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isSafeInteger(value)) throw new RangeError(`it holds the number ${value}`);
      return String(value);
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(value[key])}`).join(",")}}`;
}

/**
 * `[sid, seq]` of a bates number, or null.
 *
 * @param {unknown} bates
 * @returns {[string, number]|null}
 */
export function parseBates(bates) {
  const m = typeof bates === "string" ? BATES.exec(bates) : null;
  return m ? [m[1], Number(m[2])] : null;
}

/**
 * The text of a bundle embedded in a page: its canonical JSON with every `<`
 * written `\u003c`, so that nothing in it can close the script element.
 *
 * @param {string} canonical
 * @returns {string}
 */
export function embedText(canonical) {
  return canonical.replace(/</g, "\\u003c");
}

/**
 * Read a bundle from its embedded text: the value, its bytes (what `export
 * --bundle` wrote), and the form problem (null when the text is exactly the
 * embedding of the canonical JSON of what it parses to).
 *
 * @param {string} text
 * @returns {{bundle: any, bytes: Uint8Array|null, problem: string|null}}
 */
export function readEmbedded(text) {
  let bundle;
  try {
    bundle = JSON.parse(text);
  } catch (error) {
    return { bundle: null, bytes: null, problem: `the bundle is not JSON: ${error.message}` };
  }
  if (bundle !== null && typeof bundle === "object" && Object.hasOwn(OLDER, bundle.format)) {
    return { bundle: null, bytes: null, problem: `this bundle is ${OLDER[bundle.format]} (${bundle.format}), which this page does not read: re-export it` };
  }
  if (bundle === null || typeof bundle !== "object" || bundle.format !== BUNDLE_FORMAT) {
    return { bundle: null, bytes: null, problem: `not an ${BUNDLE_FORMAT} bundle` };
  }
  let canonical;
  try {
    canonical = canonicalText(bundle);
  } catch (error) {
    return { bundle, bytes: null, problem: `the bundle is not canonical JSON: ${error.message}` };
  }
  const bytes = new TextEncoder().encode(canonical);
  const same = embedText(canonical) === text;
  return {
    bundle,
    bytes,
    problem: same
      ? null
      : "the bundle is not canonical JSON (sorted keys, no spacing, each value written one way, no key twice): its bytes were changed",
  };
}

// The hash rules of hashing.js (docs/design.md section 2), over the synchronous digest:
// the same bytes hashed, without a promise per digest (sha256.js says why).
/** The 64-digit hex of a base64url digest ("" stays ""). */
export const b64Hex = (text) => (text === "" ? "" : toHex(fromB64(text)));
const hexOf = (bytes) => toHex(sha256Sync(bytes));
const fieldsHash = (source, names) =>
  hexOf(canonicalJson(Object.fromEntries(names.map((name) => [name, source[name]]))));
const leafHash = (bytes) => sha256Sync(concatBytes(Uint8Array.of(LEAF_PREFIX), bytes));
const combine = (left, right) => {
  if (left.length !== 32 || right.length !== 32) throw new TypeError("a digest is not 32 bytes");
  return sha256Sync(concatBytes(Uint8Array.of(COMBINE_PREFIX), left, right));
};
const nodeHash = (fields) => fieldsHash(fields, NODE_HASH_FIELDS);
const cacheKey = (dimensions) => fieldsHash(dimensions, CACHE_KEY_DIMENSIONS);
const questionHash = (question) => hexOf(utf8(normalizeQuestion(question)));
const sha256Hex = hexOf;

const list = (value) => (Array.isArray(value) ? value : []);
const answerHash = (text) => sha256Hex(utf8(text));
// How a turn's cited titles are stored and hashed: Python's json.dumps(titles, ensure_ascii=False).
const titlesJson = (titles) => `[${titles.map((t) => JSON.stringify(t)).join(", ")}]`;
const short = (b64) => {
  try {
    return `${b64Hex(b64).slice(0, 12)}…`;
  } catch {
    return `${String(b64).slice(0, 12)}…`;
  }
};
const HASHED_DIMENSIONS = ["model_profile_hash", "conversation_hash", "governance_policy_hash"];

/**
 * Whether two JSON values are equal (as Python's `==` on parsed JSON).
 *
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** One problem: the item it names (`kind` and `id`) and what failed. */
class Problems {
  constructor() {
    /** @type {{kind: string, id: string, text: string}[]} */
    this.list = [];
  }

  add(kind, id, text, extra = {}) {
    this.list.push({ kind, id, text, ...extra });
  }

  /** Run one item's check; a throw is that item's problem. */
  each(kind, id, check) {
    try {
      for (const text of check()) this.add(kind, id, text);
    } catch (error) {
      this.add(kind, id, `its fields are not of their types (${error?.message ?? error})`);
    }
  }
}

/**
 * What the check recomputed, for the page to show: each turn's node hash (by bates), each
 * record's record hash and evidence root (by `cache_key revision`), in hex; each chunk's
 * leaf (by `source_root chunk_index`), as bytes.
 *
 * @typedef {{nodes: Map<string, string>, records: Map<string, {recordHash: string, evidenceRoot: string}>, leaves?: Map<string, Uint8Array>}} Derived
 */

/**
 * Check a parsed bundle: steps 2-7 of docs/bundle.md. Never throws.
 *
 * @param {any} bundle
 * @param {Derived} [derived] filled with what was recomputed
 * @returns {Promise<{kind: string, id: string, text: string}[]>}
 */
export async function checkBundle(bundle, derived = { nodes: new Map(), records: new Map() }) {
  const problems = new Problems();
  const spans = {};
  const built = {};
  for (const name of ["sessions", "store"]) {
    spans[name] = new Map(list(bundle?.chains?.[name]?.events).map((e) => [e?.seq, e]));
    built[name] = new Map();
  }
  const turns = new Map(list(bundle.turns).map((t) => [t?.bates, t]));
  const sessions = new Map(list(bundle.sessions).map((s) => [s?.sid, s]));
  for (const [sid, session] of sessions) problems.each("session", sid, () => sessionProblems(session, turns));
  // Each turn's shape and the turns' order, as verify and import hold a home's (turn_shape.js,
  // turn_order.js), on times in the stored form.
  const named = list(bundle.turns).filter((t) => parseBates(t?.bates));
  for (const turn of named) for (const text of bundleTurnProblems(turn)) problems.add("turn", turn.bates, text);
  for (const [bates, text] of orderProblems(named.map((t) => [t.bates, t.parent_bates, t.created_at]))) problems.add("turn", bates, text);
  for (const turn of list(bundle.turns)) {
    problems.each("turn", turn?.bates, () => turnEvent(turn, sessions, derived.nodes, spans.sessions, built.sessions));
  }
  const leaves = chunkLeaves(problems, bundle);
  derived.leaves = leaves;
  const found = records(bundle, leaves);
  for (const record of list(bundle.records)) {
    problems.each("record", `${record?.cache_key} ${record?.revision}`, () =>
      recordEvent(bundle, record, found, derived.records, spans.store, built.store),
    );
  }
  const owners = eventOwners(bundle, spans.sessions);
  for (const name of ["sessions", "store"]) {
    problems.each("chain", name, () => chainProblems(name, bundle.chains[name], built[name], owners[name], problems));
  }
  const bodies = {};
  for (const name of ["sessions", "store"]) {
    bodies[name] = new Map([...spans[name]].map(([seq, e]) => [seq, e && "body" in e ? e.body : built[name].get(seq)]));
  }
  const renames = labelEvents(spans.sessions, bodies.sessions);
  for (const turn of list(bundle.turns)) {
    problems.each("turn", turn?.bates, () => turnProblems(turn, sessions, derived.nodes, renames, found));
  }
  const changes = stateChanges(spans.store, bodies.store);
  for (const record of list(bundle.records)) {
    if (!found.held.has(record)) continue;
    problems.each("record", `${record.cache_key} ${record.revision}`, () => stateProblems(record, spans.store, bodies.store, changes));
  }
  describedProblems(problems, bundle);
  documentProblems(problems, bundle, spans.store);
  chunkProblems(problems, bundle, leaves);
  return problems.list;
}

/** Each chunk's leaf by place: a cited chunk's is its text's hash, any other's is carried. */
function chunkLeaves(problems, bundle) {
  const leaves = new Map();
  for (const chunk of list(bundle.chunks)) {
    const place = `${chunk?.source_root} ${chunk?.chunk_index}`;
    problems.each("chunk", place, () => {
      leaves.set(place, "text" in chunk ? leafHash(utf8(chunk.text)) : fromB64(chunk.leaf));
      return [];
    });
  }
  return leaves;
}

function sessionProblems(session, turns) {
  const root = turns.get(session.root_bates);
  const parsed = parseBates(session.root_bates);
  if (!parsed || parsed[0] !== session.sid || parsed[1] !== 0 || !root) return ["its root turn is not in the bundle"];
  return root.created_at === session.created_at ? [] : ["its created_at is not its root turn's"];
}

/** Give the event at `seq` (of one of `kinds`) the rebuilt `body`: whether that holds. */
function claim(events, built, seq, kinds, body) {
  const event = events.get(seq);
  if (!event || !kinds.includes(event.event_type) || built.has(seq)) return false;
  built.set(seq, body);
  if (!("body" in event)) return true;
  // a body is carried only where the reader cannot rebuild it: a cache_write's redactions
  const held = event.body;
  if (kinds[0] !== "cache_write" || !held || typeof held !== "object" || !("redactions" in held)) return false;
  return same(held, { ...body, redactions: held.redactions });
}

function turnEvent(turn, sessions, nodes, events, built) {
  const [sid, seq] = parseBates(turn.bates) ?? [null, -1];
  if (!sessions.has(sid)) return ["its session is not in the bundle"];
  const parentHash = turn.parent_bates === null ? null : nodes.get(turn.parent_bates);
  if (seq > 0 && (parentHash === undefined || parseBates(turn.parent_bates)?.[0] !== sid)) return ["its parent is not in the bundle"];
  const digest = nodeHash({ ...turn, cache_key: b64Hex(turn.cache_key), parent_node_hash: parentHash, label: turn.created_label });
  nodes.set(turn.bates, digest);
  const kinds = seq === 0 ? ["session_create", "session_import"] : ["node_insert"];
  const body =
    seq === 0
      ? { label: sessions.get(sid).label, root_node_hash: digest }
      : {
          node_hash: digest,
          parent_bates: turn.parent_bates,
          answer_hash: answerHash(turn.answer_text),
          titles_hash: answerHash(titlesJson(turn.cited_titles)),
        };
  const event = events.get(turn.event_seq);
  if (!claim(events, built, turn.event_seq, kinds, body) || event.sid !== sid || event.bates !== (seq === 0 ? null : turn.bates)) {
    return [`the ${kinds[0]} event at its event_seq does not record it as it is`];
  }
  return [];
}

function labelEvents(events, bodies) {
  const renames = new Map();
  for (const seq of [...events.keys()].sort((a, b) => a - b)) {
    const event = events.get(seq);
    if (event?.event_type === "label" && typeof event.bates === "string") {
      if (!renames.has(event.bates)) renames.set(event.bates, []);
      renames.get(event.bates).push([seq, bodies.get(seq)]);
    }
  }
  return renames;
}

function turnProblems(turn, sessions, nodes, renames, found) {
  const [sid, seq] = parseBates(turn.bates) ?? [null, -1];
  if (!sessions.has(sid) || !nodes.has(turn.bates)) return [];
  const renamed = (renames.get(turn.bates) ?? []).filter(([s]) => s > turn.event_seq).map(([, b]) => b);
  const last = renamed.length ? renamed[renamed.length - 1] : { label: turn.created_label };
  if (last === null || typeof last !== "object" || last.label !== turn.label) {
    return ["its label is not the one its label events leave it"];
  }
  if (seq > 0 && !answered(turn, found)) {
    return ["no record in the bundle holds its answer, mode, cited titles and question"];
  }
  return [];
}

function answered(turn, found) {
  const asked = questionHash(turn.question);
  return (found.byKey.get(turn.cache_key) ?? []).some((record) => {
    const cited = [...new Set(record.evidence.filter((e) => e.cited).map((e) => found.titles.get(e.source_root)))];
    return (
      record.answer_text === turn.answer_text &&
      record.audit_mode === turn.audit_mode &&
      same(cited, turn.cited_titles) &&
      found.asked.get(record) === asked
    );
  });
}

/** What records look up: documents' sizes and titles, chunks' leaves, records by key. */
function records(bundle, leaves) {
  const byKey = new Map();
  for (const record of list(bundle.records)) {
    if (!byKey.has(record?.cache_key)) byKey.set(record?.cache_key, []);
    byKey.get(record?.cache_key).push(record);
  }
  return {
    byKey,
    sizes: new Map(list(bundle.documents).map((d) => [d?.source_root, d?.chunk_count])),
    titles: new Map(list(bundle.documents).map((d) => [d?.source_root, d?.title])),
    leaves,
    asked: new Map(),
    held: new Set(),
  };
}

/** The RFC 6962 root over 32-byte leaves (level by level: the odd last node goes up). */
function foldRoot(leaves) {
  if (leaves.length === 0) return sha256Sync(new Uint8Array(0));
  let level = leaves;
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(combine(level[i], level[i + 1]));
    if (level.length % 2) next.push(level[level.length - 1]);
    level = next;
  }
  return level[0];
}

function recordEvent(bundle, record, found, derived, events, built) {
  const problems = [];
  const refs = [];
  for (const item of record.evidence) {
    if (!Number.isSafeInteger(item.chunk_index) || typeof item.cited !== "boolean") throw new TypeError("an evidence item's index or cited flag");
    const size = found.sizes.get(item.source_root);
    const leaf = found.leaves.get(`${item.source_root} ${item.chunk_index}`);
    if (size === undefined) problems.push(`evidence ${short(item.source_root)} #${item.chunk_index} names no document of the bundle`);
    else if (leaf === undefined) problems.push(`evidence ${short(item.source_root)} #${item.chunk_index}: an evidence item with no chunk`);
    else refs.push({ source_root: b64Hex(item.source_root), chunk_count: size, chunk_index: item.chunk_index, leaf: toHex(leaf), cited: item.cited });
  }
  if (problems.length) return problems;
  // canonical_json({source_root, chunk_index, leaf}) written directly: hex and an integer need no escaping
  const leaves = refs.map((e) => leafHash(utf8(`{"chunk_index":${e.chunk_index},"leaf":"${e.leaf}","source_root":"${e.source_root}"}`)));
  const root = toHex(foldRoot(leaves));
  const asked = questionHash(record.question);
  found.asked.set(record, asked);
  const dims = Object.fromEntries(Object.entries(record.dimensions).map(([k, v]) => [k, HASHED_DIMENSIONS.includes(k) ? b64Hex(v) : v]));
  const key = b64Hex(record.cache_key);
  if (cacheKey({ ...dims, source_root: root, question_hash: asked }) !== key) {
    problems.push("its cache_key is not the hash of its dimensions, evidence root and question");
  }
  const answer = answerHash(record.answer_text);
  const digest = sha256Hex(
    canonicalJson({
      cache_key: key,
      revision: record.revision,
      question: record.question,
      answer_hash: answer,
      audit_mode: record.audit_mode,
      evidence: refs,
      created_at: record.created_at,
    }),
  );
  derived.set(`${record.cache_key} ${record.revision}`, { recordHash: digest, evidenceRoot: root });
  const body = {
    cache_key: key,
    revision: record.revision,
    record_hash: digest,
    evidence_root: root,
    answer_hash: answer,
    response_hash: answerHash(record.response_json),
  };
  if (claim(events, built, record.event_seq, ["cache_write"], body)) found.held.add(record);
  else problems.push("the cache_write event at its event_seq does not record it as it is");
  for (const [member, dimension, kind] of DESCRIBED) {
    const entries = described(bundle, member);
    if (!Object.hasOwn(entries, record.dimensions[dimension])) problems.push(`its ${dimension} names no ${kind} of the bundle`);
  }
  return problems;
}

/** A profile or policy member: an object of base64url hashes to JSON objects. */
function described(bundle, member) {
  const entries = bundle[member];
  if (entries === null || typeof entries !== "object" || Array.isArray(entries)) throw new TypeError(`its ${member} are not an object`);
  return entries;
}

/** Each profile's and policy's canonical JSON hashes to its key, and some record names it. */
function describedProblems(problems, bundle) {
  for (const [member, dimension, kind] of DESCRIBED) {
    problems.each("bundle", member, () => {
      const entries = described(bundle, member);
      const named = new Set(list(bundle.records).map((r) => r?.dimensions?.[dimension]));
      const found = [];
      for (const [key, value] of Object.entries(entries)) {
        if (value === null || typeof value !== "object" || Array.isArray(value) || sha256Hex(canonicalJson(value)) !== b64Hex(key)) {
          found.push(`${kind} ${short(key)}: its text does not hash to its key`);
        }
        if (!named.has(key)) found.push(`${kind} ${short(key)}: no record of the bundle names it`);
      }
      return found;
    });
  }
}

/**
 * The seqs of the events that can move a record's state, in order, by the key they name:
 * a `cache_write` by its body's key, a `cache_state` by each key of its `records` (so a
 * record's replay reads the events of its key, not the whole span's).
 */
function stateChanges(events, bodies) {
  const changes = new Map();
  for (const seq of [...events.keys()].sort((a, b) => a - b)) {
    const type = events.get(seq)?.event_type;
    const body = bodies.get(seq);
    if ((type !== "cache_write" && type !== "cache_state") || body === null || typeof body !== "object") continue;
    const keys = type === "cache_write" ? [body.cache_key] : list(body.records).map((r) => r?.cache_key);
    for (const key of new Set(keys)) {
      if (typeof key !== "string") continue;
      if (!changes.has(key)) changes.set(key, []);
      changes.get(key).push(seq);
    }
  }
  return changes;
}

function stateProblems(record, events, bodies, changes) {
  const key = b64Hex(record.cache_key);
  let state = ["ok", null];
  for (const seq of changes.get(key) ?? []) {
    if (seq <= record.event_seq) continue;
    const body = bodies.get(seq);
    if (body === null || typeof body !== "object" || Array.isArray(body)) continue;
    if (events.get(seq).event_type === "cache_write") {
      if (body.cache_key === key && state[0] === "ok") state = ["stale", SUPERSEDED_REASON];
    } else if (Array.isArray(body.records) && body.records.some((r) => same(r, { cache_key: key, revision: record.revision }))) {
      state = [body.state, body.reason];
    }
  }
  return state[0] !== record.state || state[1] !== record.state_reason ? [`its state '${record.state}' is not what its audit events leave it`] : [];
}

function documentProblems(problems, bundle, events) {
  const cited = new Set(list(bundle.records).flatMap((r) => list(r?.evidence).map((e) => e?.source_root)));
  for (const doc of list(bundle.documents)) {
    problems.each("document", doc?.source_root, () => {
      const found = [];
      const event = events.get(doc.event_seq);
      const body = event?.event_type === "document_add" ? event.body : null;
      const held = { source_root: b64Hex(doc.source_root), chunk_count: doc.chunk_count, title: doc.title };
      if (!body || typeof body !== "object" || Object.keys(held).some((f) => !same(body[f], held[f]))) {
        found.push("the document_add event at its event_seq does not record it as it is");
      }
      if (!cited.has(doc.source_root)) found.push("no record in the bundle cites it");
      return found;
    });
  }
}

function verifyProof(leaf, index, size, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = combine(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = combine(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.every((byte, i) => byte === root[i]);
}

function chunkProblems(problems, bundle, leaves) {
  const documents = new Map(list(bundle.documents).map((d) => [d?.source_root, d]));
  const used = new Map();
  for (const record of list(bundle.records)) {
    for (const item of list(record?.evidence)) {
      const place = `${item?.source_root} ${item?.chunk_index}`;
      if (!used.has(place)) used.set(place, []);
      used.get(place).push(item?.cited);
    }
  }
  const seen = new Map();
  const disordered = new Set();
  for (const chunk of list(bundle.chunks)) {
    const place = `${chunk?.source_root} ${chunk?.chunk_index}`;
    problems.each("chunk", place, () => {
      const found = [];
      const uses = used.get(place) ?? [];
      if (!uses.length) found.push("it is no evidence item of the bundle's records");
      else if ("text" in chunk !== uses.some((cited) => cited)) found.push("its text is carried (and its leaf not) exactly when a record cites it");
      const doc = documents.get(chunk.source_root);
      const nodes = doc ? doc.nodes : [];
      let met = seen.get(chunk.source_root) ?? 0;
      for (const at of chunk.proof) {
        if (at === met) met += 1;
        else if (at > met) disordered.add(chunk.source_root);
      }
      seen.set(chunk.source_root, met);
      const proof = chunk.proof.filter((at) => at < nodes.length).map((at) => fromB64(nodes[at]));
      const leaf = leaves.get(place);
      if (!leaf || proof.length !== chunk.proof.length || !verifyProof(leaf, chunk.chunk_index, doc ? doc.chunk_count : 0, proof, fromB64(chunk.source_root))) {
        found.push(`its proof does not verify against its document's root and size (from its ${"text" in chunk ? "text" : "leaf"})`);
      }
      return found;
    });
  }
  for (const doc of list(bundle.documents)) {
    problems.each("document", doc?.source_root, () => {
      const nodes = doc.nodes;
      return disordered.has(doc.source_root) || (seen.get(doc.source_root) ?? 0) !== nodes.length || new Set(nodes).size !== nodes.length
        ? ["its proof nodes are not its chunks' proofs' nodes, each once, in the order they are first used"]
        : [];
    });
  }
}

/**
 * Each turn's problems with everything it stands on: its own; its session's;
 * its records' (by its key), and their chunks' and documents'. Where a chain
 * first differs from its tags (its break), the item whose event it is fails,
 * and so does every turn that stands on an event after it (its own event, its
 * label events, its records' and their documents' events): those cannot be
 * checked; a turn whose events all come before it is not failed by the chain.
 * Any other chain problem (a head that its tags all meet but its events do
 * not, a gap) is every turn's.
 *
 * @param {any} bundle
 * @param {{kind: string, id: string, text: string}[]} problems
 * @returns {Map<string, string[]>} bates -> problems, each prefixed with its item
 */
export function turnVerdicts(bundle, problems) {
  const by = new Map();
  for (const p of problems) {
    const key = `${p.kind} ${p.id}`;
    if (!by.has(key)) by.set(key, []);
    by.get(key).push(`${describeItem(p.kind, p.id)}: ${p.text}`);
  }
  const of = (kind, id) => by.get(`${kind} ${id}`) ?? [];
  const chains = [...of("chain", "sessions"), ...of("chain", "store")];
  const breaks = new Map(problems.filter((p) => p.breaks).map((p) => [p.breaks.chain, { seq: p.breaks.seq, by: describeItem(p.kind, p.id) }]));
  const labels = new Map();
  for (const event of list(bundle.chains?.sessions?.events)) {
    if (event?.event_type === "label" && typeof event.bates === "string") labels.set(event.bates, [...(labels.get(event.bates) ?? []), event.seq]);
  }
  const documents = new Map(list(bundle.documents).map((d) => [d?.source_root, d?.event_seq]));
  const beyond = (name, seqs) => {
    const at = breaks.get(name);
    return at && seqs.some((seq) => seq > at.seq)
      ? [`${name}.db chain: it cannot be checked beyond seq ${at.seq}, where it first differs (${at.by}), and this turn stands on an event after it`]
      : [];
  };
  const records = new Map();
  for (const r of list(bundle.records)) {
    if (!records.has(r?.cache_key)) records.set(r?.cache_key, []);
    records.get(r?.cache_key).push(r);
  }
  const verdicts = new Map();
  for (const turn of list(bundle.turns)) {
    const sid = parseBates(turn?.bates)?.[0];
    const found = [...of("turn", turn?.bates), ...of("session", sid)];
    const isRoot = parseBates(turn?.bates)?.[1] === 0;
    const stored = [];
    for (const record of isRoot ? [] : records.get(turn?.cache_key) ?? []) {
      found.push(...of("record", `${record.cache_key} ${record.revision}`));
      stored.push(record.event_seq);
      for (const item of list(record.evidence)) {
        found.push(...of("chunk", `${item.source_root} ${item.chunk_index}`), ...of("document", item.source_root));
        stored.push(documents.get(item.source_root));
      }
    }
    found.push(...beyond("sessions", [turn?.event_seq, ...(labels.get(turn?.bates) ?? [])]), ...beyond("store", stored));
    verdicts.set(turn.bates, [...new Set([...found, ...chains])]);
  }
  return verdicts;
}

/**
 * An item's name as a problem line opens with it.
 *
 * @param {string} kind
 * @param {string} id
 * @returns {string}
 */
export function describeItem(kind, id) {
  const [a, b] = String(id).split(" ");
  switch (kind) {
    case "chain":
      return `${id}.db chain`;
    case "event": // an event of no item of the bundle (`CHAIN SEQ`): its problem says its seq
      return `${a}.db chain`;
    case "record":
      return `record ${short(a)} revision ${b}`;
    case "chunk":
      return `chunk ${short(a)} #${b}`;
    case "document":
      return `document ${short(id)}`;
    default:
      return `${kind} ${id}`;
  }
}
