/**
 * The forest widget's front end (anywidget >= 0.9): a collapsible,
 * keyboard-navigable tree of one session and its grafts, a detail pane that
 * re-verifies every evidence proof in the browser, and actions (cd, fork,
 * label, falsify, search across sessions).
 *
 * Sync (docs/design.md section 6). Node data never lives in a trait: the view
 * holds `bates -> {hash, summary, children}` and asks the kernel with
 * `{id, kind, ...}` messages; the kernel answers `{id, ok, result|error}`.
 * A refresh asks for the roots, then walks down level by level sending the
 * hashes it holds; the kernel answers only for nodes whose subtree_hash
 * changed (and names an unchanged child by its bates alone), so one new
 * turn costs O(depth x fan-out) bytes. Refreshes run
 * when `revision`, `root_hash` or `graft_hashes` change (the kernel bumps
 * them after each ask) and when the poll timer sees another kernel's write.
 *
 * Untrusted text. Answers and documents come from models and files: they
 * are only ever written with `textContent` / text nodes, never parsed as
 * HTML (an answer's Markdown is read into a tree of texts by `markdown.js`; its links
 * go to http, https and mailto only); document URIs are shown, never linked.
 * {@link makeH} refuses `innerHTML` and event-handler attributes outright.
 *
 * Modules: `text.js` and `dom.js` (text-only building), `requests.js` (the
 * request layer), `store.js` (the sync walk), `keyboard.js`, `proofs.js`
 * (re-verification in the browser), all pure and tested in Node
 * (`js/test/widget.test.js`); `view.js` (its tree in `view_tree.js`, its detail pane
 * in `view_detail.js`, its actions in `view_actions.js`) and `detail.js` (the DOM),
 * exercised by the browser tests.
 *
 * @module widget
 */

import { ForestView } from "./view.js";

/**
 * anywidget entry point.
 *
 * @param {{model: any, el: HTMLElement}} context
 * @returns {() => void} cleanup
 */
function render({ model, el }) {
  // request_ms (the Python widget's trait): 0 keeps the view's default timeout.
  const timeoutMs = Number(model.get("request_ms")) || undefined;
  return new ForestView(model, el, { timeoutMs }).start();
}

export default { render };
