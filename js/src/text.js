/**
 * Pure text helpers of the widget: citations in an answer, short hashes,
 * node names, message sizes. Tested in Node (`js/test/widget.test.js`).
 *
 * @module text
 */

/**
 * Split an answer into plain text and citations `[E# | title | uri]`,
 * following the reading rule of `arborist/_qa/citations.py`: a bracket with
 * no `[`, `]` or newline inside; first part `E` + 1..6 digits (leading zeros
 * dropped); three or more parts: last is the URI, the middle the title; one
 * part: the short form `[E1]`; two parts is not a citation.
 *
 * @param {string} text
 * @returns {Array<{type: "text", text: string} |
 *   {type: "citation", label: string, title: string, uri: string, raw: string}>}
 */
export function splitCitations(text) {
  const out = [];
  const source = typeof text === "string" ? text : "";
  const bracket = /\[([^[\]\n]*)\]/g;
  let last = 0;
  for (const match of source.matchAll(bracket)) {
    const parts = match[1].split("|");
    const label = /^E([0-9]{1,6})$/.exec(parts[0].trim());
    if (!label || parts.length === 2) continue;
    if (match.index > last) out.push({ type: "text", text: source.slice(last, match.index) });
    out.push({
      type: "citation",
      label: `E${Number.parseInt(label[1], 10)}`,
      title: parts.length === 1 ? "" : parts.slice(1, -1).join("|").trim(),
      uri: parts.length === 1 ? "" : parts[parts.length - 1].trim(),
      raw: match[0],
    });
    last = match.index + match[0].length;
  }
  if (last < source.length) out.push({ type: "text", text: source.slice(last) });
  return out;
}

/**
 * First `n` characters of a hash, for display (the full hash is in a title).
 *
 * @param {string|null|undefined} hash
 * @param {number} [n=12]
 * @returns {string}
 */
export function shortHash(hash, n = 12) {
  return typeof hash === "string" ? hash.slice(0, n) : "";
}

/**
 * How a row names a node: its seq in the viewer's session, else its bates.
 *
 * @param {string} bates
 * @param {{seq?: number, foreign?: boolean}|null|undefined} summary
 * @returns {string}
 */
export function nodeName(bates, summary) {
  if (summary && !summary.foreign && Number.isInteger(summary.seq)) {
    return String(summary.seq).padStart(6, "0");
  }
  return bates;
}

/**
 * UTF-8 length of a message as JSON: what a reply cost on the wire.
 *
 * @param {unknown} message
 * @returns {number}
 */
export function jsonBytes(message) {
  return new TextEncoder().encode(JSON.stringify(message) ?? "").length;
}

/**
 * A turn's short name: `#12` in the viewer's own session, `a1b2c3 #12`
 * (the session's random token and the seq) in another; the full bates
 * number belongs in a tooltip.
 *
 * @param {string} bates `<YYYYMMDDTHHMMSSZ>-<6 hex>-<6 digits>`
 * @param {boolean} [foreign]
 * @returns {string}
 */
export function shortBates(bates, foreign = false) {
  const match = /^[0-9]{8}T[0-9]{6}Z-([0-9a-f]{6})-([0-9]{6})$/.exec(bates ?? "");
  if (!match) return String(bates ?? "");
  const seq = `#${Number.parseInt(match[2], 10)}`;
  return foreign ? `${match[1]} ${seq}` : seq;
}

/**
 * A session id's short form: its random token (`a1b2c3`); the full id,
 * which also says when the session began, belongs in a tooltip.
 *
 * @param {string} sid
 * @returns {string}
 */
export function shortSid(sid) {
  const match = /^[0-9]{8}T[0-9]{6}Z-([0-9a-f]{6})$/.exec(sid ?? "");
  return match ? match[1] : String(sid ?? "");
}

/**
 * When a session began, read from its id (`20261207T212109Z-3f2a9c` → `2026-12-07 21:21 UTC`);
 * "" for an id of another shape. What tells apart two sessions given the same label.
 *
 * @param {string} sid
 * @returns {string}
 */
export function sessionStart(sid) {
  const m = /^([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})[0-9]{2}Z-[0-9a-f]{6}$/.exec(sid ?? "");
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]} UTC` : "";
}

/**
 * Text split into plain and marked parts at `«` and `»` (the markers the
 * kernel's search puts around matched words), for rendering as `<mark>`.
 * Unbalanced markers are kept as text.
 *
 * @param {string} text
 * @returns {Array<{text: string, mark: boolean}>}
 */
export function markedParts(text) {
  const out = [];
  const source = typeof text === "string" ? text : "";
  const marked = /«([^«»]*)»/g;
  let last = 0;
  for (const match of source.matchAll(marked)) {
    if (match.index > last) out.push({ text: source.slice(last, match.index), mark: false });
    if (match[1]) out.push({ text: match[1], mark: true });
    last = match.index + match[0].length;
  }
  if (last < source.length) out.push({ text: source.slice(last), mark: false });
  return out;
}

/** Words in a row an answer must share with a chunk for them to count as quoted. */
export const QUOTE_RUN = 4;

/** Where a claim's sentences end (`_SENTENCE_END` in arborist/_proofs/quotes.py). */
const SENTENCE_END = /[.!?;:…](?![^\s])|\n/u;

/**
 * The words of `text` (letters, digits, underscores), lower-cased, with where each stands.
 *
 * @param {string} text
 * @returns {Array<{word: string, start: number, end: number}>}
 */
function words(text) {
  return [...text.matchAll(/[\p{L}\p{N}_]+/gu)].map((m) => ({
    word: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
}

/**
 * The parts of `answer` that cite `label`: the text between the previous
 * citation and each `[label]`, as the answerers write a claim before its
 * citation.
 *
 * @param {string} answer
 * @param {string} label e.g. `E1`
 * @returns {string[]}
 */
export function claimsFor(answer, label) {
  const claims = [];
  let pending = "";
  for (const part of splitCitations(answer)) {
    if (part.type === "text") {
      pending += part.text;
    } else {
      if (part.label === label && pending.trim()) claims.push(pending.trim());
      pending = "";
    }
  }
  return claims;
}

/**
 * The longest run of `said` from word `i` that stands in `held`, at its first place.
 *
 * @param {string[]} said
 * @param {number} i
 * @param {string[]} held
 * @param {Map<string, number[]>} at where each word of `held` stands
 * @returns {[number, number]} start in `held`, length
 */
function longest(said, i, held, at) {
  let best = 0;
  let where = -1;
  for (const j of at.get(said[i]) ?? []) {
    let n = 0;
    while (i + n < said.length && j + n < held.length && said[i + n] === held[j + n]) n++;
    if (n > best) {
      best = n;
      where = j;
    }
  }
  return [where, best];
}

/**
 * Where the answer quotes a cited chunk: ranges `[start, end)` of `chunk`, by the rule
 * of `arborist/_proofs/quotes.py` (pinned for both by `tests/vectors/quotes.json`). A claim is
 * read sentence by sentence (cut after `.`, `!`, `?`, `;`, `:` or `…` before a space or
 * its end, and at each line break), each from its first word: at each word the longest run of its words that stands in a
 * row in the chunk is found (its first place on a tie); a run of {@link QUOTE_RUN} words
 * or more marks that one place and reading goes on after it. So a quoted sentence is
 * marked where it stands, and a look-alike sentence elsewhere in the chunk is not.
 * Sorted, and merged where they touch word to word on one line (a line's indent is never
 * marked); empty when the answer paraphrases.
 *
 * @param {string} chunk the cited chunk's text
 * @param {string[]} claims see {@link claimsFor}
 * @returns {Array<[number, number]>}
 */
export function quotedRanges(chunk, claims) {
  if (typeof chunk !== "string" || !chunk) return [];
  const held = words(chunk);
  const names = held.map((w) => w.word);
  const at = new Map();
  names.forEach((word, j) => {
    if (!at.has(word)) at.set(word, []);
    at.get(word).push(j);
  });
  const quoted = new Array(held.length).fill(false);
  for (const sentence of claims.flatMap((claim) => claim.split(SENTENCE_END))) {
    const said = words(sentence).map((w) => w.word);
    let i = 0;
    while (i < said.length) {
      const [where, n] = longest(said, i, names, at);
      if (n >= QUOTE_RUN) {
        quoted.fill(true, where, where + n);
        i += n;
      } else {
        i += 1;
      }
    }
  }
  const ranges = [];
  for (let i = 0; i < held.length; i++) {
    if (!quoted[i]) continue;
    const last = ranges[ranges.length - 1];
    if (last && quoted[i - 1] && !chunk.slice(last[1], held[i].start).includes("\n")) last[1] = held[i].end;
    else ranges.push([held[i].start, held[i].end]);
  }
  return ranges;
}

/**
 * Whether a chunk reads best in a monospace font: preformatted text such as
 * reference pages (signatures flush left, descriptions indented), code, or
 * a doctest.
 *
 * @param {string} text
 * @returns {boolean}
 */
export function looksPreformatted(text) {
  const lines = (typeof text === "string" ? text : "").split("\n").filter((l) => l.trim());
  if (!lines.length) return false;
  const coded = lines.filter((l) => /^(\s{2,}|\t|>>> |\.\.\. )/.test(l) || /[{};]\s*$/.test(l));
  return coded.length / lines.length >= 0.3;
}

/**
 * A chunk's text as every face shows it: the form feeds that open it (a PDF
 * page's mark: the place says the page) left out, and any other form feed (a
 * page break inside a plain text) shown as a line break. The kernel's
 * `shown_text` (arborist/_store/places.py) is the same rule; both hold
 * tests/vectors/shown_text.json. Only for showing: the proof re-hashes the
 * text as stored.
 *
 * @param {string} text
 * @returns {string}
 */
export function shownText(text) {
  return text.replace(/^\f+/, "").replaceAll("\f", "\n");
}

// eslint-disable-next-line no-control-regex, no-misleading-character-class
const CONTROL =
  /\r\n|[\0-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0001}\u{e0020}-\u{e007f}\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\ud800-\udfff]/gu;
const NAMED = { "\r": "\\r", "\0": "\\0", "\b": "\\b", "\v": "\\v", "\f": "\\f" };
const hex = (code, width) => code.toString(16).padStart(width, "0");

/**
 * Untrusted text as the `%%ask` output shows it (arborist/_text/terminal.py `inert`, the
 * same rule, both holding tests/vectors/inert.json): a control character (C0 but tab and
 * newline, DEL, C1), a line or paragraph separator, an invisible format character or a
 * blank one becomes its visible escape (`\x1b`, `\r`, `\u200b`, `\U000e0041`), so that
 * the reader sees it was there and no empty box stands for it; a lone surrogate becomes
 * U+FFFD and `\r\n` a newline. Only for showing: what is stored stays as it came.
 *
 * @param {string} text
 * @returns {string}
 */
export function inert(text) {
  return String(text).replace(CONTROL, (ch) => {
    if (ch === "\r\n") return "\n";
    const code = ch.codePointAt(0);
    if (code >= 0xd800 && code <= 0xdfff) return "\ufffd";
    if (NAMED[ch]) return NAMED[ch];
    if (code <= 0xff) return `\\x${hex(code, 2)}`;
    return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
  });
}
