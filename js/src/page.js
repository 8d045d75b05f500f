/**
 * The page `arborist export --html` writes (docs/bundle.md, "The page"): the
 * bundle embedded in `<script type="application/json" id="arborist-bundle">`,
 * shown as its forest (sessions, then turns as a tree), each turn's question,
 * answer, mode, state, sources and proofs; on opening, every hash, proof and
 * chain link is checked again here (bundle_check.js) and the result shown per
 * turn and for the whole. Every text is a text node (dom.js); an answer's
 * Markdown goes through markdown.js, as the widget's does.
 *
 * @module page
 */

import { b64Hex, checkBundle, describeItem, parseBates, readEmbedded, turnVerdicts } from "./bundle_check.js";
import { auditBadge, said, stateWords } from "./detail.js";
import { toHex } from "./hashing.js";
import { makeH } from "./dom.js";
import { markdownElements, parseMarkdown } from "./markdown.js";

const h = makeH(document);

/**
 * What the exporter said beside the bundle (arborist/_bundles/page.py, `page_words`): the
 * kernel's vocabulary and each turn's badge key by bates. The page holds no word of its
 * own: a turn without a key shows its mode, a key without words shows as given.
 */
function readWords() {
  try {
    const said = JSON.parse(document.getElementById("bp-forest")?.dataset.words || "{}");
    return { vocabulary: said?.vocabulary ?? {}, audit: said?.audit ?? {} };
  } catch {
    return { vocabulary: {}, audit: {} };
  }
}

const WORDS = readWords();

const MODES = ["STRICT", "HYBRID", "VISUAL", "NONE"];

/**
 * The badge key a turn shows: the exporter's (which says, say, that a STRICT answer quotes
 * nothing it cites) only when it claims no more than the mode the bundle itself holds and
 * this page checks; the bundle's mode otherwise. The words travel beside the bundle,
 * outside what is hashed: a key naming a stronger mode (VISUAL shown as STRICT) is an edit.
 */
function shownMode(turn) {
  const key = Object.hasOwn(WORDS.audit, turn.bates) ? WORDS.audit[turn.bates] : turn.audit_mode;
  const claimed = MODES.indexOf(String(key).replace(/-unquoted$/, ""));
  const held = MODES.indexOf(turn.audit_mode);
  return claimed >= 0 && held >= 0 && claimed >= held ? key : turn.audit_mode;
}

/**
 * What each turn looks up, made once: records by key, documents by root, chunks by
 * place, and what the check recomputed (node hashes, record hashes, evidence roots).
 */
function lookups(bundle, derived) {
  const records = new Map();
  for (const record of bundle.records) {
    if (!records.has(record.cache_key)) records.set(record.cache_key, []);
    records.get(record.cache_key).push(record);
  }
  return {
    records,
    documents: new Map(bundle.documents.map((d) => [d.source_root, d])),
    chunks: new Map(bundle.chunks.map((c) => [`${c.source_root} ${c.chunk_index}`, c])),
    derived,
  };
}

/** A base64url hash of the bundle in hex, as arborist prints it ("?" when it is none). */
function hex(text) {
  try {
    return b64Hex(text);
  } catch {
    return "?";
  }
}

function field(name, value) {
  return h("div", { class: "bp-field" }, h("span", { class: "bp-name", text: name }), h("span", { class: "bp-value", text: value ?? "" }));
}

function sourcesList(found, turn) {
  const documents = found.documents;
  const chunks = found.chunks;
  return (found.records.get(turn.cache_key) ?? []).map((record) => {
    const derived = found.derived.records.get(`${record.cache_key} ${record.revision}`);
    return h(
      "details",
      { class: "bp-record", dataset: { cacheKey: hex(record.cache_key), revision: record.revision } },
      h("summary", { text: `record revision ${record.revision}: ${record.state}${record.state_reason ? ` (${record.state_reason})` : ""}` }),
      field("record_hash", derived?.recordHash ?? "(not recomputed)"),
      field("evidence root", derived?.evidenceRoot ?? "(not recomputed)"),
      h(
        "ol",
        { class: "bp-sources" },
        record.evidence.map((item) => {
          const chunk = chunks.get(`${item.source_root} ${item.chunk_index}`);
          const doc = documents.get(item.source_root);
          const leaf = found.derived.leaves?.get(`${item.source_root} ${item.chunk_index}`);
          return h(
            "li",
            { dataset: { sourceRoot: hex(item.source_root), chunkIndex: item.chunk_index } },
            h("div", { class: "bp-source", text: `${doc?.title ?? "?"}, chunk ${item.chunk_index} of ${doc?.chunk_count ?? "?"}${item.cited ? " (cited)" : ` (${said(WORDS.vocabulary, "rows", "uncited")})`}` }),
            chunk && "text" in chunk ? h("blockquote", { class: "bp-chunk", text: chunk.text }) : null,
            field("leaf", leaf ? toHex(leaf) : "(none)"),
            field("proof", chunk && doc ? chunk.proof.map((at) => hex(doc.nodes[at])).join(" ") : "(none)"),
          );
        }),
      ),
    );
  });
}

function turnElement(found, turn) {
  const [, seq] = parseBates(turn.bates) ?? [null, 0];
  const record = (found.records.get(turn.cache_key) ?? []).at(-1);
  return h(
    "li",
    { class: "bp-turn", role: "treeitem", dataset: { bates: turn.bates, verdict: "pending" }, attrs: { "aria-label": `turn ${turn.bates}` } },
    h(
      "div",
      { class: "bp-head" },
      h("span", { class: "bp-verdict", text: "checking…" }),
      h("code", { class: "bp-bates", text: turn.bates }),
      turn.label ? h("span", { class: "bp-label", text: turn.label }) : null,
    ),
    seq === 0
      ? h("div", { class: "bp-question", text: "(the session's root)" })
      : [
          h("div", { class: "bp-question", text: turn.question }),
          h("div", { class: "bp-answer" }, markdownElements(h, parseMarkdown(turn.answer_text))),
          field("mode", auditBadge(WORDS.vocabulary, shownMode(turn)).words),
          field("state", record ? (record.state === "ok" ? record.state : stateWords(WORDS.vocabulary, record)) : "(no record)"),
          field("cited", turn.cited_titles.join("; ")),
          field("asked", turn.created_at),
          field("node_hash", found.derived.nodes.get(turn.bates) ?? "(not recomputed)"),
          h("ul", { class: "bp-problems", attrs: { "aria-label": "what fails" } }),
          sourcesList(found, turn),
        ],
    h("ul", { class: "bp-children", role: "group" }),
  );
}

function forest(bundle, derived) {
  const rows = new Map();
  const found = lookups(bundle, derived);
  for (const turn of bundle.turns) rows.set(turn.bates, turnElement(found, turn));
  const sessions = bundle.sessions.map((session) => {
    const tree = h("ul", { class: "bp-tree", role: "tree", attrs: { "aria-label": `session ${session.sid}` } });
    for (const turn of bundle.turns) {
      if (parseBates(turn.bates)?.[0] !== session.sid) continue;
      const parent = turn.parent_bates === null ? null : rows.get(turn.parent_bates);
      (parent ? parent.querySelector(":scope > .bp-children") : tree).appendChild(rows.get(turn.bates));
    }
    return h(
      "section",
      { class: "bp-session", dataset: { sid: session.sid } },
      h("h2", { text: session.label ? `${session.label} (${session.sid})` : session.sid }),
      tree,
    );
  });
  return { rows, sessions };
}

function showTurn(row, found) {
  row.dataset.verdict = found.length ? "fails" : "verified";
  row.querySelector(".bp-verdict").textContent = found.length ? "✗ fails" : "✓ verified";
  const list = row.querySelector(":scope > .bp-problems");
  if (list) for (const problem of found) list.appendChild(h("li", { text: problem }));
  if (!list && found.length) row.querySelector(".bp-head").appendChild(h("span", { class: "bp-why", text: found.join("; ") }));
}

async function main() {
  const summary = document.getElementById("bp-summary");
  const problemsList = document.getElementById("bp-whole");
  const started = performance.now();
  const read = readEmbedded(document.getElementById("arborist-bundle").textContent);
  let problems = read.problem ? [{ kind: "bundle", id: "", text: read.problem }] : [];
  let rows = new Map();
  if (read.bundle) {
    const derived = { nodes: new Map(), records: new Map() };
    const checked = await checkBundle(read.bundle, derived);
    try {
      const shown = forest(read.bundle, derived);
      rows = shown.rows;
      document.getElementById("bp-forest").append(...shown.sessions);
    } catch (error) {
      problems.push({ kind: "bundle", id: "", text: `its fields are not of their types (${error?.message ?? error})` });
    }
    problems = [...problems, ...checked];
  }
  const verdicts = read.bundle ? turnVerdicts(read.bundle, problems) : new Map();
  for (const [bates, row] of rows) showTurn(row, verdicts.get(bates) ?? []);
  const ms = Math.round(performance.now() - started);
  for (const p of problems) problemsList.appendChild(h("li", { text: p.kind === "bundle" ? p.text : `${describeItem(p.kind, p.id)}: ${p.text}` }));
  const failing = [...verdicts.values()].filter((found) => found.length).length;
  const whole = problems.length ? "fails" : "verified";
  summary.dataset.verdict = whole;
  summary.dataset.problems = String(problems.length);
  summary.dataset.ms = String(ms);
  summary.textContent = problems.length
    ? `✗ The bundle does not hold: ${problems.length} problem(s), ${failing} of ${rows.size} turn(s) fail (checked in this browser in ${ms} ms).`
    : `✓ Verified in this browser: every hash, proof and chain link of ${rows.size} turn(s), ${read.bundle.records.length} record(s), ${read.bundle.chunks.length} chunk(s) holds (${ms} ms).`;
  document.body.dataset.checked = "true";
}

main().catch((error) => {
  const summary = document.getElementById("bp-summary");
  summary.dataset.verdict = "fails";
  summary.textContent = `✗ The page could not check the bundle: ${error?.message ?? error}`;
  document.body.dataset.checked = "true";
});
