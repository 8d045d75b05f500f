/**
 * The hash primitives reproduce every entry of tests/vectors/hashing.json
 * byte for byte, and refuse what canonical JSON must refuse.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  CanonicalJsonError,
  cacheKey,
  canonicalJson,
  compareCodePoints,
  eventHash,
  fromHex,
  hashCombine,
  leafHash,
  nodeHash,
  normalizeQuestion,
  questionHash,
  sha256Hex,
  subtreeHash,
  toHex,
  utf8,
} from "../src/index.js";

// Shared with the Python tests: <repo>/tests/vectors/hashing.json.
const vectors = JSON.parse(
  readFileSync(new URL("../../tests/vectors/hashing.json", import.meta.url), "utf8"),
);
const decode = (bytes) => new TextDecoder().decode(bytes);

describe("hashing.json", () => {
  test("has every section", () => {
    for (const section of [
      "canonical_json",
      "canonical_json_refused",
      "leaf_hash",
      "hash_combine",
      "merkle_root",
      "inclusion_proof",
      "question_hash",
      "node_hash",
      "subtree_hash",
      "event_hash",
      "cache_key",
    ]) {
      assert.ok(vectors[section]?.length > 0, `section ${section} is empty`);
    }
  });
});

describe("canonicalJson reproduces the vectors", () => {
  for (const [i, entry] of vectors.canonical_json.entries()) {
    test(`canonical_json[${i}] ${JSON.stringify(entry.text)}`, () => {
      const bytes = canonicalJson(entry.input);
      assert.equal(toHex(bytes), entry.utf8_hex);
      assert.equal(decode(bytes), entry.text);
    });
  }
});

describe("canonicalJson refuses what the vectors refuse", () => {
  // Each Python input of canonical_json_refused, translated to its JS
  // analogue. Keyed by desc so a new refused entry fails until translated.
  const analogues = {
    float: [{ x: 1.5 }],
    NaN: [NaN],
    "integer beyond 2**53": [2 ** 53 + 2, -(2 ** 53) - 2, 2 ** 53],
    // JS object keys are always strings (or symbols), so {1: 'a'} is just
    // {"1": "a"} here. The nearest analogues with a non-string key are a
    // Map (which canonicalJson refuses outright, as any non-plain object)
    // and an object with a symbol key.
    "non-string key": [new Map([[1, "a"]]), { [Symbol("k")]: "a" }],
    "lone surrogate": ["\ud800", "\udc00", "a\ud800b", ["\udfff"], { "\ud800": 1 }],
  };

  for (const entry of vectors.canonical_json_refused) {
    test(`refuses ${entry.desc} (Python: ${entry.input_repr})`, () => {
      const inputs = analogues[entry.desc];
      assert.ok(inputs, `no JS analogue written for refused case "${entry.desc}"`);
      for (const input of inputs) {
        assert.throws(() => canonicalJson(input), CanonicalJsonError);
      }
    });
  }

  test("2**53 + 1 is not representable in JS; its neighbours are refused", () => {
    // 2 ** 53 + 1 rounds to 2 ** 53, which is itself beyond 2^53 - 1.
    assert.equal(2 ** 53 + 1, 2 ** 53);
    assert.throws(() => canonicalJson(2 ** 53 + 1), CanonicalJsonError);
    assert.equal(decode(canonicalJson(2 ** 53 - 1)), "9007199254740991");
    assert.equal(decode(canonicalJson(-(2 ** 53 - 1))), "-9007199254740991");
  });

  test("refuses every other non-JSON value", () => {
    class Point {
      constructor() {
        this.x = 1;
      }
    }
    for (const input of [
      undefined,
      { a: undefined },
      [undefined],
      [, 1], // eslint-disable-line no-sparse-arrays
      () => 1,
      Symbol("s"),
      1n,
      Infinity,
      -Infinity,
      0.1,
      1e300,
      new Date(0),
      new Set([1]),
      new Uint8Array(1),
      new String("s"),
      new Number(1),
      new Point(),
      { nested: { deeper: [1, 2, 1.5] } },
    ]) {
      assert.throws(() => canonicalJson(input), CanonicalJsonError, String(input));
    }
  });

  test("refuses a cycle instead of overflowing the stack", () => {
    const a = { x: [] };
    a.x.push(a);
    assert.throws(() => canonicalJson(a), CanonicalJsonError);
  });

  test("accepts a shared (not cyclic) child twice", () => {
    const child = { k: 1 };
    assert.equal(decode(canonicalJson([child, child])), '[{"k":1},{"k":1}]');
  });

  test("accepts objects without a prototype", () => {
    const bare = Object.create(null);
    bare.b = 2;
    bare.a = 1;
    assert.equal(decode(canonicalJson(bare)), '{"a":1,"b":2}');
  });
});

describe("canonicalJson matches Python's json.dumps", () => {
  test("sorts keys by code point: \\uffff before \\u{10000}, as Python does", () => {
    // UTF-16 order would put U+10000 (0xD800 0xDC00) first.
    const text = decode(canonicalJson({ "\u{10000}": 1, "\uffff": 2, "\ue000": 3, z: 4 }));
    assert.equal(text, '{"z":4,"\ue000":3,"\uffff":2,"\u{10000}":1}');
  });

  test("compareCodePoints orders by code point", () => {
    const words = ["\u{10000}", "\uffff", "\ud7ff", "a", "", "\u{10ffff}", "\ue000", "ab"];
    const sorted = [...words].sort(compareCodePoints);
    const byPoints = [...words].sort((a, b) => {
      const x = [...a].map((c) => c.codePointAt(0));
      const y = [...b].map((c) => c.codePointAt(0));
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i] !== y[i]) return x[i] - y[i];
      }
      return x.length - y.length;
    });
    assert.deepEqual(sorted, byPoints);
    assert.deepEqual(sorted, ["", "a", "ab", "\ud7ff", "\ue000", "\uffff", "\u{10000}", "\u{10ffff}"]);
  });

  test("escapes exactly as json.dumps(ensure_ascii=False)", () => {
    // Expected bytes written by Python 3.11:
    // json.dumps(s, ensure_ascii=False).encode().hex() for
    // s = every char U+0000..U+007F + U+0085 U+00A0 U+2028 U+2029 U+FEFF U+1F332.
    const s =
      Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)).join("") +
      "\u0085\u00a0\u2028\u2029\ufeff\u{1f332}";
    const expected =
      "225c75303030305c75303030315c75303030325c75303030335c75303030345c75303030" +
      "355c75303030365c75303030375c625c745c6e5c75303030625c665c725c75303030655c" +
      "75303030665c75303031305c75303031315c75303031325c75303031335c75303031345c" +
      "75303031355c75303031365c75303031375c75303031385c75303031395c75303031615c" +
      "75303031625c75303031635c75303031645c75303031655c753030316620215c22232425" +
      "262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40414243444546474849" +
      "4a4b4c4d4e4f505152535455565758595a5b5c5c5d5e5f606162636465666768696a6b6c" +
      "6d6e6f707172737475767778797a7b7c7d7e7fc285c2a0e280a8e280a9efbbbff09f8cb2" +
      "22";
    assert.equal(toHex(canonicalJson(s)), expected);
  });

  test("writes -0 as 0 and integers without exponent", () => {
    assert.equal(decode(canonicalJson([-0, 0, 1e15, -123])), "[0,0,1000000000000000,-123]");
  });
});

describe("hex helpers", () => {
  test("toHex writes lowercase and fromHex round-trips", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hex = toHex(bytes);
    assert.match(hex, /^[0-9a-f]{512}$/);
    assert.deepEqual(fromHex(hex), bytes);
    assert.deepEqual(fromHex(hex.toUpperCase()), bytes);
    assert.deepEqual(fromHex(""), new Uint8Array(0));
  });

  test("fromHex is strict", () => {
    for (const bad of ["0", "abc", "0x00", "zz", " 00", "00 ", "0g", "+1", "-1", "é0"]) {
      assert.throws(() => fromHex(bad), RangeError, bad);
    }
    for (const bad of [null, undefined, 12, new Uint8Array(2)]) {
      assert.throws(() => fromHex(bad), TypeError);
    }
    assert.throws(() => toHex("00"), TypeError);
  });
});

describe("digests reproduce the vectors", () => {
  for (const [i, entry] of vectors.leaf_hash.entries()) {
    test(`leaf_hash[${i}] over ${entry.input_hex.length / 2} bytes`, async () => {
      const digest = await leafHash(fromHex(entry.input_hex));
      assert.ok(digest instanceof Uint8Array);
      assert.equal(digest.length, 32);
      assert.equal(toHex(digest), entry.output);
    });
  }

  for (const [i, entry] of vectors.hash_combine.entries()) {
    test(`hash_combine[${i}]`, async () => {
      const digest = await hashCombine(fromHex(entry.left), fromHex(entry.right));
      assert.equal(toHex(digest), entry.output);
    });
  }

  test("hashCombine refuses anything but two 32-byte digests", async () => {
    const ok = new Uint8Array(32);
    await assert.rejects(hashCombine(new Uint8Array(31), ok), TypeError);
    await assert.rejects(hashCombine(ok, new Uint8Array(33)), TypeError);
    await assert.rejects(hashCombine(ok, "00".repeat(32)), TypeError);
  });

  test("sha256Hex of nothing is the well-known empty digest", async () => {
    assert.equal(
      await sha256Hex(new Uint8Array(0)),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });
});

describe("question_hash reproduces the vectors", () => {
  for (const [i, entry] of vectors.question_hash.entries()) {
    test(`question_hash[${i}] ${JSON.stringify(entry.question)}`, async () => {
      assert.equal(normalizeQuestion(entry.question), entry.normalized);
      assert.equal(await questionHash(entry.question), entry.question_hash);
    });
  }

  test("whitespace is Python's str.split() whitespace, not JS's \\s", async () => {
    // Python 3.11: " ".join(unicodedata.normalize("NFC", q).split()) and its
    // sha256. U+001C and U+0085 split in Python (not in JS's \s); U+FEFF
    // and U+200B do not (U+FEFF does in JS's \s); U+180E no longer does.
    const q = "\u2000 a\u001cb\u0085c\ufeffd\u200be\u3000f\u00a0g\u000bh\u180ei\u2028 ";
    assert.equal(normalizeQuestion(q), "a b c\ufeffd\u200be f g h\u180ei");
    assert.equal(
      await questionHash(q),
      "560a4344d7e789f1ca0452b7003d01451cb1adc723309f6bd8c660aba2606ade",
    );
  });

  test("a lone surrogate in a question is refused, not replaced", async () => {
    await assert.rejects(questionHash("who\ud800"), RangeError);
    assert.throws(() => utf8("\udc00"), RangeError);
  });
});

describe("node_hash, subtree_hash, event_hash and cache_key reproduce the vectors", () => {
  for (const [i, entry] of vectors.node_hash.entries()) {
    test(`node_hash[${i}] ${entry.fields.bates}`, async () => {
      assert.equal(await nodeHash(entry.fields), entry.node_hash);
    });
  }

  test("nodeHash ignores extra row columns but refuses a missing field", async () => {
    const { fields, node_hash } = vectors.node_hash[0];
    assert.equal(await nodeHash({ ...fields, answer_text: "x", seq: 0 }), node_hash);
    const { label, ...withoutLabel } = fields;
    await assert.rejects(nodeHash(withoutLabel), TypeError);
    await assert.rejects(nodeHash({ ...fields, label: undefined }), CanonicalJsonError);
  });

  for (const [i, entry] of vectors.subtree_hash.entries()) {
    test(`subtree_hash[${i}] ${entry.desc ?? `${entry.children_subtree_hashes.length} children`}`, async () => {
      assert.equal(
        await subtreeHash(entry.node_hash, entry.children_subtree_hashes),
        entry.subtree_hash,
      );
    });
  }

  test("a node's leaf hash is taken over the raw 32 bytes of its node hash", async () => {
    const { node_hash, subtree_hash } = vectors.subtree_hash[0];
    assert.equal(toHex(await leafHash(fromHex(node_hash))), subtree_hash);
  });

  for (const [i, entry] of vectors.event_hash.entries()) {
    test(`event_hash[${i}] ${entry.event_type}`, async () => {
      assert.equal(await eventHash(entry.prev_event_hash, entry), entry.event_hash);
    });
  }

  test("the previous event hash is chained as raw 32 bytes, not ascii hex", async () => {
    const entry = vectors.event_hash[1];
    const body = canonicalJson({
      event_type: entry.event_type,
      sid: entry.sid,
      bates: entry.bates,
      body: entry.body,
      created_at: entry.created_at,
    });
    const raw = new Uint8Array([...fromHex(entry.prev_event_hash), ...body]);
    assert.equal(await sha256Hex(raw), entry.event_hash);
    // Upper-case hex names the same bytes.
    assert.equal(
      await eventHash(entry.prev_event_hash.toUpperCase(), entry),
      entry.event_hash,
    );
  });

  for (const [i, entry] of vectors.cache_key.entries()) {
    test(`cache_key[${i}]`, async () => {
      assert.equal(await cacheKey(entry.dimensions), entry.cache_key);
    });
  }

  test("cacheKey refuses a missing dimension", async () => {
    const { chunking_version, ...seven } = vectors.cache_key[0].dimensions;
    await assert.rejects(cacheKey(seven), TypeError);
  });
});

describe("subtree hashes", () => {
  const hex = (n) => n.toString(16).padStart(2, "0").repeat(32);

  test("do not depend on the order children are given in", async () => {
    const node = vectors.subtree_hash[2].node_hash;
    const children = Array.from({ length: 7 }, (_, i) => hex(i * 37 + 5));
    const expected = await subtreeHash(node, children);
    let seed = 7;
    for (let round = 0; round < 20; round++) {
      const shuffled = [...children];
      for (let i = shuffled.length - 1; i > 0; i--) {
        seed = (seed * 48271) % 2147483647; // Park-Miller, exact in doubles
        const j = seed % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      assert.equal(await subtreeHash(node, shuffled), expected);
      assert.equal(await subtreeHash(node, shuffled.map((h) => h.toUpperCase())), expected);
    }
  });

  test("tell X→{Y,Z} from X→Y→Z", async () => {
    const [x, y, z] = [hex(1), hex(2), hex(3)];
    const leafY = await subtreeHash(y, []);
    const leafZ = await subtreeHash(z, []);
    const fan = await subtreeHash(x, [leafY, leafZ]);
    const chain = await subtreeHash(x, [await subtreeHash(y, [leafZ])]);
    assert.notEqual(fan, chain);
  });

  test("refuse malformed hashes", async () => {
    await assert.rejects(subtreeHash("ab", []), RangeError);
    await assert.rejects(subtreeHash(hex(1), ["zz".repeat(32)]), RangeError);
    await assert.rejects(subtreeHash(hex(1), [hex(2).slice(2)]), RangeError);
  });
});
