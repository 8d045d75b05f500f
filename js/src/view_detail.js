/**
 * The forest view's detail pane: one turn's body fetched and shown (its parts are
 * detail.js's), its folds kept across a re-render, its proofs re-verified here with
 * WebCrypto, a value copied. Methods of {@link ForestView} (installed on its prototype
 * by view.js), so `this` is the view.
 *
 * @module view_detail
 */

import { append } from "./dom.js";
import { proofVerdict, verifyEvidence } from "./proofs.js";
import { LINK_CLOSED } from "./requests.js";
import { inert, shortSid } from "./text.js";
import { answerParts, detailHead, evidenceList, proofSection, relatedList } from "./detail.js";

/** The detail pane's methods of {@link ForestView}. */
export const detailMethods = {
  renderEmptyDetail() {
    this.detailEl.setAttribute("data-bates", "");
    this.detailEl.replaceChildren(
      this.h("p", { class: "arb-empty", text: "Select a turn to see its answer and proofs." }),
    );
  },

  /**
   * Once the link is gone, every control that would send to the kernel is disabled, its
   * title saying why; what reads the page alone (the tree, citations, copy, ×) goes on.
   */
  disableSending() {
    const why = this.requester.linkClosed ?? LINK_CLOSED;
    for (const el of this.rootEl.querySelectorAll?.("button.arb-button, input, select, textarea") ?? []) {
      if (el.classList?.contains("arb-dismiss")) continue;
      el.disabled = true;
      el.title = why;
    }
  },

  /**
   * @param {string} bates
   * @param {{reveal?: boolean}} [options]
   */
  async showDetail(bates, { reveal = true } = {}) {
    if (this.requester.linkClosed) {
      // Nothing can be fetched: the pane keeps what it shows, the status line says why, once.
      this.setStatus("error", this.requester.linkClosed);
      return;
    }
    const token = ++this.detailToken;
    this.detailEl.setAttribute("data-bates", bates);
    this.detailEl.setAttribute("data-loading", "true");
    let body;
    try {
      body = await this.store.body(bates);
    } catch (error) {
      if (token !== this.detailToken) return;
      this.detailEl.setAttribute("data-loading", "false");
      if (this.requester.linkClosed) {
        this.setStatus("error", this.requester.linkClosed); // the pane keeps what it showed
        return;
      }
      this.detailEl.replaceChildren(
        this.h("p", { class: "arb-error", attrs: { role: "alert" }, text: error.message }),
      );
      this.fail(error, "open");
      return;
    }
    if (token !== this.detailToken) return;
    let inTree = true;
    if (reveal) {
      try {
        inTree = await this.store.reveal(body.path);
        if (inTree && !this.store.rows().some((r) => r.bates === bates)) {
          for (const above of body.path) this.store.openRuns.add(above); // hidden in a line
        }
        this.renderTree();
        this.bringIntoView(bates);
      } catch (error) {
        this.fail(error, "reveal");
      }
      if (token !== this.detailToken) return;
    }
    this.renderDetail(body, token, inTree);
    if (this.requester.linkClosed) this.disableSending();
  },

  /**
   * @param {any} body
   * @param {number} token
   * @param {boolean} inTree
   */
  renderDetail(body, token, inTree) {
    this.shownDetail = { body, inTree };
    const h = this.h;
    const record = body.record;
    const evidence = record?.evidence ?? [];
    const detail = this.detailEl;
    detail.setAttribute("data-loading", "false");
    detail.setAttribute("data-bates", body.bates);
    detail.setAttribute("data-state", record?.state ?? (body.is_root ? "root" : "none"));
    detail.setAttribute("data-served", body.served ?? "");
    detail.setAttribute("data-proofs", evidence.length ? "pending" : "none");
    const copy = (text) => this.copy(text);
    const { answer, cited } = answerParts(h, body);
    const { list, checks } = evidenceList(h, body, copy, this.vocabulary);
    const related = body.related ?? [];
    const heading = (text) => h("div", { class: "arb-heading", attrs: { role: "heading", "aria-level": "4" }, text });
    const same = detail.getAttribute("data-rendered") === body.bates;
    // The DOM is the truth of what is open (a toggle event arrives a task later).
    this.openFolds = new Set(
      same
        ? [...(detail.querySelectorAll?.("details[data-fold]") ?? [])]
            .filter((fold) => fold.open)
            .map((fold) => fold.getAttribute("data-fold"))
        : [],
    );
    const typed = same ? this.typedValues(detail) : new Map();
    const focused = this.focusedPart(detail);
    this.holdFocus(detail);
    // replaceChildren would print null and arrays as text: append() skips and flattens them.
    detail.replaceChildren();
    detail.setAttribute("data-rendered", body.bates);
    append(this.doc, detail, [
      detailHead(h, body, this.vocabulary),
      inTree
        ? null
        : h("p", {
            class: "arb-note",
            text: `In session ${shortSid(body.sid)}, outside this tree: "Set as current", then ask, to graft onto it.`,
          }),
      body.is_root
        ? h("p", { class: "arb-note", text: "The session's root: ask here to start a new branch." })
        : [
            h("p", { class: "arb-question-full", attrs: { "aria-label": "Question" }, text: body.question }),
            answer,
            cited,
          ],
      this.renderActions(body),
      body.is_root
        ? null
        : [
            heading(`Evidence (${evidence.length})`),
            evidence.length ? list : h("p", { class: "arb-note", text: "No evidence." }),
            related.length ? [heading("Related sources"), relatedList(h, related)] : null,
            // Without a record, the falsify row already says why (once, with its reason).
          ],
      proofSection(h, body, copy, this.vocabulary),
    ]);
    this.keepFolds(detail);
    // Where a host gives the pane a height of its own (it has none here: the notebook
    // scrolls it), another turn opens at its heading; a re-render stays put.
    if (!same) detail.scrollTop = 0;
    for (const input of detail.querySelectorAll?.(".arb-actions .arb-input") ?? []) {
      const name = input.getAttribute("aria-label");
      if (typed.has(name)) input.value = typed.get(name);
    }
    this.verifyProofs(detail, checks, token);
    if (focused) this.refocus(detail, focused);
  },

  /**
   * What has the focus inside the detail, by what names it across a re-render: its
   * accessible name, or the fold whose summary it is. Null when the focus is elsewhere.
   *
   * @param {HTMLElement} detail
   * @returns {{label?: string, fold?: string}|null}
   */
  focusedPart(detail) {
    const active = this.doc.activeElement;
    if (!active || active === detail || !detail.contains?.(active)) return null;
    const label = active.getAttribute?.("aria-label");
    if (label) return { label };
    const fold = active.tagName === "SUMMARY" ? active.parentElement?.getAttribute?.("data-fold") : null;
    return fold ? { fold } : {};
  },

  /**
   * After a re-render, give the focus back to the part the reader was on (an action's box
   * or button, a fold's summary), never leaving it on the detail's container; when that
   * part is gone or disabled, to the turn's row.
   *
   * @param {HTMLElement} detail
   * @param {{label?: string, fold?: string}} part
   */
  refocus(detail, part) {
    const all = [...(detail.querySelectorAll?.("[aria-label], details[data-fold] > summary") ?? [])];
    const found = all.find((el) =>
      part.label
        ? el.getAttribute("aria-label") === part.label
        : part.fold && el.tagName === "SUMMARY" && el.parentElement?.getAttribute("data-fold") === part.fold,
    );
    if (found && !found.disabled && !found.hidden) found.focus?.({ preventScroll: true });
    else this.focusRow();
  },

  /**
   * What the reader has typed into the action boxes (by accessible name), so a
   * re-render of the same turn does not throw it away.
   *
   * @param {HTMLElement} detail
   * @returns {Map<string, string>}
   */
  typedValues(detail) {
    const typed = new Map();
    for (const input of detail.querySelectorAll?.(".arb-actions .arb-input") ?? []) {
      if (input.value !== input.defaultValue) typed.set(input.getAttribute("aria-label"), input.value);
    }
    return typed;
  },

  /**
   * Re-open the folds the reader had open before a re-render of the same
   * turn (a refresh, a label, a hit count).
   *
   * @param {HTMLElement} detail
   */
  keepFolds(detail) {
    for (const fold of detail.querySelectorAll?.("details[data-fold]") ?? []) {
      const key = fold.getAttribute("data-fold");
      if (this.openFolds.has(key)) fold.open = true;
    }
  },

  /**
   * Re-verify every proof here, with WebCrypto; never trust the kernel's word.
   *
   * @param {HTMLElement} detail
   * @param {Array<[HTMLElement, HTMLElement, any, string]>} checks
   * @param {number} token
   */
  verifyProofs(detail, checks, token) {
    Promise.all(
      checks.map(async ([li, status, item, words]) => {
        const result = await verifyEvidence(item);
        if (token === this.detailToken) {
          const pass = result.status === "pass";
          li.setAttribute("data-proof", result.status);
          status.setAttribute("data-proof", result.status);
          // What was checked for this row, in the kernel's words (the %%ask output's); the
          // browser's own verdict where the kernel named no check; a failure as it is.
          status.textContent = inert(pass ? `✓ ${words || result.text}` : result.text);
          status.setAttribute("title", inert(pass && words ? `${words}: ${result.text}` : result.text));
        }
        return result;
      }),
    ).then((results) => {
      if (token === this.detailToken && results.length) {
        detail.setAttribute("data-proofs", proofVerdict(results));
      }
    });
  },

  /**
   * Copy a value to the clipboard, saying so (or why not) in the status line.
   *
   * @param {string} text
   */
  async copy(text) {
    try {
      await globalThis.navigator.clipboard.writeText(text);
      this.notify("ok", "copied");
    } catch {
      this.notify("error", "copy: the browser refused the clipboard (select the text instead)");
    }
  },
};
