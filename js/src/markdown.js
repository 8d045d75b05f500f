/**
 * An answer's Markdown, read into the small tree arborist_nb/_markdown.py reads (the same
 * vectors, tests/vectors/markdown.json, hold both) and built as elements with {@link makeH}:
 * every text a text node, links only to http, https and mailto, raw HTML and images shown
 * as the characters they are, citations as their own inline node.
 *
 *     block  := ["p", inlines] | ["code", lang, text] | ["ul", [inlines...]]
 *             | ["ol", start, [inlines...]] | ["h", level, inlines] | ["quote", inlines]
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
      while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) held.push(lines[i++].trim());
      blocks.push(["p", inlines(held.join("\n"))]);
    }
  }
  return blocks;
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
        case "t":
          return node[1];
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
