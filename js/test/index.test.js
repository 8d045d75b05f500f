/**
 * The public surface stays honest: index.js re-exports every export of the
 * modules behind it, and src/ stays portable to browsers.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import * as hashing from "../src/hashing.js";
import * as index from "../src/index.js";
import * as merkle from "../src/merkle.js";

test("index.js re-exports exactly the exports of hashing.js and merkle.js", () => {
  const expected = [...Object.keys(hashing), ...Object.keys(merkle)].sort();
  assert.deepEqual(Object.keys(index).sort(), expected);
  for (const name of expected) {
    assert.equal(index[name], hashing[name] ?? merkle[name], name);
  }
});

test("src/ imports nothing but its own modules (no Node-only imports)", () => {
  const srcDir = new URL("../src/", import.meta.url);
  for (const file of readdirSync(srcDir).filter((name) => name.endsWith(".js"))) {
    const text = readFileSync(new URL(file, srcDir), "utf8");
    const specifiers = [...text.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']/g)]
      .map((m) => m[1] ?? m[2]);
    for (const specifier of specifiers) {
      assert.match(specifier, /^\.\/[\w-]+\.js$/, `${file} imports ${specifier}`);
    }
    assert.doesNotMatch(text, /\brequire\s*\(|\bprocess\.|\bBuffer\b/, `${file} uses a Node global`);
  }
});
