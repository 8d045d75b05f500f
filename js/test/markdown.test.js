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
    const allowed = new Set(["P", "PRE", "CODE", "STRONG", "EM", "A", "UL", "OL", "LI", "BLOCKQUOTE", "BUTTON", "DIV"]);
    for (const vector of VECTORS) {
      const root = h("div", {}, markdownElements(h, parseMarkdown(vector.text), (label) => h("button", { text: label })));
      for (const el of root.descendants()) {
        assert.ok(allowed.has(el.tagName.toUpperCase()), `${vector.name}: <${el.tagName}>`);
        const href = el.getAttribute("href");
        if (href !== null) assert.match(href, /^(https?|mailto):/i, vector.name);
      }
    }
  });
});
