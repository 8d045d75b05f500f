/**
 * The widget marks what an answer quotes by the rule arborist/_proofs/quotes.py marks it by in
 * the `%%ask` output (tests/vectors/quotes.json): the same spans in every face.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { chunkText } from "../src/detail.js";
import { makeH } from "../src/dom.js";
import { claimsFor, quotedRanges } from "../src/text.js";
import { FakeDocument } from "./fake_dom.js";

const VECTORS = JSON.parse(readFileSync(new URL("../../tests/vectors/quotes.json", import.meta.url), "utf-8"));

describe("quoted spans", () => {
  for (const vector of VECTORS) {
    test(`marks as the kernel does: ${vector.name}`, () => {
      const ranges = quotedRanges(vector.chunk, claimsFor(vector.answer, vector.label));
      assert.deepEqual(
        ranges.map(([start, end]) => vector.chunk.slice(start, end)),
        vector.marked,
      );
    });
  }

  test("the detail pane's chunk shows those spans, and only those, as marks", () => {
    const h = makeH(new FakeDocument());
    for (const vector of VECTORS) {
      const el = chunkText(h, { text: vector.chunk }, claimsFor(vector.answer, vector.label));
      const marks = el.descendants().filter((child) => child.tagName.toUpperCase() === "MARK");
      assert.deepEqual(marks.map((mark) => mark.textContent), vector.marked, vector.name);
    }
  });
});
