// The plain-JS SHA-256 (js/src/sha256.js) against WebCrypto's, on every length around the
// block edges and on random bytes, and FIPS 180-4's "abc".
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";

import { sha256, toHex } from "../src/hashing.js";
import { sha256Sync } from "../src/sha256.js";

test("abc and the empty input give FIPS 180-4's digests", () => {
  assert.equal(toHex(sha256Sync(new TextEncoder().encode("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(toHex(sha256Sync(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});

test("every length from 0 to 300 bytes, and 10,000, as WebCrypto hashes them", async () => {
  for (const length of [...Array(301).keys(), 10_000]) {
    const bytes = new Uint8Array(randomBytes(length));
    assert.equal(toHex(sha256Sync(bytes)), toHex(await sha256(bytes)), `length ${length}`);
  }
});

test("anything but bytes is refused", () => {
  assert.throws(() => sha256Sync("abc"), TypeError);
});
