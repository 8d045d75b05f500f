/**
 * An answer's Markdown, read into the small tree arborist_nb/_markdown.py reads (the same
 * vectors, tests/vectors/markdown.json, hold both) and built as elements with {@link makeH}:
 * every text a text node, links only to http, https and mailto, raw HTML and images shown
 * as the characters they are, citations as their own inline node.
 *
 *     block  := ["p", inlines] | ["code", lang, text] | ["ul", [inlines...]]
 *             | ["ol", start, [inlines...]] | ["h", level, inlines] | ["quote", inlines]
 *             | ["table", [align...], [inlines...], [[inlines...]...]]
 *     align  := "" | "left" | "center" | "right"
 *     inline := ["t", text] | ["code", text] | ["b", inlines] | ["i", inlines]
 *             | ["a", href, inlines] | ["cite", label, raw]
 *
 * @module markdown
 */

import { splitCitations } from "./text.js";

/** The schemes a link may have; any other is shown as its text. */
export const LINK_SCHEMES = Object.freeze(["http", "https", "mailto"]);

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^ {0,3}[-*+][ \t]+(.*)$/;
const ORDERED = /^ {0,3}(\d{1,9})[.)][ \t]+(.*)$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const LINK = /\[([^[\]\n]*)\]\(([^\s()<>]*)\)/y;
const IMAGE = /!\[[^[\]\n]*\]\([^\s()]*\)/y;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const PIPE = /(?<!\\)\|/;
const DELIMITER = /^[ \t]*(:?)-+(:?)[ \t]*$/;
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** Python's str.isspace / isalnum, closely enough for the characters answers hold. */
const isSpace = (ch) => /^\s$/u.test(ch);
const isAlnum = (ch) => /^[\p{L}\p{N}]$/u.test(ch);

const startsBlock = (line) => [FENCE, HEADING, BULLET, ORDERED, QUOTE].some((p) => p.test(line));

/**
 * The blocks of `text`.
 *
 * @param {string} text
 * @returns {any[]}
 */
export function parseMarkdown(text) {
  const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
  const blocks = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) {
      i += 1;
    } else if ((m = FENCE.exec(line))) {
      const mark = m[1];
      const closing = new RegExp(`^ {0,3}\\${mark[0]}{${mark.length},}[ \\t]*$`);
      const body = [];
      i += 1;
      while (i < lines.length && !closing.test(lines[i])) body.push(lines[i++]);
      blocks.push(["code", m[2], body.join("\n")]);
      i += 1;
    } else if ((m = HEADING.exec(line))) {
      blocks.push(["h", m[1].length, inlines(m[2])]);
      i += 1;
    } else if (BULLET.test(line) || ORDERED.test(line)) {
      const first = ORDERED.exec(line);
      const kind = first ? ORDERED : BULLET;
      const items = [];
      while (i < lines.length) {
        const item = kind.exec(lines[i]);
        if (item) items.push(item[first ? 2 : 1]);
        else if (lines[i].trim() && /^[ \t]/.test(lines[i]) && items.length) items[items.length - 1] += `\n${lines[i].trim()}`;
        else break;
        i += 1;
      }
      const parsed = items.map(inlines);
      blocks.push(first ? ["ol", Number.parseInt(first[1], 10), parsed] : ["ul", parsed]);
    } else if ((m = tableStart(lines, i))) {
      i = table(lines, i, m, blocks);
    } else if (QUOTE.test(line)) {
      const held = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
        held.push(m[1]);
        i += 1;
      }
      blocks.push(["quote", inlines(held.join("\n"))]);
    } else {
      const held = [line.trim()];
      i += 1;
      while (i < lines.length && lines[i].trim() && !startsBlock(lines[i]) && !tableStart(lines, i)) {
        held.push(lines[i++].trim());
      }
      blocks.push(["p", inlines(held.join("\n"))]);
    }
  }
  return blocks;
}

/**
 * A table row's cells: split at each pipe no backslash escapes, the outer pipes dropped;
 * an escaped pipe is a pipe in its cell, in a code span too (_markdown.py `_cells`).
 *
 * @param {string} line
 * @returns {string[]}
 */
function cells(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(new RegExp(PIPE, "g")).map((cell) => cell.trim().replaceAll("\\|", "|"));
}

/**
 * The column alignments if a table starts at `i` (a row with a pipe, then a delimiter row
 * with a pipe too, of as many cells), else null: without it the lines are a paragraph.
 *
 * @param {string[]} lines
 * @param {number} i
 * @returns {string[]|null}
 */
function tableStart(lines, i) {
  if (i + 1 >= lines.length || !PIPE.test(lines[i]) || !lines[i + 1].includes("|")) return null;
  const delimiters = cells(lines[i + 1]).map((cell) => DELIMITER.exec(cell));
  if (!delimiters.every(Boolean) || delimiters.length !== cells(lines[i]).length) return null;
  return delimiters.map((m) => (m[1] && m[2] ? "center" : m[1] ? "left" : m[2] ? "right" : ""));
}

/** A table's rows up to a blank line or another block, each cut or padded to the header's width. */
function table(lines, i, aligns, blocks) {
  const head = cells(lines[i]).map(inlines);
  const rows = [];
  i += 2;
  while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) {
    const row = cells(lines[i]).slice(0, aligns.length);
    while (row.length < aligns.length) row.push("");
    rows.push(row.map(inlines));
    i += 1;
  }
  blocks.push(["table", aligns, head, rows]);
  return i;
}

/**
 * The inline nodes of one block's text.
 *
 * @param {string} text
 * @returns {any[]}
 */
export function inlines(text) {
  const cites = new Map();
  let at = 0;
  for (const part of splitCitations(text)) {
    if (part.type === "citation") cites.set(at, part);
    at += part.type === "text" ? part.text.length : part.raw.length;
  }
  const out = [];
  let plain = "";
  let i = 0;
  while (i < text.length) {
    const found = inlineAt(text, i, cites);
    if (found === null) {
      plain += text[i];
      i += 1;
      continue;
    }
    const [node, end] = found;
    if (node[0] === "t") plain += node[1];
    else {
      if (plain) out.push(["t", plain]);
      plain = "";
      out.push(node);
    }
    i = end;
  }
  if (plain) out.push(["t", plain]);
  return out;
}

function inlineAt(text, i, cites) {
  const ch = text[i];
  if (ch === "\\" && i + 1 < text.length && PUNCTUATION.has(text[i + 1])) return [["t", text[i + 1]], i + 2];
  if (ch === "`") {
    let run = 0;
    while (text[i + run] === "`") run += 1;
    const close = new RegExp(`(?<!\`)\`{${run}}(?!\`)`, "g");
    close.lastIndex = i + run;
    const m = close.exec(text);
    if (m === null) return [["t", "`".repeat(run)], i + run];
    let body = text.slice(i + run, m.index).replace(/\n/g, " ");
    if (body.length > 2 && body[0] === " " && body[body.length - 1] === " " && body.trim()) body = body.slice(1, -1);
    return [["code", body], m.index + run];
  }
  if (ch === "[" && cites.has(i)) {
    const cite = cites.get(i);
    return [["cite", cite.label, cite.raw], i + cite.raw.length];
  }
  if (ch === "!") {
    IMAGE.lastIndex = i;
    const image = IMAGE.exec(text);
    if (image) return [["t", image[0]], i + image[0].length];
  }
  if (ch === "[") {
    LINK.lastIndex = i;
    const link = LINK.exec(text);
    if (link) {
      const scheme = SCHEME.exec(link[2]);
      const end = i + link[0].length;
      if (!scheme || !LINK_SCHEMES.includes(scheme[1].toLowerCase()) || !link[1]) return [["t", link[0]], end];
      return [["a", link[2], inlines(link[1])], end];
    }
  }
  if (ch === "*") return emphasis(text, i);
  return null;
}

/** `**strong**` or `*emphasis*` at `i` (arborist_nb/_markdown.py `_emphasis`: the same rule). */
function emphasis(text, i) {
  const size = text.startsWith("**", i) ? 2 : 1;
  const after = text.slice(i + size, i + size + 1);
  if ((i > 0 && isAlnum(text[i - 1])) || !after || isSpace(after) || after === "*") return null;
  const mark = "*".repeat(size);
  let at = i + size;
  while ((at = text.indexOf(mark, at)) !== -1) {
    const before = text[at - 1];
    const next = text.slice(at + size, at + size + 1);
    if (!isSpace(before) && !(next && isAlnum(next)) && (size === 2 || next !== "*")) {
      if (at > i + size) return [[size === 2 ? "b" : "i", inlines(text.slice(i + size, at))], at + size];
    }
    at += 1;
  }
  return null;
}

/**
 * The blocks as elements: every text a text node; `cite(label, raw)` makes a citation's
 * element (default: its text).
 *
 * @param {Function} h
 * @param {any[]} blocks
 * @param {(label: string, raw: string) => any} [cite]
 * @returns {HTMLElement[]}
 */
export function markdownElements(h, blocks, cite = (_label, raw) => raw) {
  const inline = (nodes) =>
    nodes.map((node) => {
      switch (node[0]) {
        case "t": // a line break kept: a line is a line, as a chat shows it
          // the break's newline kept in the text too: copied or read aloud, a line is a line
          return node[1].split("\n").flatMap((line, n) => (n ? [h("br"), `\n${line}`] : [line]));
        case "code":
          return h("code", { class: "arb-literal", text: node[1] });
        case "b":
          return h("strong", {}, inline(node[1]));
        case "i":
          return h("em", {}, inline(node[1]));
        case "a":
          return h(
            "a",
            { href: node[1], attrs: { target: "_blank", rel: "noopener noreferrer" } },
            inline(node[2]),
          );
        default:
          return cite(node[1], node[2]);
      }
    });
  return blocks.map((block) => {
    switch (block[0]) {
      case "p":
        return h("p", { class: "arb-md-p" }, inline(block[1]));
      case "code":
        return h("pre", { class: "arb-md-code" }, h("code", { text: block[2] }));
      case "h":
        return h("p", { class: "arb-md-p arb-md-h" }, h("strong", {}, inline(block[2])));
      case "quote":
        return h("blockquote", { class: "arb-md-quote" }, inline(block[1]));
      case "table":
        return tableElement(h, block, inline);
      case "ol":
        return h(
          "ol",
          { class: "arb-md-list", attrs: block[1] === 1 ? {} : { start: String(block[1]) } },
          block[2].map((item) => h("li", {}, inline(item))),
        );
      default:
        return h("ul", { class: "arb-md-list" }, block[1].map((item) => h("li", {}, inline(item))));
    }
  });
}

/**
 * A table in a box that scrolls sideways (a wide table does not stretch the pane), each
 * cell aligned as its column says (a class, not a style: no inline style is written).
 *
 * @param {Function} h
 * @param {any[]} block
 * @param {(nodes: any[]) => any[]} inline
 * @returns {HTMLElement}
 */
function tableElement(h, block, inline) {
  const [, aligns, head, rows] = block;
  const row = (tag, cells) =>
    h(
      "tr",
      {},
      cells.map((cell, n) => h(tag, { class: `arb-md-${aligns[n] || "left"}` }, inline(cell))),
    );
  return h(
    "div",
    { class: "arb-md-table" },
    h("table", {}, h("thead", {}, row("th", head)), h("tbody", {}, rows.map((cells) => row("td", cells)))),
  );
}
