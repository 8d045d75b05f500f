/**
 * Hash primitives of arborist, ported from `arborist/_proofs/hashing.py`,
 * `arborist/_proofs/audit.py`, the forest's node/subtree hashes and
 * `arborist/_proofs/keys.py`. docs/design.md section 2 is the contract;
 * `tests/vectors/hashing.json` pins every rule below byte for byte.
 *
 * Everything here is pure and runs unchanged in browsers and Node >= 20:
 * digests come from WebCrypto (`globalThis.crypto.subtle`), so every
 * function that hashes returns a Promise. Raw digests are `Uint8Array`s of
 * 32 bytes; functions that return what databases and JSON hold
 * (`sha256Hex`, `nodeHash`, `subtreeHash`, `eventHash`, `questionHash`,
 * `cacheKey`) return lowercase hex.
 *
 * Note for the widget: browsers expose `crypto.subtle` only in secure
 * contexts (https, or http on localhost). Elsewhere `sha256` rejects with a
 * clear error rather than hashing differently.
 *
 * @module hashing
 */

/** Byte that prefixes a leaf before hashing: `leafHash(b) = sha256(0x00 || b)`. */
export const LEAF_PREFIX = 0x00;

/** Byte that prefixes an interior node: `hashCombine(l, r) = sha256(0x03 || l || r)`. */
export const COMBINE_PREFIX = 0x03;

/** Length in bytes of a SHA-256 digest. */
export const DIGEST_LENGTH = 32;

/** Largest integer canonical JSON accepts in absolute value: 2^53 - 1. */
export const MAX_SAFE_JSON_INTEGER = Number.MAX_SAFE_INTEGER;

/** The fields `nodeHash` commits to, in docs/design.md order. */
export const NODE_HASH_FIELDS = Object.freeze([
  "parent_node_hash",
  "bates",
  "question",
  "cache_key",
  "audit_mode",
  "created_at",
  "label",
]);

/** The fields of an audit event that `eventHash` commits to. */
export const EVENT_HASH_FIELDS = Object.freeze([
  "event_type",
  "sid",
  "bates",
  "body",
  "created_at",
]);

/**
 * The 8 dimensions of a cache key, by the names they are hashed under:
 * `source_root` holds the evidence root (docs/design.md section 3).
 */
export const CACHE_KEY_DIMENSIONS = Object.freeze([
  "source_root",
  "question_hash",
  "model_profile_hash",
  "conversation_hash",
  "governance_policy_hash",
  "schema_version",
  "canonicalization_version",
  "chunking_version",
]);

/**
 * Raised by {@link canonicalJson} for a value outside the subset on which
 * Python, JS and RFC 8785 agree byte for byte.
 */
export class CanonicalJsonError extends Error {
  /** @param {string} message what was refused, and where */
  constructor(message) {
    super(message);
    this.name = "CanonicalJsonError";
  }
}

// ---------------------------------------------------------------- text ----

const utf8Encoder = new TextEncoder();

/**
 * Index of the first lone (unpaired) surrogate in `text`, or -1 if `text`
 * is well-formed UTF-16. Written out instead of `String#isWellFormed` so it
 * runs on older browsers too.
 *
 * @param {string} text
 * @returns {number}
 */
function loneSurrogateIndex(text) {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair
        continue;
      }
    }
    return i;
  }
  return -1;
}

/**
 * UTF-8 bytes of `text`. Refuses lone surrogates (as Python's
 * `str.encode("utf-8")` does) instead of silently writing U+FFFD.
 *
 * @param {string} text
 * @returns {Uint8Array}
 * @throws {TypeError} if `text` is not a string
 * @throws {RangeError} if `text` holds a lone surrogate
 */
export function utf8(text) {
  if (typeof text !== "string") {
    throw new TypeError(`utf8: expected a string, got ${describe(text)}`);
  }
  const at = loneSurrogateIndex(text);
  if (at !== -1) {
    throw new RangeError(`utf8: lone surrogate at index ${at}`);
  }
  return utf8Encoder.encode(text);
}

/**
 * Compare two strings by Unicode code point, as Python compares `str`
 * (and so as `json.dumps(sort_keys=True)` orders keys). JS's default
 * comparison uses UTF-16 code units, which puts U+10000.. (surrogate
 * pairs, 0xD800..) before U+E000..U+FFFF; this corrects that.
 *
 * @param {string} a
 * @param {string} b
 * @returns {number} negative, zero or positive
 */
export function compareCodePoints(a, b) {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Move surrogates (0xD800..0xDFFF) above 0xE000..0xFFFF. In well-formed
    // strings the first differing unit decides the code point order after
    // this fix-up.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

// ------------------------------------------------------ canonical JSON ----

// Python's json encoder (ensure_ascii=False) escapes exactly these.
const SHORT_ESCAPES = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/g;

/**
 * JSON string literal of `text`, byte for byte as Python's
 * `json.dumps(text, ensure_ascii=False)`: `\" \\ \n \r \t \b \f`, other
 * characters below U+0020 as `\u00xx` (lowercase hex); everything else,
 * including DEL, U+2028 and U+2029, is written as is.
 *
 * @param {string} text
 * @param {string} where path of the value, for error messages
 * @returns {string}
 */
function quoteString(text, where) {
  const at = loneSurrogateIndex(text);
  if (at !== -1) {
    throw new CanonicalJsonError(
      `canonical JSON refuses a lone surrogate at ${where} (string index ${at})`,
    );
  }
  const body = text.replace(
    NEEDS_ESCAPE,
    (ch) =>
      SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `"${body}"`;
}

/**
 * Whether `value` is a plain object: made by `{...}`, `JSON.parse` or
 * `Object.create(null)` (not a Map, Date, class instance, boxed value...).
 *
 * @param {object} value
 * @returns {boolean}
 */
function isPlainObject(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Short description of a value's type for error messages.
 *
 * @param {unknown} value
 * @returns {string}
 */
function describe(value) {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const name = Object.getPrototypeOf(value)?.constructor?.name;
  return name ? `a ${name}` : "an object";
}

/**
 * Canonical JSON bytes of `value`: keys sorted by Unicode code point,
 * separators `,` and `:`, UTF-8 with non-ASCII unescaped — byte for byte
 * what Python's
 * `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
 * writes, on the subset where Python, JS and RFC 8785 agree.
 *
 * Accepted: `null`, booleans, safe integers (|n| <= 2^53 - 1; `-0` is
 * written `0`), well-formed strings, arrays and plain objects of those.
 * Refused with {@link CanonicalJsonError}: non-integer numbers, NaN,
 * Infinity, integers beyond 2^53 - 1, lone surrogates (in keys or values),
 * `undefined` (also as an object value or array hole), functions, symbols,
 * bigints, symbol keys, cycles, and every non-plain object (Map, Set, Date,
 * typed arrays, class instances, boxed primitives...).
 *
 * @param {unknown} value
 * @returns {Uint8Array}
 * @throws {CanonicalJsonError}
 */
export function canonicalJson(value) {
  /** @type {Set<object>} containers on the current path, to refuse cycles */
  const open = new Set();

  /**
   * @param {unknown} node
   * @param {string} where
   * @returns {string}
   */
  function write(node, where) {
    if (node === null) return "null";
    switch (typeof node) {
      case "boolean":
        return node ? "true" : "false";
      case "string":
        return quoteString(node, where);
      case "number":
        if (!Number.isSafeInteger(node)) {
          throw new CanonicalJsonError(
            `canonical JSON refuses the number ${node} at ${where}: ` +
              `only integers within ±(2^53 - 1) are allowed`,
          );
        }
        return String(node === 0 ? 0 : node); // -0 is written 0
      case "object":
        break;
      default:
        throw new CanonicalJsonError(
          `canonical JSON refuses ${describe(node)} at ${where}`,
        );
    }
    if (open.has(node)) {
      throw new CanonicalJsonError(`canonical JSON refuses a cycle at ${where}`);
    }
    if (Array.isArray(node)) {
      open.add(node);
      const parts = [];
      for (let i = 0; i < node.length; i++) {
        parts.push(write(node[i], `${where}[${i}]`));
      }
      open.delete(node);
      return `[${parts.join(",")}]`;
    }
    if (!isPlainObject(node)) {
      throw new CanonicalJsonError(
        `canonical JSON refuses ${describe(node)} at ${where}: ` +
          `only null, booleans, integers, strings, arrays and plain objects`,
      );
    }
    if (Object.getOwnPropertySymbols(node).length > 0) {
      throw new CanonicalJsonError(
        `canonical JSON refuses symbol keys at ${where}`,
      );
    }
    open.add(node);
    const keys = Object.keys(node);
    for (const key of keys) {
      const at = loneSurrogateIndex(key);
      if (at !== -1) {
        throw new CanonicalJsonError(
          `canonical JSON refuses a lone surrogate in a key at ${where} (key index ${at})`,
        );
      }
    }
    keys.sort(compareCodePoints);
    const parts = keys.map(
      (key) =>
        `${quoteString(key, where)}:${write(node[key], `${where}[${JSON.stringify(key)}]`)}`,
    );
    open.delete(node);
    return `{${parts.join(",")}}`;
  }

  // Every string was checked for lone surrogates, so encoding is exact.
  return utf8Encoder.encode(write(value, "$"));
}

// ----------------------------------------------------------------- hex ----

const HEX_DIGITS = "0123456789abcdef";
const HEX_PATTERN = /^[0-9a-fA-F]*$/;

/**
 * Lowercase hex of `bytes`.
 *
 * @param {Uint8Array} bytes
 * @returns {string}
 * @throws {TypeError} if `bytes` is not a Uint8Array
 */
export function toHex(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`toHex: expected a Uint8Array, got ${describe(bytes)}`);
  }
  let out = "";
  for (const byte of bytes) {
    out += HEX_DIGITS[byte >> 4] + HEX_DIGITS[byte & 0x0f];
  }
  return out;
}

/**
 * Bytes of a hex string. Strict: even length, only `0-9a-fA-F` (no `0x`,
 * no whitespace).
 *
 * @param {string} hex
 * @returns {Uint8Array}
 * @throws {TypeError} if `hex` is not a string
 * @throws {RangeError} if `hex` has odd length or a non-hex character
 */
export function fromHex(hex) {
  if (typeof hex !== "string") {
    throw new TypeError(`fromHex: expected a string, got ${describe(hex)}`);
  }
  if (hex.length % 2 !== 0) {
    throw new RangeError(`fromHex: odd length ${hex.length}`);
  }
  if (!HEX_PATTERN.test(hex)) {
    throw new RangeError("fromHex: not a hex string");
  }
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

/**
 * Bytes of a hex digest, checked to be exactly 32 bytes.
 *
 * @param {string} hex
 * @param {string} name what the digest is, for error messages
 * @returns {Uint8Array}
 */
function digestFromHex(hex, name) {
  const bytes = fromHex(hex);
  if (bytes.length !== DIGEST_LENGTH) {
    throw new RangeError(
      `${name}: expected ${DIGEST_LENGTH} bytes (64 hex digits), got ${bytes.length}`,
    );
  }
  return bytes;
}

/**
 * Concatenation of byte arrays.
 *
 * @param {...Uint8Array} parts
 * @returns {Uint8Array}
 */
export function concatBytes(...parts) {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

// ------------------------------------------------------------- digests ----

/**
 * Raw SHA-256 digest of `bytes`, from WebCrypto.
 *
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>} 32 bytes
 * @throws {TypeError} if `bytes` is not a Uint8Array
 * @throws {Error} if WebCrypto is unavailable (a browser page served over
 *   plain http from another host is not a secure context)
 */
export async function sha256(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`sha256: expected a Uint8Array, got ${describe(bytes)}`);
  }
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error(
      "sha256: WebCrypto (crypto.subtle) is unavailable; browsers provide it " +
        "only in secure contexts (https, or http on localhost)",
    );
  }
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

/**
 * Lowercase hex SHA-256 digest of `bytes`.
 *
 * @param {Uint8Array} bytes
 * @returns {Promise<string>}
 */
export async function sha256Hex(bytes) {
  return toHex(await sha256(bytes));
}

/**
 * Merkle leaf hash: `sha256(0x00 || bytes)`.
 *
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>} 32 bytes
 */
export async function leafHash(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`leafHash: expected a Uint8Array, got ${describe(bytes)}`);
  }
  return sha256(concatBytes(Uint8Array.of(LEAF_PREFIX), bytes));
}

/**
 * Merkle interior node of arborist: `sha256(0x03 || left || right)` over
 * two raw 32-byte digests.
 *
 * @param {Uint8Array} left 32 bytes
 * @param {Uint8Array} right 32 bytes
 * @returns {Promise<Uint8Array>} 32 bytes
 * @throws {TypeError} if either side is not a 32-byte Uint8Array
 */
export async function hashCombine(left, right) {
  for (const [name, side] of [["left", left], ["right", right]]) {
    if (!(side instanceof Uint8Array) || side.length !== DIGEST_LENGTH) {
      throw new TypeError(
        `hashCombine: ${name} must be a ${DIGEST_LENGTH}-byte Uint8Array`,
      );
    }
  }
  return sha256(concatBytes(Uint8Array.of(COMBINE_PREFIX), left, right));
}

// ----------------------------------------------------- domain hashes ----

/**
 * Object holding exactly `names`, taken from `source`. A missing name
 * stays `undefined` and so is refused by canonicalJson; other properties
 * of `source` are ignored (a database row may carry more columns).
 *
 * @param {Record<string, unknown>} source
 * @param {readonly string[]} names
 * @param {string} what for error messages
 * @returns {Record<string, unknown>}
 */
function pick(source, names, what) {
  if (source === null || typeof source !== "object") {
    throw new TypeError(`${what}: expected an object, got ${describe(source)}`);
  }
  const missing = names.filter((name) => !(name in source));
  if (missing.length > 0) {
    throw new TypeError(`${what}: missing ${missing.join(", ")}`);
  }
  const out = {};
  for (const name of names) out[name] = source[name];
  return out;
}

/**
 * A forest node's hash: `sha256_hex(canonical_json({parent_node_hash,
 * bates, question, cache_key, audit_mode, created_at, label}))`. Values are
 * hex/strings or null; `label` is the one given at creation.
 *
 * @param {{parent_node_hash: string|null, bates: string, question: string,
 *   cache_key: string, audit_mode: string, created_at: string,
 *   label: string|null}} fields extra properties are ignored
 * @returns {Promise<string>} lowercase hex
 */
export async function nodeHash(fields) {
  return sha256Hex(canonicalJson(pick(fields, NODE_HASH_FIELDS, "nodeHash")));
}

/**
 * A forest node's subtree hash: `acc = leafHash(raw 32 bytes of the node
 * hash)`, then for each child's subtree hash in ascending hex order
 * `acc = hashCombine(acc, raw 32 bytes of child)`. A node without children
 * has its leaf hash. The order children are given in does not matter.
 *
 * @param {string} nodeHashHex the node's own hash (64 hex digits)
 * @param {readonly string[]} childrenSubtreeHex children's subtree hashes
 * @returns {Promise<string>} lowercase hex
 */
export async function subtreeHash(nodeHashHex, childrenSubtreeHex = []) {
  if (!Array.isArray(childrenSubtreeHex)) {
    throw new TypeError("subtreeHash: children must be an array of hex strings");
  }
  const children = childrenSubtreeHex
    .map((hex) => digestFromHex(hex, "subtreeHash child"))
    .map((bytes) => ({ bytes, hex: toHex(bytes) })) // lowercase, so hex order is byte order
    .sort((a, b) => (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0));
  let acc = await leafHash(digestFromHex(nodeHashHex, "subtreeHash node hash"));
  for (const child of children) {
    acc = await hashCombine(acc, child.bytes);
  }
  return toHex(acc);
}

/**
 * An audit event's hash: `sha256_hex(prev_bytes || canonical_json({event_type,
 * sid, bates, body, created_at}))`, where `prev_bytes` is the raw 32 bytes
 * of the previous event's hash, or empty for the first event.
 *
 * @param {string|null} prevEventHashHex previous event's hash, or null
 * @param {{event_type: string, sid: string, bates: string|null,
 *   body: unknown, created_at: string}} event extra properties are ignored
 * @returns {Promise<string>} lowercase hex
 */
export async function eventHash(prevEventHashHex, event) {
  const prev =
    prevEventHashHex === null || prevEventHashHex === undefined
      ? new Uint8Array(0)
      : digestFromHex(prevEventHashHex, "eventHash previous hash");
  const body = canonicalJson(pick(event, EVENT_HASH_FIELDS, "eventHash"));
  return sha256Hex(concatBytes(prev, body));
}

// Exactly the characters Python's str.isspace() accepts, which is what
// str.split() with no argument splits on. JS's \s differs: it lacks
// U+001C..U+001F and U+0085 and adds U+FEFF.
const PYTHON_WHITESPACE_RUN =
  /[\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * A question as it is hashed: NFC, whitespace runs collapsed to one space,
 * trimmed — Python's `" ".join(unicodedata.normalize("NFC", q).split())`.
 *
 * @param {string} question
 * @returns {string}
 */
export function normalizeQuestion(question) {
  if (typeof question !== "string") {
    throw new TypeError(
      `normalizeQuestion: expected a string, got ${describe(question)}`,
    );
  }
  return question
    .normalize("NFC")
    .split(PYTHON_WHITESPACE_RUN)
    .filter((word) => word !== "")
    .join(" ");
}

/**
 * A question's hash: `sha256_hex(utf8(normalizeQuestion(question)))`.
 *
 * @param {string} question
 * @returns {Promise<string>} lowercase hex
 */
export async function questionHash(question) {
  return sha256Hex(utf8(normalizeQuestion(question)));
}

/**
 * A cache key: `sha256_hex(canonical_json({the 8 dimensions by name}))`.
 *
 * @param {{source_root: string, question_hash: string,
 *   model_profile_hash: string, conversation_hash: string,
 *   governance_policy_hash: string, schema_version: string,
 *   canonicalization_version: string, chunking_version: string}} dimensions
 *   extra properties are ignored
 * @returns {Promise<string>} lowercase hex
 */
export async function cacheKey(dimensions) {
  return sha256Hex(
    canonicalJson(pick(dimensions, CACHE_KEY_DIMENSIONS, "cacheKey")),
  );
}
