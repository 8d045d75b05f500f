/**
 * Public surface of arborist's JS side: the hash primitives (docs/design.md
 * section 2) and Merkle proofs, so the widget can re-verify a node's proof
 * in the browser with WebCrypto. Re-exports only; no logic lives here.
 *
 * @module arborist-widget
 */

export {
  CACHE_KEY_DIMENSIONS,
  COMBINE_PREFIX,
  CanonicalJsonError,
  DIGEST_LENGTH,
  EVENT_HASH_FIELDS,
  LEAF_PREFIX,
  MAX_SAFE_JSON_INTEGER,
  NODE_HASH_FIELDS,
  cacheKey,
  canonicalJson,
  compareCodePoints,
  concatBytes,
  eventHash,
  fromHex,
  hashCombine,
  leafHash,
  nodeHash,
  normalizeQuestion,
  questionHash,
  sha256,
  sha256Hex,
  subtreeHash,
  toHex,
  utf8,
} from "./hashing.js";
export { inclusionProof, merkleRoot, verifyInclusion } from "./merkle.js";
