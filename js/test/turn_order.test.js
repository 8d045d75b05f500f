// The page's rules of a turn's shape and a session's turns' order (js/src/turn_shape.js,
// js/src/turn_order.js) held to every entry of
// tests/vectors/turn_order.json, the vectors the Python rule (arborist/_forest/shape.py) is
// held to in tests/test_turn_order.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { isStoredTime, orderProblems } from "../src/turn_order.js";
import { bundleTurnProblems, shapeProblem } from "../src/turn_shape.js";

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

for (const entry of vectors.shape) {
  test(`shape: ${entry.name}`, () => {
    assert.equal(shapeProblem(entry), entry.problem);
  });
}

test("a bundle's turns are held to the shape with their key in base64url and their titles as a list", () => {
  const bundle = JSON.parse(readFileSync(new URL("./fixtures/small.bundle", import.meta.url), "utf8"));
  for (const turn of bundle.turns) assert.deepEqual(bundleTurnProblems(turn), [], turn.bates);
  const [root, answered] = bundle.turns;
  assert.deepEqual(bundleTurnProblems({ ...root, question: "Hi" }), ["a session's root holds no question, answer, cache key, cited title or label"]);
  assert.deepEqual(bundleTurnProblems({ ...answered, cache_key: answered.cache_key.slice(1) }), ["its cache key is not a cache key (64 lowercase hex digits): no answer can vouch for it"]);
  assert.deepEqual(bundleTurnProblems({ ...answered, audit_mode: "NONE", created_at: "2026" }), [
    "its audit mode is none an answer is given in (STRICT, HYBRID, VISUAL)",
    "its created_at is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ",
  ]);
});
