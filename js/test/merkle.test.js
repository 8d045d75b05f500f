/**
 * Merkle roots and inclusion proofs: the vectors of hashing.json (arborist's
 * interior, 0x03) and, when present, the RFC 6962 known answers of
 * rfc6962.json (interior 0x01) run through the same code; a naive recursive
 * reference for every size 1..64; and mutation probes that every tampered
 * proof must fail.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  concatBytes,
  fromHex,
  hashCombine,
  inclusionProof,
  leafHash,
  merkleRoot,
  sha256,
  toHex,
  utf8,
  verifyInclusion,
} from "../src/index.js";

// Shared with the Python tests: <repo>/tests/vectors/*.json.
const vectorsUrl = (name) => new URL(`../../tests/vectors/${name}`, import.meta.url);
const hashing = JSON.parse(readFileSync(vectorsUrl("hashing.json"), "utf8"));
const rfc6962 = existsSync(vectorsUrl("rfc6962.json"))
  ? JSON.parse(readFileSync(vectorsUrl("rfc6962.json"), "utf8"))
  : null;

/** RFC 6962 / 9162 interior node: sha256(0x01 || left || right). */
const rfcInterior = (left, right) => sha256(concatBytes(Uint8Array.of(0x01), left, right));

const INTERIORS = [
  ["arborist (0x03)", hashCombine],
  ["RFC 6962 (0x01)", rfcInterior],
];

/** Leaves of the hashing.json trees: leaf_hash(utf8(`c${i}`)). */
async function chunkLeaves(count) {
  const leaves = [];
  for (let i = 0; i < count; i++) leaves.push(await leafHash(utf8(`c${i}`)));
  return leaves;
}

/** A copy of `bytes` with one bit flipped. */
function flipBit(bytes, bit) {
  const out = Uint8Array.from(bytes);
  out[bit >> 3] ^= 1 << (bit & 7);
  return out;
}

/**
 * Naive recursive RFC 6962 reference (MTH and PATH, section 2.1) over a
 * fixed leaf list, memoized by [start, end) so that every prefix tree
 * D[0:size] shares work. Test-only: recursion is fine at these sizes.
 */
function naiveReference(leaves, interior) {
  const memo = new Map();
  const split = (n) => {
    let k = 1;
    while (k * 2 < n) k *= 2;
    return k;
  };
  async function mth(start, end) {
    const key = `${start}:${end}`;
    if (!memo.has(key)) {
      const n = end - start;
      let value;
      if (n === 0) value = sha256(new Uint8Array(0));
      else if (n === 1) value = Promise.resolve(leaves[start]);
      else {
        const k = split(n);
        value = Promise.all([mth(start, start + k), mth(start + k, end)]).then(
          ([l, r]) => interior(l, r),
        );
      }
      memo.set(key, value);
    }
    return memo.get(key);
  }
  async function path(m, start, end) {
    const n = end - start;
    if (n === 1) return [];
    const k = split(n);
    if (m < k) return [...(await path(m, start, start + k)), await mth(start + k, end)];
    return [...(await path(m - k, start + k, end)), await mth(start, start + k)];
  }
  return {
    root: (size) => mth(0, size),
    path: (index, size) => path(index, 0, size),
  };
}

/**
 * Every tampered variant of a valid proof, each named by the mutation it
 * probes. Every one of them must fail verification.
 */
function* mutations({ leaf, index, size, proof, root }) {
  const zero = new Uint8Array(32);
  yield ["index + 1", { index: index + 1 }];
  yield ["index - 1", { index: index - 1 }];
  yield ["size × 2", { size: size * 2 }];
  yield ["size / 2", { size: Math.floor(size / 2) }];
  yield ["index = size", { index: size }];
  yield ["size 0", { size: 0 }];
  yield ["wrong leaf (bit 0 flipped)", { leaf: flipBit(leaf, 0) }];
  yield ["wrong leaf (bit 255 flipped)", { leaf: flipBit(leaf, 255) }];
  if (size > 1) yield ["wrong leaf (the root)", { leaf: root }];
  yield ["wrong root (bit 0 flipped)", { root: flipBit(root, 0) }];
  yield ["wrong root (bit 255 flipped)", { root: flipBit(root, 255) }];
  if (size > 1) yield ["wrong root (the leaf)", { root: leaf }];
  for (let i = 0; i < proof.length; i++) {
    for (const bit of [0, 7, 128, 255]) {
      const flipped = [...proof];
      flipped[i] = flipBit(proof[i], bit);
      yield [`proof[${i}] bit ${bit} flipped`, { proof: flipped }];
    }
    yield [`proof[${i}] dropped`, { proof: proof.filter((_, j) => j !== i) }];
    yield [`proof[${i}] duplicated`, { proof: [...proof.slice(0, i + 1), ...proof.slice(i)] }];
    yield [`proof[${i}] 31 bytes`, { proof: proof.map((p, j) => (j === i ? p.slice(1) : p)) }];
    yield [`proof[${i}] 33 bytes`, { proof: proof.map((p, j) => (j === i ? concatBytes(p, zero.slice(0, 1)) : p)) }];
    yield [`proof[${i}] as hex`, { proof: proof.map((p, j) => (j === i ? toHex(p) : p)) }];
  }
  yield ["element appended", { proof: [...proof, zero] }];
  yield ["element prepended", { proof: [zero, ...proof] }];
  yield ["root appended", { proof: [...proof, root] }];
  if (proof.length > 1) yield ["proof reversed", { proof: [...proof].reverse() }];
  yield ["index 0.5", { index: index + 0.5 }];
  yield ["index NaN", { index: NaN }];
  yield ["index as string", { index: String(index) }];
  yield ["index as bigint", { index: BigInt(index) }];
  yield ["size Infinity", { size: Infinity }];
  yield ["size as string", { size: String(size) }];
  yield ["leaf 31 bytes", { leaf: leaf.slice(1) }];
  yield ["leaf as hex", { leaf: toHex(leaf) }];
  yield ["root 33 bytes", { root: concatBytes(root, zero.slice(0, 1)) }];
  yield ["proof null", { proof: null }];
  yield ["proof as one byte string", { proof: concatBytes(...proof) }];
}

/** Assert the valid proof verifies and each mutation of it fails. */
async function assertRejectsEveryMutation(valid, interior) {
  const check = ({ leaf, index, size, proof, root }) =>
    verifyInclusion(leaf, index, size, proof, root, interior);
  assert.equal(await check(valid), true, "the unmutated proof must verify");
  const probes = [...mutations(valid)];
  const results = await Promise.all(
    probes.map(([, change]) => check({ ...valid, ...change })),
  );
  probes.forEach(([name], i) =>
    assert.equal(
      results[i],
      false,
      `mutation "${name}" of index ${valid.index}/size ${valid.size} verified`,
    ),
  );
  return probes.length;
}

describe("merkleRoot and inclusionProof reproduce hashing.json", () => {
  for (const entry of hashing.merkle_root) {
    test(`merkle_root of ${entry.size} leaves`, async () => {
      const root = await merkleRoot(await chunkLeaves(entry.size));
      assert.equal(toHex(root), entry.root);
    });
  }

  for (const entry of hashing.inclusion_proof) {
    test(`inclusion_proof index ${entry.index} of size ${entry.size}`, async () => {
      const leaves = await chunkLeaves(entry.size);
      assert.equal(toHex(leaves[entry.index]), entry.leaf);
      const proof = await inclusionProof(leaves, entry.index);
      assert.deepEqual(proof.map(toHex), entry.proof);
      const valid = {
        leaf: fromHex(entry.leaf),
        index: entry.index,
        size: entry.size,
        proof: entry.proof.map(fromHex),
        root: fromHex(entry.root),
      };
      await assertRejectsEveryMutation(valid, hashCombine);
      // The interior is part of the contract: RFC 6962's does not verify it.
      if (entry.proof.length > 0) {
        const { leaf, index, size, proof: p, root } = valid;
        assert.equal(await verifyInclusion(leaf, index, size, p, root, rfcInterior), false);
      }
    });
  }
});

describe("RFC 6962 known answers (rfc6962.json) through the same code", () => {
  test("rfc6962.json is present", () => {
    assert.ok(rfc6962, "tests/vectors/rfc6962.json is missing");
    assert.ok(rfc6962.leaves_hex.length > 0);
  });
  if (!rfc6962) return;

  const leavesPromise = Promise.all(rfc6962.leaves_hex.map((hex) => leafHash(fromHex(hex))));

  for (const entry of rfc6962.roots) {
    test(`root of the first ${entry.size} leaves`, async () => {
      const leaves = (await leavesPromise).slice(0, entry.size);
      assert.equal(leaves.length, entry.size, "not enough leaves_hex");
      assert.equal(toHex(await merkleRoot(leaves, rfcInterior)), entry.root);
    });
  }

  for (const entry of rfc6962.inclusion_proofs) {
    test(`inclusion proof of index ${entry.index} in size ${entry.size}`, async () => {
      const leaves = (await leavesPromise).slice(0, entry.size);
      const rootEntry = rfc6962.roots.find((r) => r.size === entry.size);
      assert.ok(rootEntry, `no root for size ${entry.size}`);
      const proof = await inclusionProof(leaves, entry.index, rfcInterior);
      assert.deepEqual(proof.map(toHex), entry.proof);
      const valid = {
        leaf: leaves[entry.index],
        index: entry.index,
        size: entry.size,
        proof: entry.proof.map(fromHex),
        root: fromHex(rootEntry.root),
      };
      await assertRejectsEveryMutation(valid, rfcInterior);
      if (entry.proof.length > 0) {
        const { leaf, index, size, proof: p, root } = valid;
        assert.equal(await verifyInclusion(leaf, index, size, p, root, hashCombine), false);
      }
    });
  }
});

describe("every index of every size 1..64", () => {
  for (const [name, interior] of INTERIORS) {
    test(`matches the naive RFC 6962 reference and verifies, interior ${name}`, async () => {
      const all = await chunkLeaves(64);
      const reference = naiveReference(all, interior);
      assert.equal(toHex(await merkleRoot([], interior)), toHex(await reference.root(0)));
      for (let size = 1; size <= 64; size++) {
        const leaves = all.slice(0, size);
        const root = await merkleRoot(leaves, interior);
        assert.equal(toHex(root), toHex(await reference.root(size)), `root of size ${size}`);
        const indices = Array.from({ length: size }, (_, index) => index);
        await Promise.all(
          indices.map(async (index) => {
            const proof = await inclusionProof(leaves, index, interior);
            assert.deepEqual(
              proof.map(toHex),
              (await reference.path(index, size)).map(toHex),
              `proof of ${index}/${size}`,
            );
            assert.equal(
              await verifyInclusion(leaves[index], index, size, proof, root, interior),
              true,
              `proof of ${index}/${size} must verify`,
            );
          }),
        );
      }
    });
  }

  test("every mutation of every proof up to size 33 is rejected", async () => {
    const all = await chunkLeaves(33);
    let probes = 0;
    for (let size = 1; size <= 33; size++) {
      const leaves = all.slice(0, size);
      const root = await merkleRoot(leaves);
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(leaves, index);
        probes += await assertRejectsEveryMutation(
          { leaf: leaves[index], index, size, proof, root },
          hashCombine,
        );
      }
    }
    assert.ok(probes > 10000, `only ${probes} probes`);
  });
});

describe("merkle edge cases", () => {
  test("one leaf is its own root and the empty tree is sha256 of nothing", async () => {
    const [leaf] = await chunkLeaves(1);
    const root = await merkleRoot([leaf]);
    assert.deepEqual(root, leaf);
    assert.notEqual(root, leaf, "the root is a copy, not the caller's array");
    assert.deepEqual(await inclusionProof([leaf], 0), []);
    assert.equal(
      toHex(await merkleRoot([])),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
  });

  test("a root does not fix its size: the caller must supply the stored size", async () => {
    // Leaf 0 of 8 and leaf 0 of 7 take the same left turns, so the size-8
    // proof also checks out against the size-8 root when told size 7. This
    // is why docs/design.md verifies against the size stored beside the root.
    const leaves = await chunkLeaves(8);
    const root = await merkleRoot(leaves);
    const proof = await inclusionProof(leaves, 0);
    assert.equal(await verifyInclusion(leaves[0], 0, 7, proof, root), true);
  });

  test("large trees are built and proven without recursion", async () => {
    const leaves = await chunkLeaves(10_000);
    const root = await merkleRoot(leaves);
    for (const index of [0, 4321, 8191, 8192, 9999]) {
      const proof = await inclusionProof(leaves, index);
      assert.equal(await verifyInclusion(leaves[index], index, 10_000, proof, root), true);
    }
  });

  test("sizes beyond 2^32 are handled exactly, not by 32-bit shifts", async () => {
    const leaf = new Uint8Array(32);
    // Index 2^32 in a tree of 2^32 + 1 leaves: its only sibling is the
    // left subtree of 2^32 leaves.
    const left = new Uint8Array(32).fill(7);
    const root = await hashCombine(left, leaf);
    assert.equal(await verifyInclusion(leaf, 2 ** 32, 2 ** 32 + 1, [left], root), true);
    assert.equal(await verifyInclusion(leaf, 0, 2 ** 32 + 1, [left], root), false);
  });

  test("inclusionProof and merkleRoot refuse bad input", async () => {
    const leaves = await chunkLeaves(3);
    for (const index of [-1, 3, 1.5, NaN, "1"]) {
      await assert.rejects(inclusionProof(leaves, index), RangeError, String(index));
    }
    await assert.rejects(merkleRoot([leaves[0], new Uint8Array(31)]), TypeError);
    await assert.rejects(merkleRoot("abc"), TypeError);
    await assert.rejects(inclusionProof([...leaves, toHex(leaves[0])], 0), TypeError);
  });

  test("verifyInclusion returns false when the interior throws", async () => {
    const leaves = await chunkLeaves(2);
    const root = await merkleRoot(leaves);
    const proof = await inclusionProof(leaves, 0);
    const broken = () => {
      throw new Error("boom");
    };
    assert.equal(await verifyInclusion(leaves[0], 0, 2, proof, root, broken), false);
  });
});
