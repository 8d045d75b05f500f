/**
 * The order of a session's turns, as `arborist verify` and `import` hold a home's and
 * `verify --bundle` a bundle's (arborist/_forest/shape.py, `order_problems`): no turn
 * older than its parent or than the turn numbered before it, no session numbered past a gap. A port held to the same
 * vectors as the Python (tests/vectors/turn_order.json), so the page refuses what
 * `import` refuses: a bundle hashed consistently whose turn was backdated, or numbered
 * 999999 to make its session "full", fails here as it fails there.
 *
 * @module turn_order
 */

const BATES = /^([0-9]{8}T[0-9]{6}Z-[0-9a-f]{6})-([0-9]{6})$/;
const STORED_TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/;

/** What a turn whose time is not in the stored form is named with (the form check's words). */
export const NOT_A_TIME = "its created_at is not a time YYYY-MM-DDTHH:MM:SS.ffffffZ";

const OLDER = "it is older than its parent (its created_at is before its parent's)";
const OLDER_THAN_BEFORE = "it is older than the turn before it in its session (its created_at is before that turn's)";

/**
 * Whether `text` is a time as arborist stores and hashes it: only such times compare in
 * time order as text, which the rule below does (ASCII, so JavaScript's `<` orders them
 * as Python's does).
 *
 * @param {unknown} text
 * @returns {boolean}
 */
export function isStoredTime(text) {
  return typeof text === "string" && STORED_TIME.test(text);
}

/**
 * The lowest seq a session holding `seqs` lacks below its highest, or null.
 *
 * @param {Set<number>} seqs
 * @returns {number|null}
 */
function firstGap(seqs) {
  for (let seq = 0; seq < seqs.size; seq += 1) if (!seqs.has(seq)) return seq;
  return null;
}

const pad = (seq) => String(seq).padStart(6, "0");

/**
 * Each turn that breaks its sessions' order, as `[bates, phrase]` in the turns' order:
 * `turns` are `[bates, parent_bates, created_at]` of whole sessions. A turn older than
 * its parent among them, or than the turn numbered before it in its session (times
 * compared only when both are text; the parent's rule named first), and in each session
 * whose seqs have a gap the first turn past it. A turn whose bates is not one is left
 * to the other checks.
 *
 * @param {[unknown, unknown, unknown][]} turns
 * @returns {[string, string][]}
 */
export function orderProblems(turns) {
  const held = turns.filter(([bates]) => typeof bates === "string" && BATES.test(bates));
  const times = new Map(held.map(([bates, , created]) => [bates, created]));
  const seqs = new Map();
  for (const [bates] of held) {
    const [, sid, seq] = BATES.exec(bates);
    if (!seqs.has(sid)) seqs.set(sid, new Set());
    seqs.get(sid).add(Number(seq));
  }
  const gaps = new Map();
  for (const [sid, numbered] of seqs) {
    const gap = firstGap(numbered);
    if (gap === null) continue;
    const past = [...numbered].filter((seq) => seq > gap);
    const named = past.length ? Math.min(...past) : Math.max(...numbered);
    gaps.set(`${sid}-${pad(named)}`, `it is numbered past a gap: its session holds no turn ${pad(gap)} (a session numbers its turns one after another)`);
  }
  const problems = [];
  for (const [bates, parent, created] of held) {
    const above = times.has(parent) ? times.get(parent) : undefined;
    const [, sid, seq] = BATES.exec(bates);
    const before = Number(seq) > 0 ? times.get(`${sid}-${pad(Number(seq) - 1)}`) : undefined;
    if (typeof created === "string" && typeof above === "string" && created < above) problems.push([bates, OLDER]);
    else if (typeof created === "string" && typeof before === "string" && created < before) problems.push([bates, OLDER_THAN_BEFORE]);
    if (gaps.has(bates)) problems.push([bates, gaps.get(bates)]);
  }
  return problems;
}
