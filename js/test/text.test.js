/**
 * A chunk's shown text: the widget's rule is the kernel's (arborist/_store/places.py
 * `shown_text`), both holding tests/vectors/shown_text.json; and the chunk view shows a
 * chunk by it, the quoted words still marked, while the proof reads the text as stored.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { chunkText } from "../src/detail.js";
import { makeH } from "../src/dom.js";
import { inert, shownText } from "../src/text.js";
import { FakeDocument } from "./fake_dom.js";

const VECTORS = JSON.parse(readFileSync(new URL("../../tests/vectors/shown_text.json", import.meta.url), "utf-8"));
const INERT = JSON.parse(readFileSync(new URL("../../tests/vectors/inert.json", import.meta.url), "utf-8"));

describe("inert text", () => {
  for (const vector of INERT) {
    test(`shows a control as the %%ask output does: ${vector.name}`, () => {
      assert.equal(inert(vector.text), vector.shown);
    });
  }
});

describe("shown text", () => {
  for (const vector of VECTORS) {
    test(`shows as the kernel does: ${vector.name}`, () => {
      assert.equal(shownText(vector.text), vector.shown);
    });
  }

  test("the chunk view shows a PDF page's chunk without its page mark, quotes marked", () => {
    const h = makeH(new FakeDocument());
    const item = { text: "\f\fThe quokka shelters under saltbush by day." };
    const view = chunkText(h, item, ["The quokka shelters under saltbush by day."]);
    assert.equal(view.textContent, "The quokka shelters under saltbush by day.");
    const marks = view.descendants().filter((n) => n.tagName.toUpperCase() === "MARK");
    assert.deepEqual(marks.map((m) => m.textContent), ["The quokka shelters under saltbush by day"]);
    assert.equal(item.text.startsWith("\f\f"), true, "the item keeps its text as stored");
  });
});
