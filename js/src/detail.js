/**
 * The detail pane's parts, each a function from a node's body to elements.
 * Built with {@link makeH}: every piece of answer and document text is a
 * text node. The order is what a reader needs first: the question, the
 * answer with its citations as chips, the actions, the evidence; the
 * hashes are folded into a "proof" section, short, with the full value on
 * hover and a copy button.
 *
 * Chunks are numbered from 0 everywhere (the cell, the CLI, the JSON and
 * here), as the Merkle proof numbers its leaves.
 *
 * @module detail
 */

import { markdownElements, parseMarkdown } from "./markdown.js";
import {
  claimsFor,
  looksPreformatted,
  quotedRanges,
  shortBates,
  shortHash,
  shortSid,
  shownText,
  splitCitations,
} from "./text.js";

/**
 * What the kernel decided, in its own words. `vocabulary` is what the kernel sends the
 * widget once (its `vocabulary` trait, `vocabulary()` in arborist/_facts.py): each badge
 * key's words, tooltip and mark, each support level's meaning and mark, each `served`
 * value's meaning, what each evidence row's key says was checked (`rows`), each cache-key
 * dimension in order with its reader's name and what it binds, each state of an answer out
 * of service in words (`states`) and what is said where its reason is not at hand. This
 * script holds no word of its own for them and chooses none: the kernel names the key (a
 * row's or a body's `audit`, its `support`, its `served`, a source's `checked`, a row's
 * `state`); a key the vocabulary does not hold is shown as given (as text, like every
 * other value).
 *
 * @typedef {{audit?: Record<string, {words: string, title: string, mark: string}>,
 *   support?: Record<string, {title: string, mark: string}>,
 *   served?: Record<string, string>, rows?: Record<string, string>,
 *   dimensions?: Array<[string, string, string]>, states?: Record<string, string>,
 *   unreasoned?: string}} Vocabulary
 */

/**
 * The vocabulary's words for `key` in its table `table` (`served`, `rows`, `states`), or
 * the key as given.
 *
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {"served"|"rows"|"states"} table
 * @param {string} key
 * @returns {string}
 */
export function said(vocabulary, table, key) {
  const words = vocabulary?.[table];
  return words && Object.hasOwn(words, key) && typeof words[key] === "string" ? words[key] : key;
}

/**
 * An answer's state and why, in the kernel's words (`answer failed: the year is wrong`,
 * `state_words` in arborist/_qa/standing.py); the words alone without a reason.
 *
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {{state: string, state_reason?: string|null}} s
 * @returns {string}
 */
export function stateWords(vocabulary, s) {
  const words = said(vocabulary, "states", s.state);
  return s.state_reason ? `${words}: ${s.state_reason}` : words;
}

/**
 * {@link stateWords} for a row or a search hit, which may have learned its state from a
 * sync that carries no reason: then the vocabulary's note of where the reason is.
 *
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {{state: string, state_reason?: string|null}} s
 * @returns {string}
 */
export function stateTitle(vocabulary, s) {
  const words = stateWords(vocabulary, s);
  return s.state_reason || typeof vocabulary?.unreasoned !== "string" ? words : `${words} ${vocabulary.unreasoned}`;
}

/**
 * Why an answer is out of service, shown as text beside its state (a row, a search hit,
 * the detail's head): cut with an ellipsis where room is short, whole on hover.
 *
 * @param {Function} h
 * @param {string} reason untrusted text (set as text, never markup)
 * @returns {HTMLElement}
 */
export function stateReason(h, reason) {
  return h("span", { class: "arb-state-reason", title: reason, attrs: { "aria-label": "Why" }, text: reason });
}

/**
 * A row's or a search hit's state badge for an answer out of service, titled in the
 * kernel's words ({@link stateTitle}), and its reason beside it; nothing for an answer in
 * service.
 *
 * @param {Function} h
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {{state?: string|null, state_reason?: string|null}} s
 * @returns {HTMLElement[]|null}
 */
export function stateBadge(h, vocabulary, s) {
  if (!s.state || s.state === "ok") return null;
  const title = stateTitle(vocabulary, { state: s.state, state_reason: s.state_reason });
  return [
    h("span", { class: "arb-badge arb-state", title, attrs: { "aria-label": title }, dataset: { state: s.state }, text: s.state }),
    s.state_reason ? stateReason(h, s.state_reason) : null,
  ];
}

/**
 * A badge key's words, tooltip and mark (a tree row's one letter), from the vocabulary.
 *
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {string} key the kernel's badge key (`STRICT`, `STRICT-unquoted`, `NONE`...)
 * @returns {{words: string, title: string, mark: string}}
 */
export function auditBadge(vocabulary, key) {
  const said = Object.hasOwn(vocabulary?.audit ?? {}, key) ? vocabulary.audit[key] : null;
  return { words: said?.words ?? key, title: said?.title ?? key, mark: said?.mark ?? key };
}

/**
 * The support badge of a turn: its level, the reason in the tooltip (the turn's own, or
 * the level's meaning from the vocabulary). Null when the turn claims nothing (no support
 * is measured on evidence that does not hold).
 *
 * @param {Function} h
 * @param {{level: string, reason?: string}|string|null|undefined} support
 * @param {boolean} short a row's mark rather than the word
 * @param {Vocabulary|null|undefined} vocabulary
 * @returns {HTMLElement|null}
 */
export function supportBadge(h, support, short, vocabulary) {
  const level = typeof support === "string" ? support : support?.level;
  if (!level || typeof level !== "string") return null;
  const said = Object.hasOwn(vocabulary?.support ?? {}, level) ? vocabulary.support[level] : null;
  const reason = typeof support === "object" && support?.reason ? `${level}: ${support.reason}` : (said?.title ?? level);
  return h("span", {
    class: "arb-badge arb-support",
    title: reason,
    attrs: { "aria-label": `support: ${level}` },
    dataset: { support: level },
    text: short ? (said?.mark ?? level) : level,
  });
}

/**
 * A value shown short (a 64-hex hash as 12 digits), the full value on
 * hover and behind a copy button.
 *
 * @param {Function} h
 * @param {string} value
 * @param {(text: string) => void} copy
 * @param {string} what names the value for the copy button's label
 * @returns {HTMLElement}
 */
export function hashValue(h, value, copy, what) {
  const text = value ?? "";
  const long = /^[0-9a-f]{40,}$/.test(text);
  return h(
    "span",
    { class: "arb-value" },
    h("code", {
      class: "arb-hash",
      title: text,
      dataset: { full: text },
      text: long ? `${shortHash(text)}…` : text || "—",
    }),
    text && text !== "(empty)"
      ? h("button", {
          type: "button",
          class: "arb-copy",
          text: "copy",
          title: `copy ${what}`,
          attrs: { "aria-label": `Copy ${what}` },
          on: { click: () => copy(text) },
        })
      : null,
  );
}

/**
 * One name/value row of a two-column grid (divs, not a `dl`: a host's
 * styles for definition lists cannot reach it).
 *
 * @param {Function} h
 * @param {string} name
 * @param {unknown} value an element or text
 * @param {{title?: string, key?: string}} [options]
 * @returns {HTMLElement}
 */
export function gridRow(h, name, value, { title, key } = {}) {
  return h(
    "div",
    { class: "arb-grid-row", attrs: { role: "row" }, dataset: { dimension: key } },
    h("span", { class: "arb-grid-name", title, attrs: { role: "rowheader" }, text: name }),
    h("span", { class: "arb-grid-value", attrs: { role: "cell" } }, value),
  );
}

/**
 * The pane's first line: the turn's short name, its audit mode, the state of
 * its answer, whether it was a hit, its label and, for another session's
 * turn, where it comes from.
 *
 * @param {Function} h
 * @param {any} body
 * @param {Vocabulary|null|undefined} vocabulary the kernel's words ({@link auditBadge})
 * @returns {HTMLElement}
 */
export function detailHead(h, body, vocabulary) {
  const record = body.record;
  const badge = auditBadge(vocabulary, body.facts?.badge ?? body.audit_mode);
  return h(
    "div",
    { class: "arb-detail-head" },
    h("code", {
      class: "arb-bates",
      title: body.bates,
      text: body.is_root ? "session root" : shortBates(body.bates, body.foreign),
    }),
    body.audit_mode && !body.is_root
      ? h("span", {
          class: "arb-badge arb-audit",
          title: body.audit_reason ? `${body.audit_mode}: ${body.audit_reason}` : badge.title,
          dataset: { auditMode: body.audit_mode },
          text: body.audit_reason ? body.audit_mode : badge.words,
        })
      : null,
    body.is_root ? null : supportBadge(h, body.support, false, vocabulary),
    record && record.state !== "ok"
      ? h("span", {
          class: "arb-badge arb-state",
          title: stateWords(vocabulary, record),
          dataset: { state: record.state },
          text: record.state,
        })
      : null,
    record && record.state !== "ok" && record.state_reason ? stateReason(h, record.state_reason) : null,
    body.served
      ? h("span", {
          class: "arb-badge arb-served",
          title: said(vocabulary, "served", body.served),
          dataset: { served: body.served },
          text: body.served,
        })
      : null,
    body.label ? h("span", { class: "arb-label", text: body.label }) : null,
    body.foreign
      ? h("span", { class: "arb-from", title: body.sid, text: `from session ${shortSid(body.sid)}` })
      : null,
  );
}

/**
 * The answer with its citations as chips, and the panel a chip opens: the
 * cited chunk with the words the answer quotes from it marked.
 *
 * @param {Function} h
 * @param {any} body
 * @returns {{answer: HTMLElement, cited: HTMLElement}}
 */
export function answerParts(h, body) {
  const evidence = body.record?.evidence ?? [];
  const byLabel = new Map(evidence.map((item) => [item.label, item]));
  const cited = h("blockquote", {
    class: "arb-cited",
    attrs: { "aria-label": "Cited text" },
    hidden: true,
  });
  const show = (label) => {
    const item = byLabel.get(label);
    cited.hidden = false;
    cited.setAttribute("data-citation", label);
    cited.replaceChildren(
      h(
        "div",
        { class: "arb-cited-head" },
        h("span", { class: "arb-chip", text: label }),
        " ",
        item ? `${placedTitle(item)} · ${chunkName(item)}` : `${label} is not in this answer's evidence`,
      ),
      item ? chunkText(h, item, claimsFor(body.answer_text, label)) : null,
    );
  };
  const answer = h(
    "div",
    { class: "arb-answer", attrs: { "aria-label": "Answer" } },
    // The answer's Markdown, rendered from a tree of text nodes; each citation a chip in
    // the line it cites from (an inline button), which opens the cited chunk.
    markdownElements(h, parseMarkdown(body.answer_text), (label, raw) => {
      const part = splitCitations(raw)[0] ?? { title: "", uri: "" };
      const item = byLabel.get(label);
      const title = item ? `${placedTitle(item)} — ${item.link ?? item.uri}` : [part.title, part.uri].filter(Boolean).join(" — ");
      return h("button", {
        type: "button",
        class: "arb-cite",
        text: label,
        title: title || label,
        attrs: { "aria-label": `Show cited text ${label}${title ? `: ${title}` : ""}` },
        dataset: { citation: label },
        on: { click: () => show(label) },
      });
    }),
  );
  return { answer, cited };
}

/**
 * The title with the place the kernel found for the chunk (`Libtasn1 · p. 12`,
 * `Guide · Configuration › Logging`): given only when every chunk it depends on
 * re-hashed to its committed leaf there; the title alone otherwise.
 *
 * @param {{title: string, placed_title?: string}} item
 * @returns {string}
 */
export function placedTitle(item) {
  return typeof item.placed_title === "string" && item.placed_title ? item.placed_title : item.title;
}

/**
 * The place alone (`p. 12`, `Configuration › Logging`) when the placed title is the
 * title and a place; "" when there is none. Shown apart so that a narrow row cuts the
 * document's title, which every chunk of it repeats, before the place that tells them apart.
 *
 * @param {{title: string, placed_title?: string}} item
 * @returns {string}
 */
export function placeOf(item) {
  const placed = placedTitle(item);
  const lead = `${item.title} · `;
  return typeof placed === "string" && placed.startsWith(lead) ? placed.slice(lead.length) : "";
}

/**
 * The place as the row shows it: its last part (`Functions`, `p. 12`), kept whole, apart
 * from what leads to it (`· module statistics ›`), which a narrow row cuts as it cuts the
 * title: the last part is what tells two chunks of one document apart.
 *
 * @param {Function} h
 * @param {string} place
 * @returns {HTMLElement[]}
 */
function placeSpans(h, place) {
  if (!place) return [];
  const cut = Math.max(place.lastIndexOf(" › "), place.lastIndexOf(" · "));
  const last = cut < 0 ? place : place.slice(cut + 3);
  const lead = cut < 0 ? "·" : `· ${place.slice(0, cut + 2)}`;
  return [
    h("span", { class: "arb-ev-place", title: place, text: lead }),
    h("span", { class: "arb-ev-last", title: place, text: last }),
  ];
}

/** Schemes a document's link may open; any other URI is shown as text, never followed. */
const LINKED_SCHEMES = new Set(["file:", "http:", "https:"]);

/**
 * The document's URI opening at the chunk's place (`#page=12`, `#logging`): a link for
 * a `file`, `http` or `https` URI, plain text for any other (a `javascript:` URI is
 * never a link).
 *
 * @param {Function} h
 * @param {{uri: string, link?: string}} item
 * @returns {HTMLElement|string}
 */
export function documentLink(h, item) {
  const link = typeof item.link === "string" && item.link ? item.link : item.uri;
  let scheme = "";
  try {
    scheme = new URL(link).protocol;
  } catch {
    scheme = "";
  }
  if (!LINKED_SCHEMES.has(scheme)) return link;
  return h("a", { class: "arb-ev-link", attrs: { href: link, target: "_blank", rel: "noopener noreferrer" }, text: link });
}

/**
 * `chunk 4 of 29`, numbered from 0 as the proof numbers leaves.
 *
 * @param {{chunk_index: number, chunk_count?: number}} item
 * @returns {string}
 */
export function chunkName(item) {
  return item.chunk_count ? `chunk ${item.chunk_index} of ${item.chunk_count}` : `chunk ${item.chunk_index}`;
}

/**
 * A chunk's text as shown ({@link shownText}), in the font it reads best in, the
 * quoted words marked.
 *
 * @param {Function} h
 * @param {{text: string|null}} item
 * @param {string[]} claims the answer's text citing it
 * @returns {HTMLElement}
 */
export function chunkText(h, item, claims) {
  if (typeof item.text !== "string") {
    return h("div", { class: "arb-chunk-text arb-note", text: "(cold: this chunk's text is not held in the store)" });
  }
  const text = shownText(item.text);
  const ranges = quotedRanges(text, claims);
  const parts = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) parts.push(text.slice(at, start));
    parts.push(h("mark", { class: "arb-quoted", text: text.slice(start, end) }));
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return h(
    "div",
    {
      class: "arb-chunk-text",
      dataset: { font: looksPreformatted(text) ? "mono" : "reading", quoted: ranges.length },
    },
    parts,
  );
}

/**
 * The evidence list; each item's proof status is filled in by the caller
 * once the browser has re-verified it.
 *
 * @param {Function} h
 * @param {any} body
 * @param {(text: string) => void} copy
 * @param {Vocabulary|null|undefined} [vocabulary] the kernel's words for each row's key
 * @returns {{list: HTMLElement, checks: Array<[HTMLElement, HTMLElement, any, string]>}} each
 *   row, its status, its item and what its status says once the proof holds (empty when
 *   the kernel's facts name no check for it)
 */
export function evidenceList(h, body, copy, vocabulary) {
  const checks = [];
  // The lane that found each source and what its row says was checked (`checked`: quoted,
  // unquoted or uncited, by `row_key` in arborist/_qa/support.py), as the kernel's facts of
  // the turn say them (the facts every face formats: arborist/_facts.py).
  const sources = new Map((body.facts?.sources ?? []).map((source) => [source.label, source]));
  const items = (body.record?.evidence ?? []).map((item) => {
    const source = sources.get(item.label);
    const lane = source?.lane;
    const status = h("span", {
      class: "arb-proof",
      attrs: { "aria-label": `Proof of ${item.label}` },
      dataset: { proof: "pending" },
      text: "verifying…",
    });
    const li = h(
      "li",
      {
        dataset: { evidence: item.label, proof: "pending", cited: String(Boolean(item.cited)), tier: item.tier },
      },
      h(
        "div",
        { class: "arb-ev-line" },
        h("span", { class: "arb-chip", title: item.cited ? "cited by the answer" : said(vocabulary, "rows", "uncited"), text: item.label }),
        h("span", { class: "arb-ev-title", title: placedTitle(item), text: item.title }),
        ...placeSpans(h, placeOf(item)),
        h("span", { class: "arb-ev-chunk", title: "numbered from 0, as the proof numbers leaves", text: chunkName(item) }),
        lane ? h("span", { class: "arb-ev-lane", title: "the retrieval lane that found it", text: `[${lane}]` }) : null,
        status,
      ),
      h("div", { class: "arb-ev-uri", title: item.uri }, documentLink(h, item)),
      h(
        "details",
        { class: "arb-ev-more", dataset: { fold: `evidence-${item.label}` } },
        h("summary", { text: "text and proof" }),
        chunkText(h, item, claimsFor(body.answer_text, item.label)),
        h(
          "div",
          { class: "arb-grid", attrs: { role: "table", "aria-label": `Hashes behind ${item.label}` } },
          gridRow(h, "leaf", hashValue(h, item.leaf, copy, `${item.label} leaf`)),
          gridRow(h, "document root", hashValue(h, item.source_root, copy, `${item.label} document root`), {
            title: "the Merkle root of the whole document (its source_root)",
          }),
          gridRow(h, "path", `${(item.proof ?? []).length} sibling hashes`),
        ),
      ),
    );
    checks.push([li, status, item, typeof source?.checked === "string" ? said(vocabulary, "rows", source.checked) : ""]);
    return li;
  });
  const list = h("ol", { class: "arb-evidence", attrs: { "aria-label": "Evidence" } }, items);
  return { list, checks };
}

/**
 * Sources other turns cited together with this answer's (co-access).
 *
 * @param {Function} h
 * @param {any[]} related
 * @returns {HTMLElement}
 */
export function relatedList(h, related) {
  return h(
    "ul",
    { class: "arb-related", attrs: { "aria-label": "Related sources" } },
    related.map((item) =>
      h(
        "li",
        { dataset: { related: item.leaf, tier: item.tier } },
        h("span", { class: "arb-rel-score", title: "co-access score", text: item.freq_score.toFixed(2) }),
        " ",
        h("span", { class: "arb-ev-title", title: item.uri, text: item.title }),
        " ",
        h("span", { class: "arb-ev-chunk", text: chunkName(item) }),
        item.text
          ? h(
              "details",
              { class: "arb-ev-more", dataset: { fold: `related-${item.leaf}` } },
              h("summary", { text: "text" }),
              chunkText(h, item, []),
            )
          : null,
      ),
    ),
  );
}

/**
 * The record's dimensions in the kernel's order, each with its reader's name and what it
 * binds (the vocabulary's `dimensions`: `DIMENSION_WORDS` in arborist/_proofs/keys.py); one the
 * vocabulary does not name comes after them, by its own name.
 *
 * @param {Vocabulary|null|undefined} vocabulary
 * @param {Record<string, string>} dims
 * @returns {Array<[string, string, string]>}
 */
export function dimensionRows(vocabulary, dims) {
  const named = (Array.isArray(vocabulary?.dimensions) ? vocabulary.dimensions : []).filter(
    (row) => Array.isArray(row) && typeof row[0] === "string" && Object.hasOwn(dims, row[0]),
  );
  const known = new Set(named.map(([key]) => key));
  return [
    ...named.map(([key, name, what]) => [key, String(name ?? key), String(what ?? "")]),
    ...Object.keys(dims)
      .filter((key) => !known.has(key))
      .map((key) => [key, key, ""]),
  ];
}

/**
 * The folded "proof" section: the cache key and its eight dimensions, then
 * the turn's own hashes and bookkeeping.
 *
 * @param {Function} h
 * @param {any} body
 * @param {(text: string) => void} copy
 * @param {Vocabulary|null|undefined} [vocabulary] the kernel's names of the dimensions
 * @returns {HTMLElement}
 */
export function proofSection(h, body, copy, vocabulary) {
  const record = body.record;
  const dims = record?.dimensions ?? {};
  const first = body.first_answered;
  const viewer = body.foreign ? null : body.sid;
  const name = (bates) => shortBates(bates, !viewer || !bates.startsWith(`${viewer}-`));
  const facts = [
    ["turn", hashValue(h, body.bates, copy, "bates number"), "the turn's bates number"],
    ["parent", hashValue(h, body.parent ?? "", copy, "parent's bates number")],
    ["created", body.created_at],
    ["node hash", hashValue(h, body.node_hash, copy, "node hash"), "commits to the question, cache key, audit mode, time, first label and parent; the answer is bound by the record its cache key names"],
    ["subtree hash", hashValue(h, body.subtree_hash, copy, "subtree hash"), "commits to this turn and every turn under it"],
  ];
  if (record) {
    facts.push(["hits", String(record.hit_count)]);
    if (first) {
      facts.push([
        "first answered",
        `${first.created_at}${first.bates ? ` by ${name(first.bates)}` : ""} (revision ${first.revision})`,
      ]);
    }
    if (record.state !== "ok") facts.push(["state", `${record.state}${record.state_reason ? `: ${record.state_reason}` : ""}`]);
  }
  // What the kernel's facts of the turn say beside these, as every other face says them
  // (arborist/_facts.py): hit or miss and who paid, and what fitting the prompt left out.
  if (body.facts?.cache) facts.push(["cache", body.facts.cache, "hit or miss, and where the answer was first paid for"]);
  if (body.facts?.fitted) facts.push(["fitted", body.facts.fitted, "what fitting the prompt to the model's context left out"]);
  return h(
    "details",
    { class: "arb-proof-section", dataset: { fold: "proof" } },
    h("summary", { text: "Proof and cache key" }),
    body.is_root
      ? null
      : h(
          "div",
          { class: "arb-grid arb-dims", attrs: { role: "table", "aria-label": "Cache key dimensions" } },
          gridRow(h, "cache key", hashValue(h, body.cache_key, copy, "cache key"), {
            title: "the hash of the eight dimensions below",
            key: "cache_key",
          }),
          dimensionRows(vocabulary, dims).map(([key, name, what]) =>
            gridRow(h, name, hashValue(h, dims[key] === "" ? "(empty)" : dims[key], copy, name), {
              title: what ? `${key}: ${what}` : key,
              key,
            }),
          ),
        ),
    h(
      "div",
      { class: "arb-grid arb-facts", attrs: { role: "table", "aria-label": "Node facts" } },
      facts.map(([name, value, title]) => gridRow(h, name, value, { title })),
    ),
  );
}
