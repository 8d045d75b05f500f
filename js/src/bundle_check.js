/**
 * A bundle (docs/bundle.md) checked in the browser: steps 2-6 of "What a reader
 * checks", ported from `arborist/bundle_check.py` onto the hash port
 * (hashing.js, merkle.js). Every failure is one problem naming the item it
 * belongs to (`turn BATES`, `record KEY REVISION`, `chunk ROOT INDEX`,
 * `document ROOT`, `session SID`, a chain), and {@link turnVerdicts} gives each
 * turn the problems of everything it stands on: its own, its records', their
 * chunks' and documents', and its chain events'.
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
  EVENT_HASH_FIELDS,
  LEAF_PREFIX,
  NODE_HASH_FIELDS,
  canonicalJson,
  compareCodePoints,
  concatBytes,
  normalizeQuestion,
  toHex,
  utf8,
} from "./hashing.js";
import { merkleRoot, verifyInclusion } from "./merkle.js";
import { sha256Sync } from "./sha256.js";

/** The format a bundle names. */
export const BUNDLE_FORMAT = "arborist-bundle/1";

/** The reason a superseded record is stale (arborist/store/cache/records.py). */
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
const HEX = new Map([..."0123456789abcdef"].map((c, i) => [c, i]));
/** Bytes of lowercase hex (what a bundle holds; anything else is refused). */
function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2) throw new TypeError("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    const high = HEX.get(hex[2 * i]);
    const low = HEX.get(hex[2 * i + 1]);
    if (high === undefined || low === undefined) throw new TypeError("not lowercase hex");
    out[i] = (high << 4) | low;
  }
  return out;
}
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
function eventHash(prev, event) {
  const before = prev === null ? new Uint8Array(0) : fromHex(prev);
  if (prev !== null && before.length !== 32) throw new TypeError("prev_event_hash is not 32 bytes");
  return hexOf(concatBytes(before, canonicalJson(Object.fromEntries(EVENT_HASH_FIELDS.map((n) => [n, event[n]])))));
}

const list = (value) => (Array.isArray(value) ? value : []);
const answerHash = (text) => sha256Hex(utf8(text));
// How a turn's cited titles are stored and hashed: Python's json.dumps(titles, ensure_ascii=False).
const titlesJson = (titles) => `[${titles.map((t) => JSON.stringify(t)).join(", ")}]`;
const short = (hex) => `${String(hex).slice(0, 12)}…`;

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

  add(kind, id, text) {
    this.list.push({ kind, id, text });
  }

  /** Run one item's check; a throw is that item's problem. */
  async each(kind, id, check) {
    try {
      for (const text of await check()) this.add(kind, id, text);
    } catch (error) {
      this.add(kind, id, `its fields are not of their types (${error?.message ?? error})`);
    }
  }
}

/**
 * Check a parsed bundle: steps 2-6 of docs/bundle.md. Never throws.
 *
 * @param {any} bundle
 * @returns {Promise<{kind: string, id: string, text: string}[]>}
 */
export async function checkBundle(bundle) {
  const problems = new Problems();
  const spans = {};
  for (const name of ["sessions", "store"]) {
    const chain = bundle?.chains?.[name];
    spans[name] = new Map(list(chain?.events).map((e) => [e?.seq, e]));
    await problems.each("chain", name, () => chainProblems(problems, name, chain));
  }
  const jobs = [];
  const turns = new Map(list(bundle.turns).map((t) => [t?.bates, t]));
  const sessions = new Map(list(bundle.sessions).map((s) => [s?.sid, s]));
  for (const [sid, session] of sessions) {
    jobs.push(problems.each("session", sid, () => sessionProblems(session, turns)));
  }
  const context = turnContext(bundle, spans.sessions);
  for (const [bates, turn] of turns) {
    jobs.push(problems.each("turn", bates, () => turnProblems(turn, turns, sessions, context)));
  }
  const changes = [...spans.store.entries()]
    .filter(([, e]) => e?.event_type === "cache_write" || e?.event_type === "cache_state")
    .map(([seq]) => seq)
    .sort((a, b) => a - b);
  for (const record of list(bundle.records)) {
    const id = `${record?.cache_key} ${record?.revision}`;
    jobs.push(problems.each("record", id, () => recordProblems(record, spans.store, changes)));
  }
  jobs.push(documentProblems(problems, bundle, spans.store));
  jobs.push(chunkProblems(problems, bundle));
  await Promise.all(jobs);
  return problems.list;
}

async function chainProblems(problems, name, chain) {
  const events = chain.events;
  if (!Array.isArray(events)) throw new TypeError("its events are not a list");
  if (!events.length) return chain.head === null ? [] : ["a head but no event leads to it"];
  const found = [];
  if ((events[0].seq === 1) !== (events[0].prev_event_hash === null)) {
    found.push(`seq ${events[0].seq}: its prev_event_hash does not fit its seq`);
  }
  const hashes = events.map((e) => eventHash(e.prev_event_hash, e));
  events.forEach((event, i) => {
    const before = events[i - 1];
    const seq = event.seq;
    if (before && seq !== before.seq + 1) found.push(`seq ${seq} follows seq ${before.seq}: the span has a gap`);
    else if (before && event.prev_event_hash !== before.event_hash) {
      found.push(`seq ${seq}: its prev_event_hash is not seq ${seq - 1}'s hash`);
    }
    if (hashes[i] !== event.event_hash) problems.add("event", `${name} ${seq}`, "its event_hash does not recompute");
  });
  const last = events[events.length - 1];
  if (!same(chain.head, { seq: last.seq, event_hash: last.event_hash })) found.push("its head is not its last event");
  return found;
}

function sessionProblems(session, turns) {
  const root = turns.get(session.root_bates);
  const parsed = parseBates(session.root_bates);
  if (!parsed || parsed[0] !== session.sid || parsed[1] !== 0 || !root) return ["its root turn is not in the bundle"];
  return root.created_at === session.created_at ? [] : ["its created_at is not its root turn's"];
}

function turnContext(bundle, events) {
  const records = new Map();
  for (const record of list(bundle.records)) {
    if (!records.has(record?.cache_key)) records.set(record?.cache_key, []);
    records.get(record?.cache_key).push(record);
  }
  const titles = new Map(list(bundle.documents).map((d) => [d?.source_root, d?.title]));
  const renames = new Map();
  for (const seq of [...events.keys()].sort((a, b) => a - b)) {
    const event = events.get(seq);
    if (event?.event_type === "label" && typeof event.bates === "string") {
      if (!renames.has(event.bates)) renames.set(event.bates, []);
      renames.get(event.bates).push([seq, event.body]);
    }
  }
  return { records, titles, renames, events };
}

async function turnProblems(turn, turns, sessions, { records, titles, renames, events }) {
  const [sid, seq] = parseBates(turn.bates) ?? [null, -1];
  if (!sessions.has(sid)) return ["its session is not in the bundle"];
  const parent = turn.parent_bates === null ? null : turns.get(turn.parent_bates);
  if (seq > 0 && (!parent || parseBates(parent.bates)?.[0] !== sid)) return ["its parent is not in the bundle"];
  const digest = nodeHash({
    ...turn,
    parent_node_hash: parent ? parent.node_hash : null,
    label: turn.created_label,
  });
  if (digest !== turn.node_hash) return ["its node_hash does not recompute from its fields and its parent's"];
  const kinds = seq === 0 ? ["session_create", "session_import"] : ["node_insert"];
  const event = events.get(turn.event_seq);
  const body =
    seq === 0
      ? { label: sessions.get(sid).label, root_node_hash: digest }
      : {
          node_hash: digest,
          parent_bates: turn.parent_bates,
          answer_hash: answerHash(turn.answer_text),
          titles_hash: answerHash(titlesJson(turn.cited_titles)),
        };
  const where = [sid, seq === 0 ? null : turn.bates];
  if (!event || !kinds.includes(event.event_type) || event.sid !== where[0] || event.bates !== where[1] || !same(event.body, body)) {
    return [`the ${kinds[0]} event at its event_seq does not record it as it is`];
  }
  const renamed = (renames.get(turn.bates) ?? []).filter(([s]) => s > turn.event_seq).map(([, b]) => b);
  const last = renamed.length ? renamed[renamed.length - 1] : { label: turn.created_label };
  if (last === null || typeof last !== "object" || last.label !== turn.label) {
    return ["its label is not the one its label events leave it"];
  }
  if (seq > 0 && !(await answered(turn, records.get(turn.cache_key) ?? [], titles))) {
    return ["no record in the bundle holds its answer, mode, cited titles and question"];
  }
  return [];
}

async function answered(turn, records, titles) {
  const asked = questionHash(turn.question);
  return records.some((record) => {
    const cited = [...new Set(record.evidence.filter((e) => e.cited).map((e) => titles.get(e.source_root)))];
    return (
      record.answer_text === turn.answer_text &&
      record.audit_mode === turn.audit_mode &&
      same(cited, turn.cited_titles) &&
      record.dimensions.question_hash === asked
    );
  });
}

/**
 * The evidence root of a record's evidence: the Merkle root over each item's
 * `leafHash(canonical_json({source_root, chunk_index, leaf}))`, in rank order.
 *
 * @param {Array<{source_root: string, chunk_index: number, leaf: string}>} evidence
 * @returns {Promise<string>}
 */
export async function evidenceRoot(evidence) {
  const leaves = evidence.map((e) =>
    leafHash(canonicalJson({ source_root: e.source_root, chunk_index: e.chunk_index, leaf: e.leaf })),
  );
  return toHex(await merkleRoot(leaves, combine));
}

async function recordProblems(record, events, changes) {
  const found = [];
  const dims = record.dimensions;
  const refs = record.evidence.map((e) => ({
    source_root: e.source_root,
    chunk_count: e.chunk_count,
    chunk_index: e.chunk_index,
    leaf: e.leaf,
    cited: e.cited,
  }));
  const [key, root, asked, answer, response] = [
    cacheKey(dims),
    await evidenceRoot(refs),
    questionHash(record.question),
    answerHash(record.answer_text),
    answerHash(record.response_json),
  ];
  if (key !== record.cache_key) found.push("its cache_key is not the hash of its dimensions");
  if (root !== dims.source_root) found.push("its evidence does not fold to its evidence root");
  if (asked !== dims.question_hash) found.push("its question is not the one its question_hash names");
  const digest = sha256Hex(
    canonicalJson({
      cache_key: record.cache_key,
      revision: record.revision,
      question: record.question,
      answer_hash: answer,
      audit_mode: record.audit_mode,
      evidence: refs,
      created_at: record.created_at,
    }),
  );
  if (digest !== record.record_hash) found.push("its record_hash does not recompute from its fields");
  const event = events.get(record.event_seq);
  const held = event?.event_type === "cache_write" ? event.body : null;
  const body = {
    cache_key: record.cache_key,
    revision: record.revision,
    record_hash: record.record_hash,
    evidence_root: dims.source_root,
    answer_hash: answer,
    response_hash: response,
  };
  if (held && typeof held === "object" && "redactions" in held) body.redactions = held.redactions;
  if (!same(held, body)) found.push("the cache_write event at its event_seq does not record it as it is");
  else {
    const [state, reason] = replayed(record, events, changes);
    if (state !== record.state || reason !== record.state_reason) {
      found.push(`its state '${record.state}' is not what its audit events leave it`);
    }
  }
  return found;
}

function replayed(record, events, changes) {
  let state = ["ok", null];
  for (const seq of changes) {
    if (seq <= record.event_seq) continue;
    const event = events.get(seq);
    const body = event.body;
    if (body === null || typeof body !== "object" || Array.isArray(body)) continue;
    if (event.event_type === "cache_write") {
      if (body.cache_key === record.cache_key && state[0] === "ok") state = ["stale", SUPERSEDED_REASON];
    } else if (
      Array.isArray(body.records) &&
      body.records.some((r) => same(r, { cache_key: record.cache_key, revision: record.revision }))
    ) {
      state = [body.state, body.reason];
    }
  }
  return state;
}

async function documentProblems(problems, bundle, events) {
  const cited = new Set(list(bundle.records).flatMap((r) => list(r?.evidence).map((e) => e?.source_root)));
  for (const doc of list(bundle.documents)) {
    await problems.each("document", doc?.source_root, () => {
      const found = [];
      const event = events.get(doc.event_seq);
      const body = event?.event_type === "document_add" ? event.body : null;
      const fields = ["source_root", "chunk_count", "title"];
      if (!body || typeof body !== "object" || fields.some((f) => !same(body[f], doc[f]))) {
        found.push("the document_add event at its event_seq does not record it as it is");
      }
      if (!cited.has(doc.source_root)) found.push("no record in the bundle cites it");
      return found;
    });
  }
  const sizes = new Map(list(bundle.documents).map((d) => [d?.source_root, d?.chunk_count]));
  for (const record of list(bundle.records)) {
    await problems.each("record", `${record?.cache_key} ${record?.revision}`, () =>
      record.evidence
        .filter((item) => sizes.get(item.source_root) !== item.chunk_count)
        .map((item) => `evidence ${short(item.source_root)} #${item.chunk_index} names no document of the bundle at its size`),
    );
  }
}

async function chunkProblems(problems, bundle) {
  const sizes = new Map(list(bundle.documents).map((d) => [d?.source_root, d?.chunk_count]));
  const used = new Map();
  for (const record of list(bundle.records)) {
    for (const item of list(record?.evidence)) {
      const place = `${item?.source_root} ${item?.chunk_index}`;
      if (!used.has(place)) used.set(place, []);
      used.get(place).push(item);
    }
  }
  const jobs = list(bundle.chunks).map((chunk) => {
    const place = `${chunk?.source_root} ${chunk?.chunk_index}`;
    const uses = used.get(place) ?? [];
    used.delete(place);
    return problems.each("chunk", place, async () => {
      const found = [];
      if (!uses.length || uses.some((u) => u.leaf !== chunk.leaf)) found.push("it is no evidence item of the bundle's records");
      else if ((chunk.text !== null) !== uses.some((u) => u.cited)) found.push("its text is carried only when a record cites it");
      const leaf = fromHex(chunk.leaf);
      const proof = chunk.proof.map((p) => fromHex(p));
      const size = sizes.get(chunk.source_root) ?? 0;
      if (!(await verifyInclusion(leaf, chunk.chunk_index, size, proof, fromHex(chunk.source_root), combine))) {
        found.push("its proof does not verify against its document's root and size");
      }
      if (chunk.text !== null && toHex(leafHash(utf8(chunk.text))) !== chunk.leaf) {
        found.push("its text does not hash to its leaf");
      }
      return found;
    });
  });
  await Promise.all(jobs);
  for (const place of [...used.keys()].sort()) problems.add("chunk", place, "an evidence item with no chunk in the bundle");
}

/**
 * Each turn's problems with everything it stands on: its own; its session's;
 * its records' (by its key), and their chunks' and documents'; the chain
 * events at its, its records' and its documents' event_seqs. Chain-wide
 * problems (a gap, a head) are every turn's.
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
  const records = new Map();
  for (const r of list(bundle.records)) {
    if (!records.has(r?.cache_key)) records.set(r?.cache_key, []);
    records.get(r?.cache_key).push(r);
  }
  const added = new Map(list(bundle.documents).map((d) => [d?.source_root, d?.event_seq]));
  const verdicts = new Map();
  for (const turn of list(bundle.turns)) {
    const sid = parseBates(turn?.bates)?.[0];
    const found = [...of("turn", turn?.bates), ...of("session", sid), ...of("event", `sessions ${turn?.event_seq}`)];
    const isRoot = parseBates(turn?.bates)?.[1] === 0;
    for (const record of isRoot ? [] : records.get(turn?.cache_key) ?? []) {
      found.push(...of("record", `${record.cache_key} ${record.revision}`), ...of("event", `store ${record.event_seq}`));
      for (const item of list(record.evidence)) {
        found.push(
          ...of("chunk", `${item.source_root} ${item.chunk_index}`),
          ...of("document", item.source_root),
          ...of("event", `store ${added.get(item.source_root)}`),
        );
      }
    }
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
    case "event":
      return `${a}.db chain: seq ${b}`;
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
