/**
 * The widget's Markdown reader holds the vectors arborist_nb/_markdown.py holds
 * (tests/vectors/markdown.json): the same tree from the same answer in every face; and
 * its elements are text nodes and the few tags it writes, links only to safe schemes.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { makeH } from "../src/dom.js";
import { markdownElements, parseMarkdown } from "../src/markdown.js";
import { FakeDocument } from "./fake_dom.js";

const VECTORS = JSON.parse(readFileSync(new URL("../../tests/vectors/markdown.json", import.meta.url), "utf-8"));

describe("markdown", () => {
  for (const vector of VECTORS) {
    test(`reads as the kernel does: ${vector.name}`, () => {
      assert.deepEqual(parseMarkdown(vector.text), vector.blocks);
    });
  }

  test("writes only its own tags, texts as text nodes, links to safe schemes only", () => {
    const h = makeH(new FakeDocument());
    const allowed = new Set(["P", "PRE", "CODE", "STRONG", "EM", "A", "UL", "OL", "LI", "BLOCKQUOTE", "BUTTON", "DIV", "BR"]);
    for (const tag of ["TABLE", "THEAD", "TBODY", "TR", "TH", "TD"]) allowed.add(tag);
    for (const vector of VECTORS) {
      const root = h("div", {}, markdownElements(h, parseMarkdown(vector.text), (label) => h("button", { text: label })));
      for (const el of root.descendants()) {
        assert.ok(allowed.has(el.tagName.toUpperCase()), `${vector.name}: <${el.tagName}>`);
        const href = el.getAttribute("href");
        if (href !== null) assert.match(href, /^(https?|mailto):/i, vector.name);
      }
    }
  });

  test("a table is a table in a box that scrolls, its cells aligned, its text as text", () => {
    const h = makeH(new FakeDocument());
    const text = "| data | median |\n|:--|--:|\n| `[1, 3, 5]` | **3** <b>x</b> |\n| a \\| b |";
    const [box] = markdownElements(h, parseMarkdown(text));
    assert.equal(box.getAttribute("class"), "arb-md-table");
    const tags = box.descendants().map((el) => el.tagName.toUpperCase());
    assert.deepEqual(tags.slice(0, 4), ["TABLE", "THEAD", "TR", "TH"]);
    assert.equal(tags.filter((t) => t === "TR").length, 3);
    const cells = box.descendants().filter((el) => ["TH", "TD"].includes(el.tagName.toUpperCase()));
    assert.deepEqual(
      cells.map((el) => el.getAttribute("class")),
      ["arb-md-left", "arb-md-right", "arb-md-left", "arb-md-right", "arb-md-left", "arb-md-right"],
    );
    assert.deepEqual(
      cells.map((el) => el.textContent),
      ["data", "median", "[1, 3, 5]", "3 <b>x</b>", "a | b", ""],
    );
    assert.ok(!tags.includes("B"));
  });

  test("a line break is kept: a table without its delimiter row stays lines", () => {
    const h = makeH(new FakeDocument());
    const [p] = markdownElements(h, parseMarkdown("| a | b |\n| 1 | 2 |"));
    assert.equal(p.tagName.toUpperCase(), "P");
    assert.deepEqual(
      p.childNodes.map((n) => (n.tagName ? n.tagName.toUpperCase() : n.textContent)),
      ["| a | b |", "BR", "\n| 1 | 2 |"],
    );
    assert.equal(p.textContent, "| a | b |\n| 1 | 2 |", "the text keeps its line: copied, read aloud");
  });
});
