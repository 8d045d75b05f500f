/**
 * The widget's logic without a browser: the sync walk against a fake kernel
 * that answers as arborist/_faces/sync.py does, the request layer with ids
 * and timeouts, citation parsing and text-only DOM building (escaping by
 * construction), keyboard navigation, proof re-verification, and a smoke
 * test of the whole view on a minimal fake DOM.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { describe, test } from "node:test";

import {
  inclusionProof,
  leafHash,
  merkleRoot,
  sha256Hex,
  subtreeHash,
  toHex,
  utf8,
} from "../src/index.js";
import {
  auditBadge,
  detailHead,
  dimensionRows,
  documentLink,
  evidenceList,
  placedTitle,
  placeOf,
  proofSection,
  stateTitle,
  stateWords,
  supportBadge,
} from "../src/detail.js";
import { makeH } from "../src/dom.js";
import { FakeDocument } from "./fake_dom.js";
import { navigate } from "../src/keyboard.js";
import { proofVerdict, verifyEvidence } from "../src/proofs.js";
import { KERNEL_RESTARTED, KERNEL_STOPPED, LINK_CLOSED, NOT_SENT, RequestError, Requester, kernelGone, kernelOnServer } from "../src/requests.js";
import { ForestStore } from "../src/store.js";
import { jsonBytes, nodeName, splitCitations } from "../src/text.js";
import { ForestView } from "../src/view.js";
import widget from "../src/widget.js";

/**
 * The words the kernel sends the widget (its `vocabulary` trait: arborist/_facts.py), written
 * from Python by `make vocabulary`; tests/test_audit_words.py fails while they differ.
 */
const VOCABULARY = JSON.parse(readFileSync(new URL("./fixtures/vocabulary.json", import.meta.url), "utf8"));

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function settle(rounds = 30) {
  for (let i = 0; i < rounds; i++) await tick();
}

/** Wait until `predicate()` holds (WebCrypto answers on a worker thread, after some ticks). */
async function until(predicate, what, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

// ------------------------------------------------------ a fake kernel ----

/**
 * An in-memory forest answering the widget's requests with the semantics of
 * arborist/_faces/sync.py: real subtree hashes (hashing.js) over fake node
 * hashes, summaries left out for children whose held hash matches.
 */
class FakeKernel {
  constructor(sid) {
    this.sid = sid;
    this.nodes = new Map();
    this.sessions = new Map();
    this.log = [];
    this.version = 0;
    this.events = []; // the audit chain of sessions.db: [type, bates]
    this.storeSeq = 0; // the head of store.db's chain
    this.stateEvents = []; // [store seq, cache key, revision, state]: as cache_state events
    this.memo = null;
    this.addSession(sid);
  }

  addSession(sid) {
    const root = `${sid}-000000`;
    this.nodes.set(root, { bates: root, sid, seq: 0, parent: null, question: "", label: null });
    this.sessions.set(sid, { root, current: root, nextSeq: 1 });
    this.version++;
    return root;
  }

  add(sid, parent, question = `question ${this.nodes.size}`, extra = {}) {
    const session = this.sessions.get(sid);
    const seq = session.nextSeq++;
    const bates = `${sid}-${String(seq).padStart(6, "0")}`;
    this.nodes.set(bates, { bates, sid, seq, parent, question, label: null, ...extra });
    session.current = bates;
    this.version++;
    this.events.push(["node_insert", bates]);
    return bates;
  }

  /** A record's state changed (a falsify anywhere, its undoing, a stale mark). */
  restate(bates, state, reason) {
    const node = this.nodes.get(bates);
    node.record = { ...node.record, state, state_reason: reason };
    this.storeSeq++;
    this.stateEvents.push([this.storeSeq, node.key ?? "ab".repeat(32), node.record.revision, state]);
  }

  relabel(bates, label) {
    this.nodes.get(bates).label = label;
    this.events.push(["label", bates]);
  }

  children(bates) {
    return [...this.nodes.values()].filter((n) => n.parent === bates);
  }

  async hashes() {
    if (this.memo?.version === this.version) return this.memo.hashes;
    const hashes = new Map();
    // Post-order without recursion: children before parents.
    const order = [];
    const stack = [...this.nodes.values()].filter((n) => n.parent === null).map((n) => n.bates);
    while (stack.length) {
      const bates = stack.pop();
      order.push(bates);
      for (const child of this.children(bates)) stack.push(child.bates);
    }
    for (const bates of order.reverse()) {
      const own = await sha256Hex(utf8(bates));
      hashes.set(bates, await subtreeHash(own, this.children(bates).map((c) => hashes.get(c.bates))));
    }
    this.memo = { version: this.version, hashes };
    return hashes;
  }

  summary(node) {
    return {
      question: node.question,
      audit_mode: node.seq === 0 ? "ROOT" : "STRICT",
      label: node.label,
      sid: node.sid,
      seq: node.seq,
      foreign: node.sid !== this.sid,
      n_children: this.children(node.bates).length,
      cache_key: (node.key ?? "ab".repeat(32)).slice(0, 12),
      revision: node.revision ?? 1,
      ...(node.seq === 0 ? {} : node.quoted ? { support: "answered" } : { audit: "STRICT-unquoted" }),
      ...(node.record && node.record.state !== "ok"
        ? { state: node.record.state, state_reason: node.record.state_reason }
        : {}),
    };
  }

  grafts() {
    return [...this.nodes.values()].filter(
      (n) => n.sid === this.sid && n.parent && this.nodes.get(n.parent).sid !== this.sid,
    );
  }

  async answer(kind, args) {
    const hashes = await this.hashes();
    const session = this.sessions.get(this.sid);
    const known = args.known ?? {};
    let result;
    switch (kind) {
      case "roots":
        result = {
          sid: this.sid,
          label: null,
          root_bates: session.root,
          root_hash: hashes.get(session.root),
          current_bates: session.current,
          next_seq: session.nextSeq,
          turns: session.nextSeq - 1,
          event_seq: this.events.length,
          store_seq: this.storeSeq,
          restated:
            args.store_since === null || args.store_since === undefined
              ? undefined
              : Object.fromEntries(
                  this.stateEvents
                    .filter(([seq]) => seq > args.store_since)
                    .map(([, key, revision, state]) => [key.slice(0, 12), { [revision]: state }]),
                ),
          relabelled:
            args.since === null || args.since === undefined
              ? {}
              : Object.fromEntries(
                  this.events
                    .slice(args.since)
                    .filter(([type]) => type === "label")
                    .map(([, b]) => [b, this.nodes.get(b).label]),
                ),
          added: (() => {
            if (args.since === null || args.since === undefined) return null;
            const added = this.events.slice(args.since).filter(([type]) => type === "node_insert");
            if (added.length > 50) return null;
            return added.map(([, b]) => {
              const node = this.nodes.get(b);
              return { bates: b, parent_bates: node.parent, subtree_hash: hashes.get(b), summary: this.summary(node) };
            });
          })(),
          grafts: this.grafts().map((g) => {
            const entry = { bates: g.bates, parent_bates: g.parent, subtree_hash: hashes.get(g.bates) };
            if (known[g.bates] !== entry.subtree_hash) entry.summary = this.summary(g);
            return entry;
          }),
        };
        break;
      case "expand": {
        // As arborist/_faces/sync.py's expand: the requested nodes, then breadth first
        // down changed nodes with children until `budget` child rows are sent.
        const nodes = {};
        const missing = [];
        const wanted = [...args.bates];
        if (args.reveal) {
          // As reveal_path: the ancestors up to the top of this session's tree they hang from.
          const path = [];
          for (let at = this.nodes.get(args.reveal)?.parent; at; at = this.nodes.get(at).parent) {
            path.unshift(at);
            const node = this.nodes.get(at);
            if (node.sid === this.sid && (!node.parent || this.nodes.get(node.parent).sid !== this.sid)) {
              wanted.push(...path.filter((b) => !wanted.includes(b)));
              break;
            }
          }
        }
        const asked = new Set(wanted);
        const queue = [];
        for (const bates of wanted) {
          const hash = hashes.get(bates);
          if (!hash) missing.push(bates);
          else if (known[bates] !== hash) queue.push(bates);
        }
        let sent = 0;
        while (queue.length) {
          const bates = queue.shift();
          if (bates in nodes) continue;
          if (!asked.has(bates) && sent >= (args.budget ?? 0)) break;
          const kids = this.children(bates);
          nodes[bates] = {
            subtree_hash: hashes.get(bates),
            children: kids.map((c) =>
              known[c.bates] === hashes.get(c.bates)
                ? { bates: c.bates }
                : { bates: c.bates, subtree_hash: hashes.get(c.bates), summary: this.summary(c) },
            ),
          };
          if (!asked.has(bates)) sent += kids.length;
          for (const c of kids) {
            const changed = known[c.bates] !== hashes.get(c.bates);
            if (this.children(c.bates).length && changed && !(c.bates in nodes)) queue.push(c.bates);
          }
        }
        result = { nodes, missing };
        break;
      }
      case "poll":
        result = {
          root_hash: hashes.get(session.root),
          next_seq: session.nextSeq,
          current_bates: session.current,
          graft_hashes: Object.fromEntries((args.grafts ?? []).map((b) => [b, hashes.get(b)])),
          event_seq: this.events.length,
          store_seq: this.storeSeq,
        };
        break;
      case "body": {
        const node = this.nodes.get(args.bates);
        if (!node) throw new Error(`no turn ${args.bates}`);
        const path = [];
        for (let p = node.parent; p; p = this.nodes.get(p).parent) path.unshift(p);
        result = {
          bates: node.bates,
          sid: node.sid,
          seq: node.seq,
          parent: node.parent,
          path,
          is_root: node.seq === 0,
          foreign: node.sid !== this.sid,
          question: node.question,
          answer_text: node.answer ?? `answer to ${node.question}`,
          cited_titles: [],
          cache_key: node.key ?? "ab".repeat(32),
          audit_mode: node.seq === 0 ? "ROOT" : "STRICT",
          facts: { badge: node.seq === 0 ? "ROOT" : node.quoted ? "STRICT" : "STRICT-unquoted", sources: node.sources ?? [] },
          node_hash: await sha256Hex(utf8(node.bates)),
          subtree_hash: hashes.get(node.bates),
          created_at: "2026-01-01T00:00:00.000000Z",
          label: node.label,
          record: node.record ?? null,
          record_error: node.recordError ?? null,
          served: node.seq === 0 ? null : "miss",
          first_answered: null,
          latest_revision: node.record ? (node.latest ?? { revision: node.record.revision, state: node.record.state }) : null,
        };
        break;
      }
      case "find": {
        // As sync.find_hits: every turn whose question holds the query, with its state.
        const hits = [...this.nodes.values()].filter((n) => n.seq > 0 && n.question.includes(args.query));
        result = {
          query: args.query,
          hits: hits.map((n) => ({
            bates: n.bates,
            sid: n.sid,
            seq: n.seq,
            question: n.question,
            label: n.label,
            audit_mode: "STRICT",
            support: null,
            state: n.record && n.record.state !== "ok" ? n.record.state : null,
            state_reason: n.record && n.record.state !== "ok" ? n.record.state_reason : null,
            foreign: n.sid !== this.sid,
            session_label: null,
            snippet: n.question,
          })),
        };
        break;
      }
      case "falsify":
      case "restore": {
        const node = this.nodes.get(args.bates);
        const latest = node.latest?.revision ?? node.record.revision;
        if (kind === "restore" && latest !== node.record.revision) {
          throw new Error(`record abababababab… revision ${node.record.revision} cannot be put back: revision ${latest} has answered the question since`);
        }
        if (kind === "falsify") this.restate(node.bates, args.state, args.reason);
        else this.restate(node.bates, "ok", "falsification undone");
        result = {
          bates: node.bates,
          cache_key: node.key ?? "ab".repeat(32),
          revision: node.record.revision,
          state: node.record.state,
          state_reason: node.record.state_reason,
          summary: this.summary(node),
        };
        break;
      }
      case "cd":
        session.current = args.bates;
        result = { current_bates: args.bates };
        break;
      default:
        throw new Error(`unknown request kind ${JSON.stringify(kind)}`);
    }
    this.log.push({ kind, args, result, bytes: jsonBytes(result) });
    return result;
  }

  request() {
    return (kind, args) => this.answer(kind, args);
  }

  bytes(from = 0) {
    return this.log.slice(from).reduce((sum, entry) => sum + entry.bytes, 0);
  }
}

const SID = "20260101T000000Z-aaaaaa";
const OTHER = "20260101T000000Z-bbbbbb";

/** A forest of 1 + 6 + 6*4 + 6*4*4 = 127 turns, everything expanded. */
function bushyKernel() {
  const kernel = new FakeKernel(SID);
  const root = `${SID}-000000`;
  const tops = [];
  for (let i = 0; i < 6; i++) tops.push(kernel.add(SID, root, `top ${i}`));
  const mids = [];
  for (const top of tops) for (let j = 0; j < 4; j++) mids.push(kernel.add(SID, top, `mid ${j}`));
  const leaves = [];
  for (const mid of mids) for (let k = 0; k < 4; k++) leaves.push(kernel.add(SID, mid, `leaf ${k}`));
  return { kernel, root, tops, mids, leaves };
}

async function openAll(store) {
  // Expand everything loaded until nothing is left to open.
  for (;;) {
    const closed = store.rows().filter((r) => r.expandable && !r.expanded);
    if (!closed.length) return;
    for (const row of closed) await store.expand(row.bates);
  }
}

// ---------------------------------------------------------------- text ----

describe("citations and untrusted text", () => {
  test("splitCitations reads the full and the short form, like qa/citations.py", () => {
    const parts = splitCitations("A [E1 | Spider-Man | file:///s.md] and [E02] but not [E3 | x] or [X1 | a | b].");
    assert.deepEqual(
      parts.map((p) => (p.type === "text" ? p.text : `<${p.label}|${p.title}|${p.uri}>`)),
      ["A ", "<E1|Spider-Man|file:///s.md>", " and ", "<E2||>", " but not [E3 | x] or [X1 | a | b]."],
    );
  });

  test("a title may hold | and the URI is the last part", () => {
    const [citation] = splitCitations("[E7 | a | b | uri]");
    assert.equal(citation.title, "a | b");
    assert.equal(citation.uri, "uri");
  });

  test("markup in an answer stays text, never a citation or an element", () => {
    const evil = '<img src=x onerror="alert(1)"><script>alert(2)</script> [E1 | <b>t</b> | javascript:alert(3)]';
    const parts = splitCitations(evil);
    assert.equal(parts[0].text, '<img src=x onerror="alert(1)"><script>alert(2)</script> ');
    assert.equal(parts[1].title, "<b>t</b>");
    const doc = new FakeDocument();
    const h = makeH(doc);
    const el = h("div", {}, parts.map((p) => (p.type === "text" ? p.text : h("button", { text: p.title }))));
    assert.equal(el.textContent, '<img src=x onerror="alert(1)"><script>alert(2)</script> <b>t</b>');
    assert.deepEqual(el.descendants().map((n) => n.tagName), ["BUTTON"]);
  });

  test("makeH refuses innerHTML and event-handler attributes", () => {
    const h = makeH(new FakeDocument());
    assert.throws(() => h("div", { innerHTML: "<b>x</b>" }), /refusing innerHTML/);
    assert.throws(() => h("div", { onclick: "alert(1)" }), /refusing onclick/);
    assert.throws(() => h("div", { attrs: { onerror: "alert(1)" } }), /refusing attribute onerror/);
    assert.throws(() => h("iframe", { srcdoc: "<script></script>" }), /refusing srcdoc/);
  });

  test("makeH writes data-* in kebab case and skips null children", () => {
    const h = makeH(new FakeDocument());
    const el = h("div", { dataset: { auditMode: "STRICT", bates: "b", gone: null } }, null, false, "x", 1);
    assert.equal(el.getAttribute("data-audit-mode"), "STRICT");
    assert.equal(el.getAttribute("data-bates"), "b");
    assert.equal(el.getAttribute("data-gone"), null);
    assert.equal(el.textContent, "x1");
  });

  test("the support badge shows the level, its reason as text, its meaning from the kernel's words", () => {
    const h = makeH(new FakeDocument());
    const partly = supportBadge(h, { level: "partly", reason: "no cited passage mentions <b>fifa</b>" }, false, VOCABULARY);
    assert.equal(partly.getAttribute("data-support"), "partly");
    assert.equal(partly.textContent, "partly");
    assert.equal(partly.title, "partly: no cited passage mentions <b>fifa</b>");
    assert.equal(partly.descendants().length, 0, "the reason is text, never markup");
    const row = supportBadge(h, "answered", true, VOCABULARY);
    assert.equal(row.textContent, VOCABULARY.support.answered.mark);
    assert.equal(row.title, VOCABULARY.support.answered.title, "a row's level: the kernel's meaning of it");
    assert.equal(supportBadge(h, "not answered", true, VOCABULARY).getAttribute("aria-label"), "support: not answered");
    for (const nothing of [null, undefined, "", { level: "" }]) {
      assert.equal(supportBadge(h, nothing, false, VOCABULARY), null, `no badge for ${JSON.stringify(nothing)}`);
    }
    const unknown = supportBadge(h, "<b>most</b>", true, VOCABULARY);
    assert.equal(unknown.textContent, "<b>most</b>", "a level the kernel's words lack: shown as given, as text");
    assert.equal(unknown.title, "<b>most</b>");
    assert.equal(unknown.descendants().length, 0);
    assert.equal(supportBadge(h, "answered", true, {}).textContent, "answered", "no words sent: the level as given");
  });

  test("the audit badge says the kernel's words for the key it sent, and an unknown key as given", () => {
    for (const [key, said] of Object.entries(VOCABULARY.audit)) {
      assert.deepEqual(auditBadge(VOCABULARY, key), said, key);
    }
    assert.equal(auditBadge(VOCABULARY, "STRICT").words, "quotes verified (STRICT)");
    assert.equal(auditBadge(VOCABULARY, "STRICT-unquoted").words, "sources verified, wording not quoted (STRICT)");
    assert.match(auditBadge(VOCABULARY, "STRICT-unquoted").title, /^sources verified, wording not quoted \(STRICT\)\. STRICT: every cited text/);
    for (const key of ["GOLD", "<img src=x>", "toString", "__proto__"]) {
      assert.deepEqual(auditBadge(VOCABULARY, key), { words: key, title: key, mark: key }, key);
    }
    const h = makeH(new FakeDocument());
    const unquoted = { bates: "s-000002", audit_mode: "STRICT", facts: { badge: "STRICT-unquoted" }, support: { level: "answered", quoted: false } };
    const badge = (body, vocabulary = VOCABULARY) =>
      detailHead(h, body, vocabulary).descendants().find((el) => el.getAttribute("class") === "arb-badge arb-audit");
    assert.equal(badge(unquoted).textContent, "sources verified, wording not quoted (STRICT)");
    assert.equal(badge(unquoted).getAttribute("data-audit-mode"), "STRICT", "the mode itself stays the data");
    assert.equal(badge({ ...unquoted, facts: { badge: "STRICT" } }).textContent, "quotes verified (STRICT)", "the kernel's key, not the support, decides");
    assert.equal(badge({ ...unquoted, facts: { badge: "<b>NEW</b>" } }).textContent, "<b>NEW</b>");
    assert.equal(badge({ ...unquoted, facts: { badge: "<b>NEW</b>" } }).descendants().length, 0, "as text, never markup");
    assert.equal(badge(unquoted, {}).textContent, "STRICT-unquoted", "no words sent: the key as given");
    const none = badge({ bates: "s-000002", audit_mode: "NONE", facts: { badge: "NONE" }, audit_reason: "not <here>" });
    assert.equal(none.textContent, "NONE");
    assert.equal(none.title, "NONE: not <here>");
  });

  test("the proof section names the key's dimensions, and a state says why, in the kernel's words", () => {
    const dims = { chunking_version: "k1", source_root: "ab".repeat(32), later_dimension: "x" };
    const rows = dimensionRows(VOCABULARY, dims);
    assert.deepEqual(
      rows.map(([key, name]) => [key, name]),
      [["source_root", "evidence"], ["chunking_version", "chunking"], ["later_dimension", "later_dimension"]],
      "the kernel's order and names; one it does not name after them, as given",
    );
    assert.equal(rows[0][2], VOCABULARY.dimensions[0][2]);
    assert.deepEqual(dimensionRows({}, dims).map(([key, name, what]) => [key, name, what]), Object.keys(dims).map((k) => [k, k, ""]));
    const h = makeH(new FakeDocument());
    const body = { bates: "s-000002", sid: "s", cache_key: "cd".repeat(32), record: { dimensions: dims, evidence: [], state: "ok", hit_count: 0 } };
    const grid = proofSection(h, body, () => {}, VOCABULARY).descendants().filter((el) => el.getAttribute("data-dimension"));
    assert.deepEqual(grid.map((el) => el.getAttribute("data-dimension")), ["cache_key", "source_root", "chunking_version", "later_dimension"]);
    assert.equal(stateWords(VOCABULARY, { state: "stale", state_reason: "its <b>document</b> changed" }), "answer stale: its <b>document</b> changed");
    assert.equal(stateWords(VOCABULARY, { state: "failed" }), "answer failed");
    assert.equal(stateTitle({}, { state: "failed" }), "failed", "no words sent: the state as given");
    assert.equal(stateTitle(VOCABULARY, { state: "<i>odd</i>" }), `<i>odd</i> ${VOCABULARY.unreasoned}`);
  });

  test("nodeName shows a seq at home and a bates abroad", () => {
    assert.equal(nodeName("s-000007", { seq: 7, foreign: false }), "000007");
    assert.equal(nodeName("s-000007", { seq: 7, foreign: true }), "s-000007");
  });
});

// ------------------------------------------------------------ requests ----

class FakeModel {
  constructor(state = {}) {
    this.state = { ...state };
    this.handlers = new Map();
    this.sent = [];
    this.saved = 0;
  }

  get(name) {
    return this.state[name];
  }

  set(name, value) {
    const changed = this.state[name] !== value;
    this.state[name] = value;
    if (changed) this.emit(`change:${name}`);
  }

  save_changes() {
    this.saved++;
  }

  on(event, fn) {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event).add(fn);
  }

  off(event, fn) {
    this.handlers.get(event)?.delete(fn);
  }

  emit(event, ...args) {
    for (const fn of [...(this.handlers.get(event) ?? [])]) fn(...args);
  }

  send(message) {
    this.sent.push(message);
    this.onSend?.(message);
  }
}

describe("Requester", () => {
  test("answers resolve by id; errors reject with the kernel's line", async () => {
    const model = new FakeModel();
    const requester = new Requester(model, { prefix: "t" });
    const one = requester.request("roots", { known: {} });
    const two = requester.request("body", { bates: "x" });
    assert.deepEqual(model.sent.map((m) => [m.id, m.kind]), [["t-1", "roots"], ["t-2", "body"]]);
    model.emit("msg:custom", { id: "someone-else-1", ok: true, result: 0 });
    model.emit("msg:custom", { id: "t-2", ok: false, error: "no turn x" });
    model.emit("msg:custom", { id: "t-1", ok: true, result: { root_hash: "h" } });
    assert.deepEqual(await one, { root_hash: "h" });
    await assert.rejects(two, (error) => error instanceof RequestError && error.message === "no turn x");
    assert.equal(requester.stats.replies, 2);
    requester.close();
  });

  test("a request the kernel never answers times out with a message", async () => {
    const requester = new Requester(new FakeModel(), { timeoutMs: 20 });
    await assert.rejects(requester.request("expand", { bates: [] }), /expand: no answer from the kernel/);
    requester.close();
  });

  test("a closed link says so and how to recover, and every later request fails at once", async () => {
    const model = new FakeModel();
    const requester = new Requester(model, { timeoutMs: 20 });
    let told = 0;
    requester.onLinkClosed = () => told++;
    requester.diagnose = async () => ((await requester.ping(20)) ? null : { closed: true, text: LINK_CLOSED });
    await assert.rejects(requester.request("roots"), (error) => error.message === `roots: ${LINK_CLOSED}`);
    assert.match(LINK_CLOSED, /link to the kernel closed: re-run the cell/);
    const sent = model.sent.length;
    await assert.rejects(requester.request("poll"), /poll: the link to the kernel closed/);
    assert.equal(model.sent.length, sent, "nothing more is sent down a closed link");
    assert.equal(told, 1);
    requester.close();
  });

  test("a message that cannot be sent closes the link in the view's words, said once", async () => {
    const model = new FakeModel();
    model.send = () => {
      throw new Error("Cannot send");
    };
    const requester = new Requester(model, { timeoutMs: 20 });
    let told = 0;
    requester.onLinkClosed = () => told++;
    requester.diagnose = async () => ({ closed: true, text: KERNEL_RESTARTED });
    await assert.rejects(requester.request("poll"), (error) => error.message === `poll: ${KERNEL_RESTARTED}`);
    await assert.rejects(requester.request("body"), (error) => error.message === `body: ${KERNEL_RESTARTED}`);
    assert.equal(requester.linkClosed, KERNEL_RESTARTED);
    assert.equal(told, 1);
    assert.doesNotMatch(requester.linkClosed, /could not send|Cannot send/);
    requester.close();
  });

  test("a restarted, stopped or disconnected kernel ends the link; a live one does not", () => {
    assert.equal(kernelGone(undefined), null);
    assert.equal(kernelGone({ status: "idle", connectionStatus: "connected" }), null);
    assert.equal(kernelGone({ status: "busy", connectionStatus: "connected" }), null);
    assert.equal(kernelGone({ status: "restarting" }), KERNEL_RESTARTED);
    assert.equal(kernelGone({ status: "autorestarting" }), KERNEL_RESTARTED);
    assert.equal(kernelGone({ status: "dead" }), KERNEL_STOPPED);
    assert.equal(kernelGone({ status: "idle", connectionStatus: "disconnected" }), KERNEL_STOPPED);
    assert.equal(kernelGone({ status: "idle", isDisposed: true }), KERNEL_STOPPED);
    for (const text of [KERNEL_RESTARTED, KERNEL_STOPPED]) assert.match(text, /re-run the cell that shows (it|this widget) \(%arborist\)$/);
  });

  test("the server is asked whether a kernel runs: false only when it says 404", async () => {
    const asked = [];
    const server = createServer((request, response) => {
      asked.push([request.url, request.headers.authorization]);
      response.writeHead(request.url.endsWith("/live") ? 200 : 404).end("{}");
    });
    await new Promise((done) => server.listen(0, "127.0.0.1", done));
    const baseUrl = `http://127.0.0.1:${server.address().port}/base`;
    try {
      assert.equal(await kernelOnServer({ id: "live", serverSettings: { baseUrl } }), true);
      assert.equal(await kernelOnServer({ id: "gone", serverSettings: { baseUrl: `${baseUrl}/`, token: "t0k" } }), false);
      assert.deepEqual(asked, [["/base/api/kernels/live", undefined], ["/base/api/kernels/gone", "token t0k"]]);
      assert.equal(await kernelOnServer(undefined), null, "no kernel: not known");
      assert.equal(await kernelOnServer({ id: "x", serverSettings: {} }), null, "no server: not known");
    } finally {
      await new Promise((done) => server.close(done));
    }
    assert.equal(await kernelOnServer({ id: "x", serverSettings: { baseUrl } }), null, "unreachable: not known");
  });

  test("a busy kernel is not a closed link; a kernel that answers the probe neither", async () => {
    const model = new FakeModel();
    const requester = new Requester(model, { timeoutMs: 20 });
    requester.diagnose = async () => ({ closed: false, text: "the kernel is busy running a cell" });
    await assert.rejects(requester.request("roots"), /no answer from the kernel after 0 s \(the kernel is busy running a cell\)/);
    requester.diagnose = async () => ((await requester.ping(200)) ? null : { closed: true, text: LINK_CLOSED });
    const slow = requester.request("expand");
    setTimeout(() => {
      const probe = model.sent.find((m) => m.kind === "poll");
      model.emit("msg:custom", { id: probe.id, ok: true, result: {} });
    }, 40);
    await assert.rejects(slow, /is it busy or stopped/);
    assert.equal(requester.linkClosed, null);
    requester.close();
  });

  test("events go to listeners; anywidget's own messages are ignored", () => {
    const model = new FakeModel();
    const requester = new Requester(model);
    const seen = [];
    requester.onEvent((event) => seen.push(event.kind));
    model.emit("msg:custom", { kind: "turn_done", ok: true, bates: "b" });
    model.emit("msg:custom", { kind: "anywidget-command-response", id: 1 });
    model.emit("msg:custom", "not an object");
    assert.deepEqual(seen, ["turn_done"]);
    requester.close();
  });

  test("close rejects what is pending and stops listening", async () => {
    const model = new FakeModel();
    const requester = new Requester(model);
    const pending = requester.request("roots");
    requester.close();
    await assert.rejects(pending, /closed/);
    assert.equal(model.handlers.get("msg:custom").size, 0);
    await assert.rejects(requester.request("roots"), /closed/);
  });
});

// ----------------------------------------------------------- sync walk ----

describe("the sync walk", () => {
  test("a first sync loads the tree; a second, with nothing changed, asks only for the roots", async () => {
    const { kernel, tops } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 1000 });
    await store.sync();
    assert.equal(store.rows().length, 6 + 24 + 96);
    assert.deepEqual(store.rows().slice(0, 2).map((r) => [r.bates, r.level]), [[tops[0], 1], [store.nodes.get(tops[0]).children[0], 2]]);
    const before = kernel.log.length;
    await store.sync();
    assert.deepEqual(kernel.log.slice(before).map((e) => e.kind), ["roots"]);
  });

  test("one new turn arrives in the roots answer, at any depth, in a few hundred bytes", async () => {
    const { kernel, mids, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 0 });
    await store.sync();
    await openAll(store);
    assert.equal(store.rows().length, 126);

    const parent = leaves[37]; // under mids[9], under tops[2]
    const added = kernel.add(SID, parent, "a new turn");
    const from = kernel.log.length;
    await store.sync();
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"]);
    assert.ok(kernel.bytes(from) < 2000, `${kernel.bytes(from)} bytes`);
    assert.ok(store.rows().some((r) => r.bates === added));
    assert.equal(store.nodes.get(parent).summary.n_children, 1);
    // The walk by hashes still agrees: nothing is stale, and the next sync asks only the roots.
    const again = kernel.log.length;
    await store.sync();
    assert.deepEqual(kernel.log.slice(again).map((e) => e.kind), ["roots"]);
    assert.ok(mids.length);
  });

  test("a view that missed many turns walks by hashes, re-sending no unchanged sibling", async () => {
    const { kernel, mids, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 0 });
    await store.sync();
    await openAll(store);
    const fullBytes = kernel.bytes();
    const parent = leaves[37];
    let last = parent;
    for (let i = 0; i < 60; i++) last = kernel.add(SID, parent, `burst ${i}`);
    const from = kernel.log.length;
    await store.sync();
    const walk = kernel.log.slice(from);
    assert.equal(walk[0].kind, "roots");
    assert.equal(walk[0].result.added, null);
    const asked = walk.filter((e) => e.kind === "expand").flatMap((e) => e.args.bates);
    const path = [`${SID}-000000`, kernel.nodes.get(mids[9]).parent, mids[9], parent];
    assert.deepEqual(asked, path);
    for (const entry of walk.filter((e) => e.kind === "expand")) {
      for (const node of Object.values(entry.result.nodes)) {
        for (const child of node.children) {
          if (child.bates.endsWith("000000") || path.includes(child.bates)) assert.ok(child.summary);
          else if (kernel.nodes.get(child.bates).parent !== parent) {
            assert.deepEqual(Object.keys(child), ["bates"]);
          }
        }
      }
    }
    assert.ok(kernel.bytes(from) < fullBytes * 0.5, `${kernel.bytes(from)} of ${fullBytes}`);
    assert.ok(store.rows().some((r) => r.bates === last));
  });

  test("a 200-deep chain comes in one expand, drawn as its ends around one run row", async () => {
    const kernel = new FakeKernel(SID);
    let parent = `${SID}-000000`;
    const chain = [];
    for (let i = 0; i < 200; i++) chain.push((parent = kernel.add(SID, parent, `turn ${i}`)));
    const store = new ForestStore(kernel.request(), { autoExpandRows: 400 });
    await store.sync();
    assert.deepEqual(kernel.log.map((e) => e.kind), ["roots", "expand"]);
    const rows = store.rows();
    assert.deepEqual(rows.map((r) => r.bates), [chain[0], chain[1], chain[2], `run:${chain[0]}`, chain[198], chain[199]]);
    assert.equal(rows[3].run, 195);
    assert.deepEqual(rows.map((r) => r.indent), [0, 0, 0, 0, 0, 0]);
    assert.equal(rows.at(-1).level, 200);
    await store.expand(rows[3].bates);
    assert.equal(store.rows().length, 200);
    const grow = kernel.log.length;
    const added = kernel.add(SID, chain[199], "one more");
    await store.sync();
    assert.deepEqual(kernel.log.slice(grow).map((e) => e.kind), ["roots"]);
    assert.ok(kernel.bytes(grow) < 2000, `${kernel.bytes(grow)} bytes`);
    assert.equal(store.rows().at(-1).bates, added);
  });

  test("a first sync opens the way to the current turn in its one expand, however deep", async () => {
    const kernel = new FakeKernel(SID);
    let parent = `${SID}-000000`;
    const chain = [];
    for (let i = 0; i < 200; i++) chain.push((parent = kernel.add(SID, parent, `turn ${i}`)));
    const store = new ForestStore(kernel.request()); // a budget of 150 rows: not the whole chain
    await store.sync();
    assert.deepEqual(kernel.log.map((e) => e.kind), ["roots", "expand"]);
    assert.equal(kernel.log[1].args.reveal, chain[199]);
    assert.equal(store.rows().at(-1).bates, chain[199], "the current turn, at the foot, is shown");
    // The view then opens the current turn: its body, and nothing left to fetch on its path.
    const body = await store.body(chain[199]);
    assert.equal(await store.reveal(body.path), true);
    assert.deepEqual(kernel.log.map((e) => e.kind), ["roots", "expand", "body"]);

    const { kernel: bushy, leaves } = bushyKernel();
    const target = leaves[50];
    const other = new ForestStore(bushy.request(), { autoExpandRows: 0 });
    other.openFirst = target; // the view's selection wins over the current turn
    await other.sync();
    assert.deepEqual(bushy.log.map((e) => e.kind), ["roots", "expand"]);
    assert.ok(other.rows().some((r) => r.bates === target));
    assert.ok(!other.rows().some((r) => r.bates === leaves.at(-1)));
    const before = bushy.log.length;
    await other.sync();
    assert.deepEqual(bushy.log.slice(before).map((e) => e.kind), ["roots"], "only a first sync reveals");
  });

  test("a changed subtree that is collapsed is not descended until it is opened", async () => {
    const { kernel, root, tops, mids } = bushyKernel();
    kernel.sessions.get(SID).current = root; // nothing to open the way to
    const store = new ForestStore(kernel.request(), { autoExpandRows: 0 });
    await store.sync();
    assert.deepEqual(store.rows().map((r) => r.expanded), Array(6).fill(false));
    kernel.add(SID, mids[0], "deep");
    const from = kernel.log.length;
    await store.sync();
    const expands = kernel.log.slice(from).filter((e) => e.kind === "expand");
    assert.deepEqual(expands.map((e) => e.args.bates), [], "a turn under a node never fetched is not fetched");
    await store.expand(tops[0]);
    assert.equal(store.nodes.get(tops[0]).children.length, 4);
    await store.expand(mids[0]);
    assert.equal(store.nodes.get(mids[0]).children.length, 5);
  });

  test("a leaf is open from the start, so a turn added under it shows at once", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "first");
    const store = new ForestStore(kernel.request(), { autoExpandRows: 0 });
    await store.sync();
    const second = kernel.add(SID, first, "second");
    await store.sync();
    assert.deepEqual(store.rows().map((r) => [r.bates, r.level]), [[first, 1], [second, 2]]);
  });

  test("reveal opens a node's ancestors in one request", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 0 });
    await store.sync();
    const target = leaves[50];
    const body = await store.body(target);
    const from = kernel.log.length;
    assert.equal(await store.reveal(body.path), true);
    const expands = kernel.log.slice(from).filter((e) => e.kind === "expand");
    assert.equal(expands.length, 1);
    assert.ok(store.rows().some((r) => r.bates === target));
  });

  test("a node of another session outside the tree cannot be revealed", async () => {
    const kernel = new FakeKernel(SID);
    kernel.add(SID, `${SID}-000000`);
    const otherRoot = kernel.addSession(OTHER);
    const theirs = kernel.add(OTHER, otherRoot, "theirs");
    const store = new ForestStore(kernel.request());
    await store.sync();
    assert.equal(await store.reveal([otherRoot]), false);
    assert.ok(!store.rows().some((r) => r.bates === theirs));
  });

  test("grafts are top-level rows tagged with where they were grafted; foreign children are flagged", async () => {
    const kernel = new FakeKernel(SID);
    const mine = kernel.add(SID, `${SID}-000000`, "mine");
    const otherRoot = kernel.addSession(OTHER);
    const theirs = kernel.add(OTHER, otherRoot, "theirs");
    const forkedHere = kernel.add(OTHER, mine, "their fork of mine");
    const graft = kernel.add(SID, theirs, "my fork of theirs");
    const store = new ForestStore(kernel.request());
    await store.sync();
    const rows = store.rows();
    assert.deepEqual(rows.map((r) => [r.bates, r.level, r.graftOf]), [
      [mine, 1, null],
      [forkedHere, 2, null],
      [graft, 1, theirs],
    ]);
    assert.equal(rows[1].summary.foreign, true);
    assert.equal(rows[2].summary.foreign, false);
  });

  test("a graft that grows is refreshed from its own head", async () => {
    const kernel = new FakeKernel(SID);
    kernel.add(SID, `${SID}-000000`);
    const otherRoot = kernel.addSession(OTHER);
    const graft = kernel.add(SID, otherRoot, "graft");
    const store = new ForestStore(kernel.request());
    await store.sync();
    const below = kernel.add(OTHER, graft, "another session answers under my graft");
    assert.equal(store.pollChanged(await kernel.answer("poll", { grafts: [graft] })), true);
    const from = kernel.log.length;
    await store.sync();
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"]);
    assert.ok(store.rows().some((r) => r.bates === below));
  });

  test("pollChanged is false in sync and true after any write", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request());
    await store.sync();
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), false);
    kernel.sessions.get(SID).current = leaves[0];
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), true);
    await store.sync();
    kernel.add(SID, leaves[1]);
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), true);
  });

  test("a rename, which changes no hash, reaches the view through the chain head", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 1000 });
    await store.sync();
    await store.body(leaves[3]);
    kernel.relabel(leaves[3], "<b>renamed</b>");
    const polled = await kernel.answer("poll", {});
    assert.equal(polled.root_hash, store.nodes.get(`${SID}-000000`).hash);
    assert.equal(store.pollChanged(polled), true);
    const from = kernel.log.length;
    await store.sync();
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"]);
    assert.equal(store.nodes.get(leaves[3]).summary.label, "<b>renamed</b>");
    assert.equal(store.bodies.size, 0, "cached bodies held the old label");
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), false);
  });

  test("a record changed in the store (no hash moves) drops the cached bodies", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request());
    await store.sync();
    await store.body(leaves[0]);
    kernel.storeSeq += 1; // another kernel falsified an answer
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), true);
    await store.sync();
    assert.equal(store.bodies.size, 0);
    assert.equal(store.pollChanged(await kernel.answer("poll", {})), false);
  });

  test("a key moved by the first walk of a sync is still told when a second walk follows", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 1000 });
    await store.sync();
    const key = "cd".repeat(32);
    kernel.add(SID, leaves[0], "asked again", { key });
    // The revision trait and the poll timer both ask: the second call joins the first
    // and runs one more walk, which adds nothing.
    const first = store.sync();
    const joined = store.sync();
    await Promise.all([first, joined]);
    assert.equal(store.touched(key), true, "the open turn's key moved in the first walk");
    assert.equal(store.touched("ef".repeat(32)), false, "an unrelated key did not");
  });

  test("an answer falsified elsewhere reaches its rows through the roots answer", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 1000 });
    await store.sync();
    const sent = kernel.log.at(-2).args; // the first sync's roots request
    assert.ok("store_since" in sent, "roots says which store head the view saw");
    const answer = await kernel.answer("roots", { known: {}, since: store.eventSeq });
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 1: "stale" } } });
    assert.equal(store.nodes.get(leaves[0]).summary.state, "stale");
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 1: "ok" } } });
    assert.equal("state" in store.nodes.get(leaves[0]).summary, false, "ok shows nothing");
    // A row that showed revision 1 keeps its state when revision 2 of the key changes.
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 1: "failed" } } });
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 2: "ok" } } });
    assert.equal(store.nodes.get(leaves[0]).summary.state, "failed", "revision 2 is not this row's");
  });

  test("a state learned from the sync drops a reason held for another state", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request(), { autoExpandRows: 1000 });
    await store.sync();
    const answer = await kernel.answer("roots", { known: {}, since: store.eventSeq });
    const node = store.nodes.get(leaves[0]);
    node.summary = { ...node.summary, state: "stale", state_reason: "its document changed" };
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 1: "stale" } } });
    assert.equal(node.summary.state_reason, "its document changed", "the same state keeps its reason");
    store.applyRoots({ ...answer, restated: { ["ab".repeat(6)]: { 1: "failed" } } });
    assert.equal(node.summary.state, "failed");
    assert.equal("state_reason" in node.summary, false, "never another state's reason");
    assert.equal(stateTitle(VOCABULARY, node.summary), "answer failed (open the turn for why)");
    store.applyRoots({
      ...answer,
      restated: { ["ab".repeat(6)]: { 1: "quarantined" } },
      restated_reasons: { ["ab".repeat(6)]: { 1: "its source is distrusted" } },
    });
    assert.equal(stateTitle(VOCABULARY, node.summary), "answer quarantined: its source is distrusted");
    assert.equal(stateTitle(VOCABULARY, { state: "failed", state_reason: "<b>x</b>" }), "answer failed: <b>x</b>");
  });

  test("syncs requested during a sync share it and run once more after it", async () => {
    const { kernel } = bushyKernel();
    const store = new ForestStore(kernel.request());
    const all = await Promise.all([store.sync(), store.sync(), store.sync()]);
    assert.equal(all.length, 3);
    assert.equal(kernel.log.filter((e) => e.kind === "roots").length, 2);
  });

  test("bodies are cached by node hash until invalidated", async () => {
    const { kernel, leaves } = bushyKernel();
    const store = new ForestStore(kernel.request());
    await store.body(leaves[0]);
    await store.body(leaves[0]);
    assert.equal(kernel.log.filter((e) => e.kind === "body").length, 1);
    assert.ok(store.bodies.has(await sha256Hex(utf8(leaves[0]))));
    store.invalidateBodies();
    await store.body(leaves[0]);
    assert.equal(kernel.log.filter((e) => e.kind === "body").length, 2);
  });

  test("rows of a 5,000-turn chain are listed without recursion", () => {
    const store = new ForestStore(async () => ({}));
    store.rootBates = "r";
    let parent = "r";
    for (let i = 1; i <= 5000; i++) {
      const bates = `n${i}`;
      const node = store.node(bates);
      node.summary = { n_children: i < 5000 ? 1 : 0 };
      store.node(parent).children = [bates];
      store.expanded.add(bates);
      parent = bates;
    }
    store.node(parent).children = [];
    const rows = store.rows();
    assert.deepEqual(rows.map((r) => r.bates), ["n1", "n2", "n3", "run:n1", "n4999", "n5000"]);
    assert.equal(rows.at(-1).level, 5000);
    store.openRuns.add("n1");
    const all = store.rows();
    assert.equal(all.length, 5000);
    assert.equal(all.at(-1).level, 5000);
    assert.ok(all.every((r) => r.indent === 0), "a line of only children does not indent");
  });
});

// ------------------------------------------------------------ keyboard ----

describe("keyboard navigation", () => {
  const rows = [
    { bates: "a", parent: null, expandable: true, expanded: true },
    { bates: "a1", parent: "a", expandable: false, expanded: false },
    { bates: "b", parent: null, expandable: true, expanded: false },
    { bates: "c", parent: null, expandable: false, expanded: false },
  ];

  test("up, down, home and end move the focus and stop at the ends", () => {
    assert.deepEqual(navigate(rows, "a", "ArrowDown"), { focus: "a1", action: null });
    assert.deepEqual(navigate(rows, "a", "ArrowUp"), { focus: "a", action: null });
    assert.deepEqual(navigate(rows, "c", "ArrowDown"), { focus: "c", action: null });
    assert.deepEqual(navigate(rows, "b", "Home"), { focus: "a", action: null });
    assert.deepEqual(navigate(rows, "a", "End"), { focus: "c", action: null });
  });

  test("right opens a closed node, then moves to its first child", () => {
    assert.deepEqual(navigate(rows, "b", "ArrowRight"), { focus: "b", action: "expand" });
    assert.deepEqual(navigate(rows, "a", "ArrowRight"), { focus: "a1", action: null });
    assert.deepEqual(navigate(rows, "c", "ArrowRight"), { focus: "c", action: null });
  });

  test("left closes an open node, else moves to the parent", () => {
    assert.deepEqual(navigate(rows, "a", "ArrowLeft"), { focus: "a", action: "collapse" });
    assert.deepEqual(navigate(rows, "a1", "ArrowLeft"), { focus: "a", action: null });
    assert.deepEqual(navigate(rows, "c", "ArrowLeft"), { focus: "c", action: null });
  });

  test("enter and space select; other keys are not the tree's", () => {
    assert.deepEqual(navigate(rows, "b", "Enter"), { focus: "b", action: "select" });
    assert.deepEqual(navigate(rows, "b", " "), { focus: "b", action: "select" });
    assert.equal(navigate(rows, "b", "x"), null);
    assert.equal(navigate(rows, "b", "Tab"), null);
  });

  test("an evidence item shows its place and links its document there, on safe schemes only", () => {
    const h = makeH(new FakeDocument());
    const item = {
      label: "E1", title: "Libtasn1", placed_title: "Libtasn1 · p. 12", uri: "file:///m/libtasn1.pdf",
      link: "file:///m/libtasn1.pdf#page=12", place: { page: 12, path: [], anchor: null },
      chunk_index: 37, chunk_count: 90, cited: true, tier: "hot", text: "x", proof: [], leaf: "", source_root: "",
    };
    assert.equal(placedTitle(item), "Libtasn1 · p. 12");
    assert.equal(placedTitle({ title: "Doc", placed_title: null }), "Doc");
    const link = documentLink(h, item);
    assert.equal(link.tagName, "A");
    assert.equal(link.getAttribute("href"), "file:///m/libtasn1.pdf#page=12");
    assert.equal(link.getAttribute("rel"), "noopener noreferrer");
    for (const uri of ["javascript:alert(1)", "data:text/html,<b>x</b>", "not a uri"]) {
      assert.equal(documentLink(h, { uri, link: uri }), uri, `${uri} stays text`);
    }
    const { list } = evidenceList(h, { answer_text: "[E1]", record: { evidence: [item] } }, () => {});
    // The place apart from the title, so a narrow row cuts the title (every chunk of the
    // document repeats it) before the place that tells the chunks apart.
    const spans = (cls) => list.descendants().filter((n) => n.getAttribute?.("class") === cls).map((n) => n.textContent);
    assert.deepEqual(spans("arb-ev-title"), ["Libtasn1"]);
    assert.deepEqual(spans("arb-ev-place"), ["·"]);
    assert.deepEqual(spans("arb-ev-last"), ["p. 12"]);
    const pathed = evidenceList(h, { answer_text: "[E1]", record: { evidence: [{ ...item, placed_title: "Libtasn1 · Guide › Decoding" }] } }, () => {});
    const pathSpans = (cls) => pathed.list.descendants().filter((n) => n.getAttribute?.("class") === cls).map((n) => n.textContent);
    assert.deepEqual([...pathSpans("arb-ev-place"), ...pathSpans("arb-ev-last")], ["· Guide ›", "Decoding"]);
    assert.equal(placeOf(item), "p. 12");
    assert.equal(placeOf({ title: "Doc", placed_title: "Doc" }), "", "no place: the title alone");
    assert.equal(placeOf({ title: "A · B", placed_title: "A · B" }), "", "a title holding the mark is no place");
    const anchors = list.descendants().filter((n) => n.tagName === "A");
    assert.deepEqual(anchors.map((a) => a.getAttribute("href")), ["file:///m/libtasn1.pdf#page=12"]);
  });

  test("the detail pane says the kernel's facts: each source's lane, hit or miss, what was fitted", () => {
    const h = makeH(new FakeDocument());
    const item = { label: "E1", cited: true, title: "Doc", uri: "pydoc:x", link: "pydoc:x", chunk_index: 2, chunk_count: 3 };
    const facts = {
      cache: "hit (first answered at s-000001, 2026-01-01T00:00:00.000000Z, 2 hit(s))",
      fitted: "1 passage(s) sent (the record notes 5 found, a 500-token context)",
      sources: [{ label: "E1", lane: "related" }],
    };
    const body = { answer_text: "[E1]", record: { evidence: [item], dimensions: {}, state: "ok", hit_count: 2 }, facts };
    const { list } = evidenceList(h, body, () => {});
    assert.match(list.textContent, /\[related\]/);
    const proof = proofSection(h, { ...body, bates: "s-000002", sid: "s", node_hash: "n", subtree_hash: "t" }, () => {});
    assert.ok(proof.textContent.includes(facts.cache) && proof.textContent.includes(facts.fitted));
    const lexical = evidenceList(h, { ...body, facts: { sources: [{ label: "E1", lane: null }] } }, () => {});
    assert.doesNotMatch(lexical.list.textContent, /\[/);
  });

  test("with no focus yet, any move starts at the first row", () => {
    assert.deepEqual(navigate(rows, null, "ArrowDown"), { focus: "a", action: null });
    assert.deepEqual(navigate([], null, "ArrowDown"), { focus: null, action: null });
  });
});

// -------------------------------------------------------------- proofs ----

async function evidenceFor(chunks, index) {
  const leaves = await Promise.all(chunks.map((c) => leafHash(utf8(c))));
  const root = await merkleRoot(leaves);
  const proof = await inclusionProof(leaves, index);
  return {
    label: `E${index + 1}`,
    title: "Doc",
    uri: "file:///doc.md",
    text: chunks[index],
    chunk_index: index,
    chunk_count: chunks.length,
    proof: proof.map(toHex),
    source_root: toHex(root),
    leaf: toHex(leaves[index]),
    cited: true,
    tier: "hot",
  };
}

describe("proofs re-verified in the browser", () => {
  const chunks = ["alpha", "beta <b>", "gamma", "δέλτα", "epsilon"];

  test("every chunk of a document passes", async () => {
    for (let i = 0; i < chunks.length; i++) {
      assert.equal((await verifyEvidence(await evidenceFor(chunks, i))).status, "pass");
    }
  });

  test("a changed text, root, path, index or a size that excludes the index fails", async () => {
    const item = await evidenceFor(chunks, 2);
    const tampered = await verifyEvidence({ ...item, text: "gamma!" });
    assert.deepEqual(tampered, { status: "fail", text: "proof FAILED: the text does not hash to its leaf" });
    const root = (await verifyEvidence({ ...item, source_root: "00".repeat(32) })).status;
    assert.equal(root, "fail");
    assert.equal((await verifyEvidence({ ...item, chunk_count: 2 })).status, "fail");
    assert.equal((await verifyEvidence({ ...item, chunk_count: 1 })).status, "fail");
    assert.equal((await verifyEvidence({ ...item, proof: item.proof.slice(1) })).status, "fail");
    assert.equal((await verifyEvidence({ ...item, chunk_index: 3 })).status, "fail");
  });

  test("cold evidence is not verifiable here; malformed hex is an error, not a pass", async () => {
    const item = await evidenceFor(chunks, 0);
    assert.deepEqual(await verifyEvidence({ ...item, text: null }), {
      status: "cold",
      text: "not verifiable here (cold)",
    });
    assert.equal((await verifyEvidence({ ...item, source_root: "zz" })).status, "error");
  });

  test("the verdict over items", () => {
    assert.equal(proofVerdict([]), "none");
    assert.equal(proofVerdict([{ status: "pass" }, { status: "pass" }]), "pass");
    assert.equal(proofVerdict([{ status: "pass" }, { status: "cold" }]), "cold");
    assert.equal(proofVerdict([{ status: "cold" }, { status: "error" }]), "fail");
  });
});

// --------------------------------------------------- the view, smoke ----

/** A fake kernel behind a fake model: what anywidget would connect to. */
function connect(kernel) {
  const session = kernel.sessions.get(kernel.sid);
  const model = new FakeModel({
    sid: kernel.sid,
    title: "notes",
    vocabulary: VOCABULARY,
    revision: 0,
    poll_ms: 0,
    selected_bates: "",
    current_bates: session.current,
  });
  model.onSend = (message) => {
    const { id, kind, ...args } = message;
    kernel.answer(kind, args).then(
      (result) => setImmediate(() => model.emit("msg:custom", { id, ok: true, result })),
      (error) => setImmediate(() => model.emit("msg:custom", { id, ok: false, error: error.message })),
    );
  };
  return model;
}

describe("the view on a fake DOM", () => {
  test("a kernel that restarts or stops is said at once, never 'in sync'", async () => {
    const kernel = new FakeKernel(SID);
    kernel.add(SID, `${SID}-000000`, "Who created Spider-Man?");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    const listeners = new Set();
    const signal = { connect: (fn) => listeners.add(fn), disconnect: (fn) => listeners.delete(fn) };
    const connection = { status: "idle", connectionStatus: "connected", statusChanged: signal };
    model.widget_manager = { kernel: connection };
    const cleanup = widget.render({ model, el });
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    const status = el.byAttr("aria-label", "Status")[0];
    assert.match(status.textContent, /in sync/);
    connection.status = "restarting";
    for (const fn of listeners) fn(connection, "restarting");
    assert.equal(status.textContent, KERNEL_RESTARTED);
    assert.equal(status.getAttribute("data-status"), "error");
    assert.equal(el.byAttr("data-arborist-forest")[0].getAttribute("data-link"), "closed");
    connection.status = "idle"; // the new kernel knows nothing of this widget
    for (const fn of listeners) fn(connection, "idle");
    assert.equal(status.textContent, KERNEL_RESTARTED, "the restart is still what happened");
    cleanup();
    assert.equal(listeners.size, 0, "the view stops listening when it goes");
  });

  test("each evidence row says what was checked for it, in the %%ask output's words (issue #35)", async () => {
    const kernel = new FakeKernel(SID);
    const bates = kernel.add(SID, `${SID}-000000`, "What does median return?");
    const chunks = [
      "Return the median (middle value) of numeric data.",
      "Values are sorted before the middle one is taken.",
      "Return the sample arithmetic mean of data.",
    ];
    const node = kernel.nodes.get(bates);
    node.answer = "Return the median (middle value) of numeric data [E1]. It sorts them first [E2].";
    // The kernel's facts name each row's check (`row_key` in arborist/_qa/support.py); a key
    // its vocabulary lacks is shown as given; a row the facts do not name, the proof's verdict.
    const checked = ["quoted", "unquoted", "uncited", "<b>new</b>"];
    node.sources = checked.map((key, i) => ({ label: `E${i + 1}`, lane: null, checked: key }));
    node.record = {
      state: "ok",
      state_reason: null,
      hit_count: 0,
      dimensions: { source_root: "ab".repeat(32), conversation_hash: "" },
      evidence: [
        await evidenceFor(chunks, 0),
        await evidenceFor(chunks, 1),
        { ...(await evidenceFor(chunks, 2)), cited: false },
        { ...(await evidenceFor(chunks, 2)), label: "E4" },
        { ...(await evidenceFor(chunks, 0)), label: "E5" },
      ],
    };
    const el = new FakeDocument().createElement("div");
    const cleanup = widget.render({ model: connect(kernel), el });
    const detail = el.byAttr("aria-label", "Node detail")[0];
    await until(() => detail.getAttribute("data-proofs") === "pass", "proofs");
    const said = (label) => detail.byAttr("aria-label", `Proof of ${label}`)[0].textContent;
    assert.equal(said("E1"), "✓ quotes verified", "its quote is in its bytes");
    assert.equal(said("E2"), "✓ sources verified, wording not quoted", "cited, paraphrased");
    assert.equal(said("E3"), "✓ retrieved, not cited");
    assert.equal(said("E4"), "✓ <b>new</b>", "a key the kernel's words lack: as given, as text");
    assert.match(said("E5"), /^✓ re-verified in this browser/, "no check named: the browser's own verdict");
    assert.equal(detail.byAttr("aria-label", "Proof of E4")[0].descendants().length, 0);
    assert.equal(el.textContent.includes("quote verified"), false, "never the old word for every row");
    cleanup();
  });

  test("control characters show as their escapes, as in the %%ask output, wherever text is shown", async () => {
    const kernel = new FakeKernel(SID);
    const bates = kernel.add(SID, `${SID}-000000`, "Why \x1b[2J\x07 this?");
    const chunks = ["The chunk \x1b]0;pwned\x07 says \u202eevil.", "other"];
    const node = kernel.nodes.get(bates);
    node.answer = "ANSI: \x1b[31mred text\x1b[0m and a bell \x07 end [E1].\n\n| a\x1b | b |\n|---|---|\n| \x9b | `\x00` |";
    const item = { ...(await evidenceFor(chunks, 0)), title: "Median\x07 notes\x1b[1m" };
    node.record = { state: "ok", state_reason: null, hit_count: 0, dimensions: {}, evidence: [item] };
    const el = new FakeDocument().createElement("div");
    const cleanup = widget.render({ model: connect(kernel), el });
    const detail = el.byAttr("aria-label", "Node detail")[0];
    await until(() => detail.getAttribute("data-proofs") === "pass", "proofs");
    detail.descendants().find((n) => n.getAttribute("class") === "arb-cite").dispatch("click");
    const shown = el.textContent;
    const raw = /[\0-\x08\x0b-\x1f\x7f-\x9f\u202e]/;
    assert.doesNotMatch(shown, raw, "no raw control character is written");
    for (const node of el.descendants()) {
      for (const name of ["title", "aria-label"]) assert.doesNotMatch(node.getAttribute(name) ?? "", raw, name);
    }
    const said = detail.byAttr("aria-label", "Answer")[0].textContent;
    assert.ok(said.includes("ANSI: \\x1b[31mred text\\x1b[0m and a bell \\x07 end"), said);
    assert.ok(said.includes("a\\x1b") && said.includes("\\x9b") && said.includes("\\0"), "in a table's cells");
    assert.ok(detail.byAttr("aria-label", "Question")[0].textContent.includes("Why \\x1b[2J\\x07 this?"));
    const cited = detail.byAttr("aria-label", "Cited text")[0].textContent;
    assert.ok(cited.includes("Median\\x07 notes\\x1b[1m"), cited);
    assert.ok(cited.includes("The chunk \\x1b]0;pwned\\x07 says \\u202eevil."), cited);
    assert.equal(item.text, chunks[0], "the item keeps its text as stored");
    cleanup();
  });

  test("renders the tree, opens the current node, escapes its answer and verifies its proofs", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "Who created Spider-Man?");
    const evil = kernel.add(SID, first, "<img src=x onerror=alert(1)>");
    const node = kernel.nodes.get(evil);
    node.answer = 'Hi <script>alert("x")</script> [E1 | Doc | file:///doc.md]';
    node.record = {
      state: "ok",
      state_reason: null,
      hit_count: 0,
      dimensions: { source_root: "ab".repeat(32), conversation_hash: "" },
      evidence: [{ ...(await evidenceFor(["one", "two", "three"], 1)), label: "E1" }, { ...(await evidenceFor(["x"], 0)), label: "E2", text: null }],
    };
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    const cleanup = widget.render({ model, el });
    await until(() => el.byAttr("data-ready", "true").length, "the tree");

    const forest = el.byAttr("data-arborist-forest")[0];
    assert.equal(forest.getAttribute("data-ready"), "true");
    assert.equal(forest.getAttribute("data-lm-suppress-shortcuts"), "true");
    const rows = el.byAttr("role", "treeitem");
    assert.deepEqual(rows.map((r) => r.getAttribute("data-bates")), [first, evil]);
    assert.equal(rows[1].getAttribute("aria-level"), "2");
    assert.equal(rows[1].getAttribute("data-current"), "true");
    assert.equal(rows[1].textContent.includes("<img src=x onerror=alert(1)>"), true);
    assert.equal(el.find((n) => n.tagName === "IMG" || n.tagName === "SCRIPT").length, 0);

    // The current node opens on its own; its answer is text, its proofs re-verified.
    const detail = el.byAttr("aria-label", "Node detail")[0];
    await until(() => ["pass", "fail", "cold"].includes(detail.getAttribute("data-proofs")), "proofs");
    assert.equal(detail.getAttribute("data-bates"), evil);
    assert.deepEqual(kernel.log.map((e) => e.kind), ["roots", "expand", "body"], "the first screen");
    assert.equal(rows[1].getAttribute("aria-selected"), "true");
    const answer = el.byAttr("aria-label", "Answer")[0];
    assert.ok(answer.textContent.startsWith('Hi <script>alert("x")</script> '));
    assert.equal(detail.byAttr("data-proof", "pass").length, 2); // the li and its status
    assert.equal(detail.byAttr("data-evidence", "E2")[0].getAttribute("data-proof"), "cold");
    assert.equal(detail.getAttribute("data-proofs"), "cold");
    assert.match(detail.byAttr("aria-label", "Proof of E2")[0].textContent, /not verifiable here \(cold\)/);

    // A citation button shows the cited chunk's text.
    detail.byAttr("data-citation", "E1").find((n) => n.tagName === "BUTTON").dispatch("click");
    const cited = detail.byAttr("aria-label", "Cited text")[0];
    assert.equal(cited.hidden, false);
    assert.match(cited.textContent, /two$/);

    // Keyboard: keys on a focused row move the roving tabindex and stay in the tree.
    const tree = el.byAttr("role", "tree")[0];
    const firstRow = el.byAttr("role", "treeitem")[0];
    firstRow.focus();
    firstRow.dispatch("focusin");
    const down = firstRow.dispatch("keydown", { key: "ArrowDown" });
    assert.ok(down.defaultPrevented && down.stopped, "the notebook never sees a key the tree used");
    assert.equal(doc.activeElement.getAttribute("data-bates"), evil);
    assert.deepEqual(
      el.byAttr("role", "treeitem").map((r) => r.getAttribute("tabindex")),
      ["-1", "0"],
    );
    assert.equal(tree.dispatch("keydown", { key: "a" }).stopped, false);
    detail.scrollTop = 583; // read far down the pane
    tree.dispatch("keydown", { key: "Home" });
    tree.dispatch("keydown", { key: "Enter" });
    await until(() => detail.getAttribute("data-bates") === first && detail.getAttribute("data-loading") === "false", "the first node");
    assert.equal(detail.scrollTop, 0, "another turn opens at its heading, not at the old scroll");
    assert.ok(!detail.textContent.includes("● current turn"), "the first turn is not current yet");
    model.set("current_bates", first); // %%ask --parent, or a cd in the kernel
    await until(() => detail.textContent.includes("● current turn"), "the open detail follows the kernel");
    model.set("current_bates", evil);
    await until(() => !detail.textContent.includes("● current turn"), "and lets go of it again");
    assert.equal(model.get("selected_bates"), first);
    assert.equal(el.byAttr("role", "treeitem")[0].getAttribute("tabindex"), "0");
    tree.dispatch("keydown", { key: "ArrowLeft" });
    assert.deepEqual(el.byAttr("role", "treeitem").map((r) => r.getAttribute("data-bates")), [first]);
    assert.equal(el.byAttr("role", "treeitem")[0].getAttribute("aria-expanded"), "false");

    // The kernel adds a turn and bumps revision: the view walks and shows it.
    const third = kernel.add(SID, evil, "third");
    tree.dispatch("keydown", { key: "ArrowRight" });
    model.set("revision", 1);
    await until(() => el.byAttr("data-bates", third).length, "the new turn");
    assert.equal(el.byAttr("role", "treeitem").length, 3);

    cleanup();
    assert.equal(model.handlers.get("msg:custom").size, 0);
    assert.equal(model.handlers.get("change:revision").size, 0);
  });

  test("the traits one kernel message changes cost one refresh: one roots", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "first");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    const cleanup = widget.render({ model, el });
    const detail = () => el.byAttr("aria-label", "Node detail")[0];
    await until(() => detail()?.getAttribute("data-rendered") === first, "the current turn");
    const second = kernel.add(SID, first, "second");
    const from = kernel.log.length;
    // One `update` message: anywidget sets its traits one by one, in one task.
    model.set("root_hash", "changed");
    model.set("current_bates", second);
    model.set("revision", 1);
    await until(() => el.byAttr("role", "treeitem").some((r) => r.getAttribute("data-bates") === second), "the new turn");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"]);
    cleanup();
  });

  test("each row's audit badge is the kernel's: its key, said in the words the widget was sent", async () => {
    const kernel = new FakeKernel(SID);
    const quoted = kernel.add(SID, `${SID}-000000`, "a quoted answer", { quoted: true });
    const paraphrase = kernel.add(SID, quoted, "a paraphrase");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    const badge = (bates) =>
      el.byAttr("role", "treeitem").find((r) => r.getAttribute("data-bates") === bates)?.byAttr("class", "arb-badge arb-audit")[0];
    await until(() => badge(paraphrase), "both rows");
    assert.equal(badge(quoted).title, VOCABULARY.audit.STRICT.title);
    assert.equal(badge(quoted).textContent, "S");
    assert.equal(badge(paraphrase).title, VOCABULARY.audit["STRICT-unquoted"].title);
    assert.match(badge(paraphrase).title, /^sources verified, wording not quoted \(STRICT\)/);
    assert.equal(badge(paraphrase).getAttribute("data-audit-mode"), "STRICT");
    const legend = el.byAttr("class", "arb-legend")[0].textContent;
    assert.ok(legend.startsWith(`${VOCABULARY.legend} · `), "the marks' legend is the kernel's");
    cleanup();
  });

  test("a kernel error shows in the status line, in one line", async () => {
    const kernel = new FakeKernel(SID);
    kernel.answer = async () => {
      throw new Error("sessions.db is locked");
    };
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-status", "error").length, "the error");
    const status = el.byAttr("aria-label", "Status")[0];
    assert.equal(status.getAttribute("data-status"), "error");
    assert.equal(status.textContent, "sync: sessions.db is locked");
    cleanup();
  });
});

describe("notices", () => {
  test("an action's notice outlives the next sync until it is dismissed", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "first question");
    kernel.add(SID, first, "second question");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    const notice = el.byAttr("aria-label", "Notice")[0];
    assert.equal(notice.hidden, true, "nothing to say yet");
    await view.cd(first);
    assert.equal(notice.hidden, false);
    assert.equal(notice.getAttribute("data-notice"), "ok");
    assert.match(notice.textContent, /^#1 is now the current turn/);
    await view.refresh();
    assert.match(el.byAttr("aria-label", "Status")[0].textContent, /in sync$/);
    assert.match(notice.textContent, /^#1 is now the current turn/, "a sync does not overwrite it");
    el.byAttr("aria-label", "Dismiss notice")[0].dispatch("click");
    assert.equal(notice.hidden, true);
    cleanup();
  });
});

describe("the detail of an imported turn", () => {
  test("says once that this home's store does not hold its answer", async () => {
    const kernel = new FakeKernel(SID);
    const imported = kernel.add(SID, `${SID}-000000`, "imported question");
    kernel.nodes.get(imported).recordError = "no cache record with key abababababab";
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    await view.showDetail(imported, { reveal: false });
    const detail = el.byAttr("aria-label", "Node detail")[0];
    await until(() => detail.getAttribute("data-rendered") === imported, "the detail");
    const said = detail.textContent.split("no cache record with key").length - 1;
    assert.equal(said, 1, "one line says it, where Falsify would be");
    cleanup();
  });
});

describe("literals in an answer", () => {
  test("pydoc's ``name`` shows as code, never as its backticks", async () => {
    const kernel = new FakeKernel(SID);
    const turn = kernel.add(SID, `${SID}-000000`, "what does it return?");
    kernel.nodes.get(turn).answer = "Use ``median(data)`` or ``mean``; a lone `` stays.";
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    await view.showDetail(turn, { reveal: false });
    const answer = el.byAttr("aria-label", "Answer")[0];
    await until(() => answer && answer.textContent.startsWith("Use "), "the answer");
    const codes = answer.find((n) => n.tagName === "CODE").map((n) => n.textContent);
    assert.deepEqual(codes, ["median(data)", "mean"]);
    assert.equal(answer.textContent, "Use median(data) or mean; a lone `` stays.");
    cleanup();
  });
});

describe("a view with no session yet (issue #26)", () => {
  test("asks nothing, offers the first question, and shows the session its first turn makes", async () => {
    const kernel = new FakeKernel(SID);
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    model.set("sid", ""); // the kernel has no session: it wrote none
    model.set("current_bates", "");
    const asked = [];
    const answer = kernel.answer.bind(kernel);
    kernel.answer = async (kind, args) => {
      if (kind !== "ask") return answer(kind, args);
      asked.push(args.question);
      return { pending: true, parent: null };
    };
    const view = new ForestView(model, el);
    const cleanup = view.start();
    const forest = el.byAttr("data-arborist-forest")[0];
    await until(() => forest.getAttribute("data-ready") === "true", "the empty state");
    assert.equal(forest.getAttribute("data-waiting"), "true");
    assert.equal(el.byAttr("aria-label", "Status")[0].textContent, "no turns yet");
    assert.match(el.byAttr("aria-label", "No turns yet")[0].textContent, /^No turns yet: ask a question with %%ask/);
    await settle();
    assert.deepEqual(kernel.log, [], "no request: there is nothing to sync");

    // The first question, asked in the view: the kernel answers it in the background.
    const input = el.byAttr("aria-label", "First question")[0];
    input.value = "<b>Who created Spider-Man?</b>";
    input.dispatch("keydown", { key: "Enter" });
    await until(() => asked.length === 1, "the ask request");
    assert.deepEqual(asked, ["<b>Who created Spider-Man?</b>"]);
    const status = el.byAttr("aria-label", "First question status")[0];
    assert.equal(status.getAttribute("data-fork"), "pending");

    // Its turn made the session: the kernel names it in the traits, then says turn_done.
    const first = kernel.add(SID, `${SID}-000000`, "<b>Who created Spider-Man?</b>");
    model.set("sid", SID);
    model.set("current_bates", first);
    model.set("revision", 1);
    await until(() => forest.getAttribute("data-waiting") === "false", "the session");
    const [request] = [...view.forks.keys()];
    model.emit("msg:custom", { kind: "turn_done", ok: true, request, parent: null, bates: first, hit: false });
    await until(() => el.byAttr("role", "treeitem").some((r) => r.getAttribute("data-bates") === first), "the first turn");
    assert.equal(forest.getAttribute("data-sid"), SID);
    assert.equal(el.byAttr("role", "treeitem")[0].textContent.includes("<b>Who created Spider-Man?</b>"), true);
    assert.equal(el.find((n) => n.tagName === "B").length, 0, "the question is text");
    await until(() => el.byAttr("aria-label", "Node detail")[0].getAttribute("data-bates") === first, "its detail");
    cleanup();
  });
});

describe("the view over the notebook's changes (issue #35, item 6)", () => {
  /** A view on a turn with an answer in service, its detail open. */
  async function opened() {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "Who created Spider-Man?");
    kernel.nodes.get(first).record = { state: "ok", state_reason: null, revision: 1, hit_count: 0, dimensions: {}, evidence: [] };
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    const view = new ForestView(model, el);
    const cleanup = view.start();
    const detail = el.byAttr("aria-label", "Node detail")[0];
    await until(() => detail.getAttribute("data-rendered") === first, "the detail");
    return { kernel, first, el, model, view, cleanup, detail };
  }

  test("once the question is answered again, neither the notice nor the pane offers Undo", async () => {
    const { kernel, first, el, model, view, cleanup, detail } = await opened();
    await view.falsify(first, "failed", "the year is <b>wrong</b>");
    const notice = el.byAttr("aria-label", "Notice")[0];
    const undo = notice.find((n) => n.getAttribute?.("aria-label") === "Undo falsification")[0];
    assert.equal(undo.hidden, false, "offered while it can be taken");
    await until(() => detail.byAttr("aria-label", "Undo falsification").length === 1, "the pane's undo");
    // A %%ask cell asks the question again: revision 2 answers it, in a turn of its own.
    kernel.nodes.get(first).latest = { revision: 2, state: "ok" };
    kernel.add(SID, `${SID}-000000`, "Who created Spider-Man?", { revision: 2 }); // the same key
    kernel.storeSeq++; // the new revision's record
    model.set("revision", 1);
    await until(() => detail.byAttr("aria-label", "Undo falsification").length === 0, "the pane without undo");
    assert.match(detail.byAttr("aria-label", "Later revision")[0].textContent, /revision 2 has answered/);
    await until(() => undo.hidden, "the notice without undo");
    assert.match(notice.textContent, /revision 2 has answered the question since, so it can no longer be undone/);
    assert.equal(view.noticeUndo, null);
    cleanup();
  });

  test("the Undo stays while nothing replaced the answer, and a sync without a store change reads no body", async () => {
    const { kernel, first, el, model, view, cleanup, detail } = await opened();
    await view.falsify(first, "failed", "wrong");
    await until(() => detail.byAttr("aria-label", "Undo falsification").length === 1, "the pane's undo");
    const synced = kernel.log.length;
    await view.refresh(); // the view learns of its own falsification: one body, read once
    await until(() => kernel.log.length >= synced + 2, "the body read again");
    await new Promise((resolve) => setTimeout(resolve, 50)); // (WebCrypto answers late)
    assert.deepEqual(kernel.log.slice(synced).map((e) => e.kind), ["roots", "body"]);
    kernel.add(SID, first, "And who drew him?"); // a follow-up: the store does not move
    const from = kernel.log.length;
    model.set("revision", 1);
    await until(() => el.byAttr("role", "treeitem").length === 2, "the new turn");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"]);
    const notice = el.byAttr("aria-label", "Notice")[0];
    assert.equal(notice.find((n) => n.getAttribute?.("aria-label") === "Undo falsification")[0].hidden, false);
    assert.equal(view.noticeUndo.bates, first);
    cleanup();
  });

  test("a store change about other answers reads no body; one about the open turn's does", async () => {
    const { kernel, first, el, model, cleanup, detail } = await opened();
    const other = kernel.add(SID, `${SID}-000000`, "Who created Batman?", { key: "cd".repeat(32) });
    kernel.nodes.get(other).record = { state: "ok", state_reason: null, revision: 1, hit_count: 0, dimensions: {}, evidence: [] };
    model.set("revision", 1);
    await until(() => el.byAttr("role", "treeitem").length === 2, "the other turn");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const from = kernel.log.length;
    kernel.restate(other, "failed", "wrong hero"); // the other answer, falsified elsewhere
    model.set("revision", 2);
    await until(() => el.byAttr("data-bates", other).some((n) => n.getAttribute("data-state") === "failed"), "its row");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(kernel.log.slice(from).map((e) => e.kind), ["roots"], "the open turn's body is not read");
    kernel.restate(first, "stale", "spider.md changed"); // the open turn's answer
    model.set("revision", 3);
    await until(() => detail.getAttribute("data-state") === "stale", "the pane redrawn");
    assert.equal(detail.byAttr("aria-label", "Why")[0].textContent, "spider.md changed");
    cleanup();
  });

  test("the reason is shown as text in the row, the pane and a search hit", async () => {
    const { first, el, view, cleanup, detail } = await opened();
    await view.falsify(first, "failed", "the year is <b>wrong</b>");
    const row = el.byAttr("data-bates", first).find((n) => n.getAttribute("role") === "treeitem");
    assert.equal(row.byAttr("aria-label", "Why")[0].textContent, "the year is <b>wrong</b>");
    await until(() => detail.byAttr("aria-label", "Why").length === 1, "the reason in the pane");
    assert.equal(detail.byAttr("aria-label", "Why")[0].textContent, "the year is <b>wrong</b>");
    assert.equal(detail.byAttr("aria-label", "Falsification state")[0].textContent, "already failed: the year is <b>wrong</b>");
    await view.search("Spider");
    const hit = el.byAttr("aria-label", `Open ${first}`)[0];
    assert.equal(hit.getAttribute("data-state"), "failed");
    assert.equal(hit.byAttr("aria-label", "Why")[0].textContent, "the year is <b>wrong</b>");
    assert.equal(el.find((n) => n.tagName === "B").length, 0, "the reason is text");
    cleanup();
  });

  test("two sessions of one label in the results are told apart by when each began", async () => {
    const { view, cleanup } = await opened();
    const hit = (sid, label) => ({ sid, bates: `${sid}-000001`, foreign: true, session_label: label, question: "q", snippet: "s" });
    const groups = view.searchGroups([
      hit("20261207T210900Z-aaaaaa", "01-quickstart.ipynb"),
      hit("20261207T211500Z-bbbbbb", "01-quickstart.ipynb"),
      hit("20261207T212000Z-cccccc", "notes"),
    ]);
    const titles = groups.map((g) => g.descendants().find((n) => n.getAttribute?.("class") === "arb-hit-session").textContent);
    assert.deepEqual(titles, [
      "01-quickstart.ipynb · 2026-12-07 21:09 UTC (1)",
      "01-quickstart.ipynb · 2026-12-07 21:15 UTC (1)",
      "notes (1)",
    ]);
    cleanup();
  });

  test("a search answered after Escape closed the results leaves them closed", async () => {
    const { el, view, cleanup } = await opened();
    await view.search("Spider");
    const results = el.byAttr("aria-label", "Search results")[0];
    assert.equal(results.hidden, false);
    const late = view.search("Spider"); // searched again (a turn was added); no reply yet
    assert.equal(view.escape(view.queryEl), true);
    assert.equal(results.hidden, true);
    await late;
    assert.equal(results.hidden, true, "the late reply does not open them again");
    await view.search("Spider"); // the reader searches again: they open
    assert.equal(results.hidden, false);
    cleanup();
  });

  test("search hits are searched again when a turn is added or an answer falsified", async () => {
    const { kernel, first, el, model, view, cleanup } = await opened();
    await view.search("Spider");
    const results = el.byAttr("aria-label", "Search results")[0];
    assert.equal(results.getAttribute("data-count"), "1");
    const second = kernel.add(SID, first, "Who drew Spider-Man?"); // a %%ask cell in the kernel
    model.set("revision", 1);
    await until(() => results.getAttribute("data-count") === "2", "the new turn found");
    assert.equal(el.byAttr("aria-label", `Open ${second}`).length, 1);
    // Falsified in another face (%arborist falsify): only the store moves.
    kernel.restate(first, "stale", "spider.md changed");
    model.set("revision", 2);
    await until(() => el.byAttr("aria-label", `Open ${first}`)[0]?.getAttribute("data-state") === "stale", "the hit restated");
    view.dismiss();
    await view.search(""); // cleared: nothing is searched again
    const from = kernel.log.length;
    kernel.add(SID, first, "Another question about Spider-Man");
    model.set("revision", 3);
    await until(() => el.byAttr("role", "treeitem").length === 3, "the third turn");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(!kernel.log.slice(from).some((e) => e.kind === "find"));
    cleanup();
  });
});

describe("errors are said once (issue #35)", () => {
  test("a failed first question is said beside its box, not again in the status and the notice", async () => {
    const kernel = new FakeKernel(SID);
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const model = connect(kernel);
    model.set("sid", "");
    model.set("current_bates", "");
    const answer = kernel.answer.bind(kernel);
    kernel.answer = async (kind, args) => (kind === "ask" ? { pending: true, parent: null } : answer(kind, args));
    const view = new ForestView(model, el);
    const cleanup = view.start();
    const forest = el.byAttr("data-arborist-forest")[0];
    await until(() => forest.getAttribute("data-ready") === "true", "the empty state");
    const input = el.byAttr("aria-label", "First question")[0];
    input.value = "What does median return?";
    input.dispatch("keydown", { key: "Enter" });
    await until(() => view.forks.size === 1, "the ask request");
    const [request] = [...view.forks.keys()];
    const error = "no documents ingested yet: nothing to answer from. Run `%arborist ingest --demo` for the built-in corpus";
    model.emit("msg:custom", { kind: "turn_done", ok: false, request, parent: null, error });
    const status = el.byAttr("aria-label", "First question status")[0];
    await until(() => status.getAttribute("data-fork") === "error", "the failure");
    assert.equal(status.textContent, `ask failed: ${error}`);
    assert.equal(el.textContent.split("no documents ingested").length - 1, 1, "said once");
    assert.equal(el.byAttr("aria-label", "Notice")[0].hidden, true);
    assert.notEqual(el.byAttr("aria-label", "Status")[0].getAttribute("data-status"), "error");
    cleanup();
  });

  test("a failed action is said in the notice only; a failed sync in the status only", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "first question");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    const status = el.byAttr("aria-label", "Status")[0];
    const notice = el.byAttr("aria-label", "Notice")[0];
    view.fail(new Error("label too long"), "label");
    assert.equal(notice.hidden, false);
    assert.equal(notice.getAttribute("data-notice"), "error");
    assert.match(status.textContent, /in sync$/, "the status keeps the sync's word");
    assert.equal(el.textContent.split("label too long").length - 1, 1);
    view.dismiss();
    view.fail(new Error("sessions.db is locked"), "sync");
    assert.equal(status.textContent, "sync: sessions.db is locked");
    assert.equal(notice.hidden, true);
    assert.ok(first);
    cleanup();
  });

  test("a closed link is said once, in the status; an action then says only that it was not sent", async () => {
    const kernel = new FakeKernel(SID);
    kernel.add(SID, `${SID}-000000`, "first question");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    const status = el.byAttr("aria-label", "Status")[0];
    const notice = el.byAttr("aria-label", "Notice")[0];
    view.notify("ok", "#1 is now the current turn");
    view.requester.closeLink(LINK_CLOSED);
    view.linkLost();
    assert.equal(status.textContent, LINK_CLOSED);
    assert.equal(notice.hidden, true, "the notice does not say it again");
    assert.equal(el.textContent.split(LINK_CLOSED).length - 1, 1, "said once");
    view.fail(new Error("ignored"), "label");
    assert.equal(notice.textContent.startsWith(`label: ${NOT_SENT}`), true);
    assert.equal(el.textContent.split(LINK_CLOSED).length - 1, 1, "still said once");
    cleanup();
  });
});

describe("focus stays with the reader (issue #35)", () => {
  test("× and Undo hand the focus to the selected row; Escape closes the notice, then returns to the tree", async () => {
    const kernel = new FakeKernel(SID);
    const first = kernel.add(SID, `${SID}-000000`, "first question");
    const doc = new FakeDocument();
    const el = doc.createElement("div");
    const view = new ForestView(connect(kernel), el);
    const cleanup = view.start();
    await until(() => el.byAttr("data-ready", "true").length, "the tree");
    await view.select(first);
    const notice = el.byAttr("aria-label", "Notice")[0];
    const rowOf = () => doc.activeElement?.getAttribute("data-bates");
    // ×: the notice goes, the focus goes to the row.
    view.notify("ok", "labelled #1");
    el.byAttr("aria-label", "Dismiss notice")[0].focus();
    el.byAttr("aria-label", "Dismiss notice")[0].dispatch("click");
    assert.equal(notice.hidden, true);
    assert.equal(rowOf(), first);
    assert.equal(el.byAttr("data-bates", first).find((r) => r.getAttribute("role") === "treeitem").getAttribute("tabindex"), "0");
    // Undo: its button goes with the text it undid.
    view.notify("ok", "falsified", { text: "Undo", label: "Undo falsification", run: () => view.notify("ok", "undone") });
    el.byAttr("aria-label", "Undo falsification")[0].focus();
    el.byAttr("aria-label", "Undo falsification")[0].onclick(); // a property, as the view sets it
    assert.match(notice.textContent, /undone/);
    assert.equal(rowOf(), first);
    // Escape in the detail: first the notice closes, then the focus goes back to the tree.
    const fork = el.byAttr("aria-label", "Fork question")[0];
    fork.focus();
    const esc = fork.dispatch("keydown", { key: "Escape" });
    assert.ok(esc.defaultPrevented && esc.stopped, "the notebook does not take an Escape the widget used");
    assert.equal(notice.hidden, true);
    assert.equal(doc.activeElement, fork, "closing the notice leaves the focus where it was");
    fork.dispatch("keydown", { key: "Escape" });
    assert.equal(rowOf(), first);
    const inTree = doc.activeElement.dispatch("keydown", { key: "Escape" });
    assert.equal(inTree.stopped, false, "in the tree with nothing open, Escape is the host's");
    cleanup();
  });
});
