/**
 * Evidence proofs re-verified in the browser with the JS hash port: the view
 * never takes the kernel's word that an answer's evidence holds.
 *
 * @module proofs
 */

import { fromHex, leafHash, toHex, utf8 } from "./hashing.js";
import { verifyInclusion } from "./merkle.js";

/**
 * Re-verify one evidence item in the browser with the JS hash port:
 * `verifyInclusion(leafHash(utf8(text)), chunk_index, chunk_count, proof,
 * source_root)`, the size being the `chunk_count` stored beside the root.
 * Never throws.
 *
 * @param {{text: string|null, chunk_index: number, chunk_count: number,
 *   proof: string[], source_root: string, leaf?: string}} item
 * @returns {Promise<{status: "pass"|"fail"|"cold"|"error", text: string}>}
 */
export async function verifyEvidence(item) {
  if (typeof item?.text !== "string") {
    return { status: "cold", text: "not verifiable here (cold)" };
  }
  try {
    const leaf = await leafHash(utf8(item.text));
    const ok = await verifyInclusion(
      leaf,
      item.chunk_index,
      item.chunk_count,
      (item.proof ?? []).map((p) => fromHex(p)),
      fromHex(item.source_root),
    );
    if (ok) return { status: "pass", text: "re-verified in this browser: its bytes are the document's (whether it answers the question is the support badge)" };
    const leafOk = typeof item.leaf !== "string" || toHex(leaf) === item.leaf.toLowerCase();
    return {
      status: "fail",
      text: leafOk
        ? "proof FAILED: the path does not reach the document's source_root"
        : "proof FAILED: the text does not hash to its leaf",
    };
  } catch (error) {
    return { status: "error", text: `cannot verify here: ${error?.message ?? error}` };
  }
}

/**
 * The verdict over several items: fail if any failed (or could not be
 * checked), else cold if any was cold, else pass; none without evidence.
 *
 * @param {Array<{status: string}>} results
 * @returns {"pass"|"fail"|"cold"|"none"}
 */
export function proofVerdict(results) {
  if (!results.length) return "none";
  if (results.some((r) => r.status === "fail" || r.status === "error")) return "fail";
  if (results.some((r) => r.status === "cold")) return "cold";
  return "pass";
}
