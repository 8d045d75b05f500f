// The page's rule of a session's turns' order (js/src/turn_order.js) held to every entry of
// tests/vectors/turn_order.json, the vectors the Python rule (arborist/_forest/shape.py) is
// held to in tests/test_turn_order.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { isStoredTime, orderProblems } from "../src/turn_order.js";

const vectors = JSON.parse(readFileSync(new URL("../../tests/vectors/turn_order.json", import.meta.url), "utf8"));

test("the vectors are there", () => {
  assert.ok(vectors.order.length > 0 && vectors.stored_time.length > 0);
  assert.ok(vectors.order.some((c) => c.problems.length) && vectors.order.some((c) => !c.problems.length));
});

for (const entry of vectors.order) {
  test(`order: ${entry.name}`, () => {
    assert.deepEqual(orderProblems(entry.turns), entry.problems);
  });
}

test("every stored_time entry is told as the Python tells it", () => {
  for (const entry of vectors.stored_time) assert.equal(isStoredTime(entry.text), entry.stored, JSON.stringify(entry.text));
});

test("a turn whose fields are not of their types is left to the other checks, never thrown on", () => {
  const turns = [[null, null, null], [7, "x", 3], ["20261207T120000Z-abcdef-000000", null, 5], ["20261207T120000Z-abcdef-000001", "20261207T120000Z-abcdef-000000", "2001"]];
  assert.deepEqual(orderProblems(turns), []);
});
