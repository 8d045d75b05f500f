/**
 * Keyboard navigation of the tree (the WAI-ARIA tree pattern), pure.
 *
 * @module keyboard
 */

/**
 * Where a key moves the focus in a tree (WAI-ARIA tree pattern), and what
 * it does: Up/Down/Home/End move; Right opens a closed node or moves to the
 * first child; Left closes an open node or moves to the parent; Enter and
 * Space select. Returns null for keys the tree does not handle.
 *
 * @param {Array<{bates: string, parent: string|null, expandable: boolean,
 *   expanded: boolean}>} rows visible rows, in order
 * @param {string|null} focus bates of the focused row
 * @param {string} key `KeyboardEvent.key`
 * @returns {{focus: string|null, action: null|"expand"|"collapse"|"select"}|null}
 */
export function navigate(rows, focus, key) {
  const keys = ["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "Home", "End", "Enter", " "];
  if (!keys.includes(key)) return null;
  if (!rows.length) return { focus: null, action: null };
  const at = rows.findIndex((r) => r.bates === focus);
  if (at < 0) return { focus: rows[0].bates, action: null };
  const row = rows[at];
  const stay = (action = null) => ({ focus: row.bates, action });
  switch (key) {
    case "ArrowDown":
      return { focus: rows[Math.min(at + 1, rows.length - 1)].bates, action: null };
    case "ArrowUp":
      return { focus: rows[Math.max(at - 1, 0)].bates, action: null };
    case "Home":
      return { focus: rows[0].bates, action: null };
    case "End":
      return { focus: rows[rows.length - 1].bates, action: null };
    case "ArrowRight":
      if (row.expandable && !row.expanded) return stay("expand");
      if (row.expanded && rows[at + 1]?.parent === row.bates) {
        return { focus: rows[at + 1].bates, action: null };
      }
      return stay();
    case "ArrowLeft":
      if (row.expanded) return stay("collapse");
      if (row.parent && rows.some((r) => r.bates === row.parent)) {
        return { focus: row.parent, action: null };
      }
      return stay();
    default: // Enter, Space
      return stay("select");
  }
}
