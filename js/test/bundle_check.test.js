// The bundle checks of the page (js/src/bundle_check.js) on a bundle the real CLI wrote
// (fixtures/small.bundle: `arborist export --bundle` of a session with three asks, a label
// and a falsified answer asked again), intact and with one value changed per field kind.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { checkBundle, embedText, readEmbedded, turnVerdicts } from "../src/bundle_check.js";

const BYTES = readFileSync(new URL("./fixtures/small.bundle", import.meta.url), "utf8");

function fresh() {
  return JSON.parse(BYTES);
}

async function verdicts(bundle) {
  const problems = await checkBundle(bundle);
  return { problems, turns: turnVerdicts(bundle, problems) };
}

function flip(b64) {
  return (b64[0] === "A" ? "B" : "A") + b64.slice(1);
}

const citing = (b, chunk) =>
  b.turns
    .filter((t) => b.records.some((r) => r.cache_key === t.cache_key && r.evidence.some((e) => e.source_root === chunk.source_root && e.chunk_index === chunk.chunk_index)))
    .map((t) => t.bates);

test("the intact bundle holds: no problem, every turn verified", async () => {
  const read = readEmbedded(embedText(BYTES));
  assert.equal(read.problem, null);
  assert.equal(new TextDecoder().decode(read.bytes), BYTES);
  const { problems, turns } = await verdicts(read.bundle);
  assert.deepEqual(problems, []);
  assert.equal(turns.size, read.bundle.turns.length);
  for (const found of turns.values()) assert.deepEqual(found, []);
});

test("a byte of spacing or a key twice is a form problem", () => {
  const text = embedText(BYTES);
  assert.match(readEmbedded(text.replace('{"chains":', '{ "chains":')).problem, /not canonical/);
  assert.match(readEmbedded(text.replace('"format":', '"format":"x","format":')).problem, /not canonical/);
  assert.match(readEmbedded(text.slice(0, -1)).problem, /not JSON/);
});

for (const n of [1, 2]) {
  test(`a format-${n} bundle is refused in one line that asks for it again`, () => {
    const old = embedText(BYTES.replace('"format":"arborist-bundle/3"', `"format":"arborist-bundle/${n}"`));
    const read = readEmbedded(old);
    assert.equal(read.bundle, null);
    assert.match(read.problem, new RegExp(`^this bundle is format ${n} .*re-export it$`));
  });
}

test("a model profile or policy changed, missing or unnamed fails the bundle and the records that name it", async () => {
  for (const member of ["profiles", "policies"]) {
    const changed = fresh();
    const [key] = Object.keys(changed[member]);
    changed[member][key].extra = "x";
    let { problems, turns } = await verdicts(changed);
    assert.ok(problems.some((p) => p.kind === "bundle" && /does not hash to its key/.test(p.text)), JSON.stringify(problems));
    const missing = fresh();
    delete missing[member][key];
    ({ problems, turns } = await verdicts(missing));
    assert.ok(problems.some((p) => p.kind === "record" && /names no (profile|policy) of the bundle/.test(p.text)), JSON.stringify(problems));
    assert.ok(turns.get(ANSWERED(missing).bates).length);
    const extra = fresh();
    extra[member].AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA = {};
    ({ problems } = await verdicts(extra));
    assert.ok(problems.some((p) => /no record of the bundle names it/.test(p.text)), JSON.stringify(problems));
  }
});

const ANSWERED = (bundle) => bundle.turns.find((t) => t.bates.endsWith("-000001"));

const CHANGES = {
  "a turn's answer": (b) => {
    ANSWERED(b).answer_text += "!";
    return [ANSWERED(b).bates];
  },
  "a turn's question (so its node hash)": (b) => {
    ANSWERED(b).question += "?";
    return [ANSWERED(b).bates];
  },
  "a record's evidence item": (b) => {
    const record = b.records.find((r) => r.cache_key === ANSWERED(b).cache_key);
    record.evidence[0].cited = !record.evidence[0].cited;
    return [ANSWERED(b).bates];
  },
  "a cited chunk's text": (b) => {
    const chunk = b.chunks.find((c) => "text" in c);
    chunk.text = chunk.text.replace("S", "Z");
    return citing(b, chunk);
  },
  "an uncited chunk's leaf": (b) => {
    const chunk = b.chunks.find((c) => "leaf" in c);
    chunk.leaf = flip(chunk.leaf);
    return citing(b, chunk);
  },
  "a proof element": (b) => {
    const chunk = b.chunks.find((c) => c.proof.length);
    const doc = b.documents.find((d) => d.source_root === chunk.source_root);
    doc.nodes[chunk.proof[0]] = flip(doc.nodes[chunk.proof[0]]);
    return citing(b, chunk);
  },
  "a chain event's body": (b) => {
    const event = b.chains.sessions.events.find((e) => e.event_type === "label");
    event.body.label = "other";
    return [event.bates];
  },
  "a chain event's time": (b) => {
    const turn = ANSWERED(b);
    b.chains.sessions.events.find((e) => e.seq === turn.event_seq).created_at += "0";
    return [turn.bates];
  },
};

for (const [what, change] of Object.entries(CHANGES)) {
  test(`${what} changed fails the turns that stand on it, and only as named items`, async () => {
    const bundle = fresh();
    const named = change(bundle);
    assert.ok(named.length);
    const { problems, turns } = await verdicts(bundle);
    assert.ok(problems.length, "a problem is found");
    for (const bates of named) assert.ok(turns.get(bates).length, `${bates} fails`);
  });
}

test("a head changed fails the whole and every turn", async () => {
  const bundle = fresh();
  bundle.chains.store.head.event_hash = flip(bundle.chains.store.head.event_hash);
  const { problems, turns } = await verdicts(bundle);
  assert.deepEqual(problems.map((p) => [p.kind, p.id]), [["chain", "store"]]);
  assert.match(problems[0].text, /do not hash to its head/);
  for (const found of turns.values()) assert.ok(found.some((f) => f.startsWith("store.db chain")));
});

test("a body carried where the checker rebuilds one fails that turn", async () => {
  const bundle = fresh();
  const turn = ANSWERED(bundle);
  bundle.chains.sessions.events.find((e) => e.seq === turn.event_seq).body = {};
  const { problems, turns } = await verdicts(bundle);
  assert.ok(problems.some((p) => p.kind === "turn" && p.id === turn.bates && /node_insert event/.test(p.text)), JSON.stringify(problems));
  assert.ok(turns.get(turn.bates).length);
});

test("an entry of another type fails as that entry, and the rest are still checked", async () => {
  const bundle = fresh();
  bundle.records[0].evidence = 7;
  bundle.chunks[0].proof = null;
  const { problems } = await verdicts(bundle);
  const kinds = new Set(problems.map((p) => p.kind));
  assert.ok(kinds.has("record") && kinds.has("chunk"), JSON.stringify(problems));
});

const nth = (b, n) => b.turns.find((t) => t.bates.endsWith(`-00000${n}`));
const later = (stamp) => stamp.slice(0, -2) + (stamp.at(-2) === "1" ? "2" : "1") + "Z";

test("a turn's time changed names that turn where its chain first differs, fails the turns on later events and leaves earlier ones verified", async () => {
  const bundle = fresh();
  const turn = nth(bundle, 2);
  turn.created_at = later(turn.created_at);
  const { problems, turns } = await verdicts(bundle);
  assert.deepEqual(problems.map((p) => [p.kind, p.id, p.breaks]), [["turn", turn.bates, { chain: "sessions", seq: turn.event_seq }]]);
  assert.match(problems[0].text, /^its node_insert event \(sessions\.db seq \d+\) differs from what the bundle committed/);
  assert.deepEqual(turns.get(nth(bundle, 0).bates), [], "the root's event comes before it");
  assert.match(turns.get(turn.bates)[0], new RegExp(`^turn ${turn.bates}: its node_insert event`));
  // turn 3's event comes after it, and so does turn 1's label event: neither can be checked
  for (const n of [1, 3]) assert.match(turns.get(nth(bundle, n).bates).join("\n"), /cannot be checked beyond seq \d+, where it first differs \(turn /);
  const last = fresh();
  nth(last, 3).created_at = later(nth(last, 3).created_at);
  const after = await verdicts(last);
  for (const n of [0, 1, 2]) assert.deepEqual(after.turns.get(nth(last, n).bates), [], `turn ${n} comes before it`);
  assert.equal(after.turns.get(nth(last, 3).bates).length, 1);
});

test("a record's field only its event covers names that record, fails the turns standing on it and not the root", async () => {
  const bundle = fresh();
  const record = bundle.records.find((r) => r.cache_key === nth(bundle, 2).cache_key);
  record.response_json += " ";
  const { problems, turns } = await verdicts(bundle);
  assert.deepEqual(problems.map((p) => [p.kind, p.id]), [["record", `${record.cache_key} ${record.revision}`]]);
  assert.match(problems[0].text, /cache_write event \(store\.db seq \d+\) differs/);
  assert.ok(turns.get(nth(bundle, 2).bates).length);
  assert.deepEqual(turns.get(nth(bundle, 0).bates), []);
});

test("a tag changed names its event's turn", async () => {
  const bundle = fresh();
  const event = bundle.chains.sessions.events.find((e) => e.seq === nth(bundle, 3).event_seq);
  event.tag = flip(event.tag);
  const { problems } = await verdicts(bundle);
  assert.deepEqual(problems.map((p) => [p.kind, p.id]), [["turn", nth(bundle, 3).bates]]);
});

test("an event of no item of the bundle changed is named by its chain and seq, and fails the turns standing on later events", async () => {
  const bundle = fresh();
  const event = bundle.chains.store.events.find((e) => e.event_type === "cache_state");
  event.created_at = later(event.created_at);
  const { problems, turns } = await verdicts(bundle);
  const located = problems.find((p) => p.breaks);
  assert.deepEqual([located.kind, located.id], ["event", `store ${event.seq}`]);
  assert.match(located.text, new RegExp(`^its cache_state event \\(store\\.db seq ${event.seq}\\) differs`));
  assert.deepEqual(turns.get(nth(bundle, 0).bates), []);
  assert.ok(turns.get(nth(bundle, 3).bates).some((l) => l.includes(`cannot be checked beyond seq ${event.seq}, where it first differs (store.db chain)`)));
});
