/**
 * Merkle trees over already-hashed leaves, ported from `arborist/_proofs/merkle.py`.
 *
 * Shape: RFC 6962 §2.1 (split at the largest power of two below n; one leaf
 * is its own root; the empty list is `sha256("")`). Inclusion proofs and
 * their verification follow RFC 9162 §2.1.3, leaves counted from zero.
 * Every function is generic over the interior node function, which
 * defaults to arborist's {@link hashCombine} (`sha256(0x03 || l || r)`);
 * pass `sha256(0x01 || l || r)` to get RFC 6962 / 9162 trees exactly.
 *
 * All loops are iterative: no recursion on the number of leaves.
 *
 * A root does not fix its size: verify against the size stored beside the
 * root (a document's `chunk_count`), never one a caller or proof supplies.
 *
 * @module merkle
 */

import { DIGEST_LENGTH, hashCombine, sha256 } from "./hashing.js";

/**
 * An interior node function: combines two 32-byte digests into one.
 *
 * @callback Interior
 * @param {Uint8Array} left
 * @param {Uint8Array} right
 * @returns {Promise<Uint8Array>|Uint8Array}
 */

/**
 * Whether `value` is a 32-byte Uint8Array.
 *
 * @param {unknown} value
 * @returns {boolean}
 */
function isDigest(value) {
  return value instanceof Uint8Array && value.length === DIGEST_LENGTH;
}

/**
 * Throw unless `hashes` is an array of 32-byte digests.
 *
 * @param {unknown} hashes
 * @param {string} what
 */
function checkLeaves(hashes, what) {
  if (!Array.isArray(hashes)) {
    throw new TypeError(`${what}: hashes must be an array of 32-byte Uint8Arrays`);
  }
  hashes.forEach((hash, i) => {
    if (!isDigest(hash)) {
      throw new TypeError(`${what}: hashes[${i}] is not a 32-byte Uint8Array`);
    }
  });
}

/**
 * The next level up: adjacent pairs combined left to right, an odd last
 * node carried up unchanged. Repeating this until one node remains builds
 * exactly the RFC 6962 tree (split at the largest power of two below n).
 *
 * @param {Uint8Array[]} level
 * @param {Interior} interior
 * @returns {Promise<Uint8Array[]>}
 */
async function parentLevel(level, interior) {
  const pending = [];
  // The digests of one level are independent: let WebCrypto run them
  // concurrently instead of awaiting each in turn.
  for (let i = 0; i + 1 < level.length; i += 2) {
    pending.push(interior(level[i], level[i + 1]));
  }
  if (level.length % 2 === 1) pending.push(level[level.length - 1]);
  return Promise.all(pending);
}

/**
 * Root of the RFC 6962 tree over `hashes` (leaf hashes, in order).
 *
 * @param {Uint8Array[]} hashes 32-byte leaf hashes
 * @param {Interior} [interior=hashCombine]
 * @returns {Promise<Uint8Array>} 32 bytes; `sha256("")` for no leaves, the
 *   leaf itself (a copy) for one
 * @throws {TypeError} if an element is not a 32-byte Uint8Array
 */
export async function merkleRoot(hashes, interior = hashCombine) {
  checkLeaves(hashes, "merkleRoot");
  if (hashes.length === 0) return sha256(new Uint8Array(0));
  let level = hashes;
  while (level.length > 1) {
    level = await parentLevel(level, interior);
  }
  return Uint8Array.from(level[0]);
}

/**
 * Inclusion proof (RFC 9162 audit path) of leaf `index` in the tree over
 * `hashes`: the sibling digests from the leaf up to the root.
 *
 * @param {Uint8Array[]} hashes 32-byte leaf hashes
 * @param {number} index zero-based leaf index, `0 <= index < hashes.length`
 * @param {Interior} [interior=hashCombine]
 * @returns {Promise<Uint8Array[]>}
 * @throws {TypeError} if an element is not a 32-byte Uint8Array
 * @throws {RangeError} if `index` is not an integer in range
 */
export async function inclusionProof(hashes, index, interior = hashCombine) {
  checkLeaves(hashes, "inclusionProof");
  if (!Number.isSafeInteger(index) || index < 0 || index >= hashes.length) {
    throw new RangeError(
      `inclusionProof: index ${index} is not in [0, ${hashes.length})`,
    );
  }
  const proof = [];
  let level = hashes;
  let position = index;
  while (level.length > 1) {
    const sibling = position % 2 === 1 ? position - 1 : position + 1;
    // An odd last node has no sibling at this level; it is carried up.
    if (sibling < level.length) proof.push(Uint8Array.from(level[sibling]));
    level = await parentLevel(level, interior);
    position = Math.floor(position / 2);
  }
  return proof;
}

/**
 * Whether `proof` shows that `leaf` is leaf `index` of the tree of `size`
 * leaves with root `root` (RFC 9162 §2.1.3.2). Never throws: any bad input
 * (index out of range, negative or non-integer, a size that is not a
 * positive integer, elements that are not 32-byte Uint8Arrays, too many or
 * too few proof elements, an interior that throws) gives `false`.
 *
 * @param {Uint8Array} leaf 32-byte leaf hash
 * @param {number} index zero-based leaf index
 * @param {number} size number of leaves: the size stored beside the root
 * @param {Uint8Array[]} proof audit path, leaf to root
 * @param {Uint8Array} root 32-byte root
 * @param {Interior} [interior=hashCombine]
 * @returns {Promise<boolean>}
 */
export async function verifyInclusion(
  leaf,
  index,
  size,
  proof,
  root,
  interior = hashCombine,
) {
  try {
    if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size)) return false;
    if (index < 0 || index >= size) return false;
    if (!isDigest(leaf) || !isDigest(root) || !Array.isArray(proof)) return false;
    if (!proof.every(isDigest)) return false;

    // RFC 9162 §2.1.3.2; halving with Math.floor keeps sizes above 2^31 exact.
    let fn = index;
    let sn = size - 1;
    let r = leaf;
    for (const p of proof) {
      if (sn === 0) return false; // more elements than the path has
      if (fn % 2 === 1 || fn === sn) {
        r = await interior(p, r);
        if (fn % 2 === 0) {
          while (fn % 2 === 0 && fn !== 0) {
            fn = Math.floor(fn / 2);
            sn = Math.floor(sn / 2);
          }
        }
      } else {
        r = await interior(r, p);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    return sn === 0 && isDigest(r) && bytesEqual(r, root);
  } catch {
    return false;
  }
}

/**
 * Whether two byte arrays hold the same bytes.
 *
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @returns {boolean}
 */
function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
