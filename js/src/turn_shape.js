/**
 * What a turn an honest writer made looks like, as `arborist verify` and `import` hold a
 * home's turns and `verify --bundle` a bundle's (arborist/_forest/shape.py,
 * `shape_problem`): a session's root holds no question, answer, key, cited title or
 * label and has the mode ROOT; every other turn has a parent, a cache key's shape, a mode
 * an answer is given in and a question. A port held to the same vectors as the Python
 * (tests/vectors/turn_shape.json), so the page refuses a turn of a shape `import` refuses,
 * however consistently its hashes were made.
 *
 * @module turn_shape
 */

import { fromB64 } from "./bundle_chain.js";
import { toHex } from "./hashing.js";
import { NOT_A_TIME, isStoredTime } from "./turn_order.js";

/** The audit modes an answer is given in (arborist/_store/search.py, AUDIT_MODES). */
export const TURN_MODES = ["STRICT", "HYBRID", "VISUAL"];

const ROOT_AUDIT_MODE = "ROOT";
const CACHE_KEY = /^[0-9a-f]{64}$/;
// Python's str.isspace() characters, which its str.strip() takes off (JavaScript's trim()
// takes U+FEFF too and leaves U+001C-U+001F and U+0085).
const SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/**
 * Why a turn with these fields is none an honest writer makes (a phrase to follow
 * `turn BATES: `), or null. `key` in hex as a home stores it (a bundle's base64url
 * decoded), `titles` as stored: the JSON text of a list (`"[]"` for none).
 *
 * @param {{seq: number, parent: unknown, question: unknown, answer: unknown, key: unknown, mode: unknown, titles: unknown, created_label: unknown}} turn
 * @returns {string|null}
 */
export function shapeProblem({ seq, parent, question, answer, key, mode, titles, created_label: label }) {
  if (seq === 0 || parent === null) {
    const held = question === "" && answer === "" && key === "" && titles === "[]" && label === null;
    return first([
      [seq !== 0, "it is not its session's root (seq 0), yet it has no parent"],
      [parent !== null, "a session's root (seq 0) has no parent, yet it names one"],
      [!held, "a session's root holds no question, answer, cache key, cited title or label"],
      [mode !== ROOT_AUDIT_MODE, `a session's root has the audit mode ${ROOT_AUDIT_MODE}, and it has another`],
    ]);
  }
  const what = key === "" ? "empty" : "not a cache key (64 lowercase hex digits)";
  return first([
    [typeof key !== "string" || !CACHE_KEY.test(key), `its cache key is ${what}: no answer can vouch for it`],
    [!TURN_MODES.includes(mode), `its audit mode is none an answer is given in (${TURN_MODES.join(", ")})`],
    [typeof question !== "string" || SPACE.test(question), "its question is empty"],
  ]);
}

function first(checks) {
  const failed = checks.find(([fails]) => fails);
  return failed ? failed[1] : null;
}

// How a turn's cited titles are stored: Python's json.dumps(titles, ensure_ascii=False).
const titlesJson = (titles) => `[${titles.map((t) => JSON.stringify(t)).join(", ")}]`;

/**
 * A bundle's turn (its bates well formed) against the shape and the time form a home's
 * turn is held to: its problems, each a phrase to follow `turn BATES: `. Its key is
 * base64url here, hex in a home: one that is no base64url has no key's shape.
 *
 * @param {any} turn
 * @returns {string[]}
 */
export function bundleTurnProblems(turn) {
  let key = null;
  try {
    key = turn.cache_key === "" ? "" : toHex(fromB64(turn.cache_key));
  } catch {
    // no base64url: not a key's shape
  }
  const shape = shapeProblem({
    seq: Number(turn.bates.slice(-6)),
    parent: turn.parent_bates,
    question: turn.question,
    answer: turn.answer_text,
    key,
    mode: turn.audit_mode,
    titles: Array.isArray(turn.cited_titles) ? titlesJson(turn.cited_titles) : null,
    created_label: turn.created_label,
  });
  return [...(shape ? [shape] : []), ...(isStoredTime(turn.created_at) ? [] : [NOT_A_TIME])];
}
