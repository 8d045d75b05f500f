/**
 * The forest view's tree: its rows (a long run of turns folded, a big tree kept to a
 * window of rows), focus and keyboard moves, expanding a node, selecting one. Methods
 * of {@link ForestView} (installed on its prototype by view.js), so `this` is the view;
 * every piece of model text goes through `textContent` ({@link makeH}).
 *
 * @module view_tree
 */

import { append } from "./dom.js";
import { navigate } from "./keyboard.js";
import { shortBates } from "./text.js";
import { auditBadge, stateBadge, supportBadge } from "./detail.js";

/** A row's height in pixels (the stylesheet's `--arb-row-height`): virtual scrolling
 * places rows by it. */
export const ROW_HEIGHT_PX = 24;

/** A tree with more rows than this keeps only a window of them in the DOM. */
export const VIRTUAL_ROWS = 200;

/** Rows rendered above and below the visible ones in a virtualized tree. */
export const VIRTUAL_MARGIN = 30;

/** The tree's methods of {@link ForestView}. */
export const treeMethods = {
  renderTree() {
    if (this.destroyed) return;
    const h = this.h;
    const rows = this.store.rows();
    this.rows = rows;
    const hadFocus = this.rootEl.contains?.(this.doc.activeElement) &&
      this.treeEl.contains?.(this.doc.activeElement);
    const focus = rows.some((r) => r.bates === this.focusBates)
      ? this.focusBates
      : rows.some((r) => r.bates === this.selected)
        ? this.selected
        : (rows[0]?.bates ?? null);
    this.focusBates = focus;
    this.rowEls = new Map();
    const current = this.model.get("current_bates") || this.store.currentBates;
    const [start, end] = this.window(rows.length);
    const elements = rows.slice(start, end).map((r) => {
      const el = r.run ? this.runRow(r) : this.treeRow(r, current, focus);
      this.rowEls.set(r.bates, el);
      return el;
    });
    if (!rows.length) {
      elements.push(
        h("p", { class: "arb-empty", text: "No turns yet: ask with %%ask, or fork from a node." }),
      );
    }
    const spacer = (count) => {
      if (!count) return null;
      const el = h("div", { class: "arb-spacer", attrs: { "aria-hidden": "true" } });
      el.style?.setProperty?.("--arb-rows", String(count));
      return el;
    };
    this.holdFocus(this.treeEl);
    this.treeEl.replaceChildren();
    append(this.doc, this.treeEl, [spacer(start), elements, spacer(rows.length - end)]);
    this.treeEl.setAttribute("data-rows", String(rows.length));
    this.treeEl.setAttribute("data-rendered-rows", String(end - start));
    this.shown = [start, end];
    if (hadFocus && focus) this.rowEls.get(focus)?.focus?.();
  },

  /**
   * Before `container`'s children are replaced: if one of them has the focus, give it to
   * `container` itself. Removing a focused element makes the browser blur it in the middle
   * of the removal, and a host's focus handlers must not run inside our re-render.
   *
   * @param {HTMLElement} container
   */
  holdFocus(container) {
    const active = this.doc.activeElement;
    if (!active || active === container || !container.contains?.(active)) return;
    container.setAttribute("tabindex", container.getAttribute("tabindex") ?? "-1");
    container.focus?.({ preventScroll: true });
  },

  /**
   * The rows to put in the DOM: all of a small tree; of a large one, those in
   * view and a margin around them (the rest are spacers of the same height),
   * so a 10,000-turn session costs a screenful of elements.
   *
   * @param {number} count
   * @returns {[number, number]}
   */
  window(count) {
    if (count <= VIRTUAL_ROWS) return [0, count];
    const top = Math.floor((this.treeEl.scrollTop || 0) / ROW_HEIGHT_PX);
    const height = Math.ceil((this.treeEl.clientHeight || 600) / ROW_HEIGHT_PX);
    const start = Math.max(0, top - VIRTUAL_MARGIN);
    return [start, Math.min(count, top + height + VIRTUAL_MARGIN)];
  },

  /** On scroll, re-render once the window of a virtualized tree has moved. */
  onScroll() {
    if (this.scrollPending || !this.rows || this.rows.length <= VIRTUAL_ROWS) return;
    this.scrollPending = true;
    const later = globalThis.requestAnimationFrame ?? ((fn) => setTimeout(fn, 16));
    later(() => {
      this.scrollPending = false;
      const [start, end] = this.window(this.rows.length);
      const [shownStart, shownEnd] = this.shown ?? [0, 0];
      const top = Math.floor((this.treeEl.scrollTop || 0) / ROW_HEIGHT_PX);
      if (top < shownStart || top + 1 > shownEnd - VIRTUAL_MARGIN / 2 || start !== shownStart && end !== shownEnd) {
        this.renderTree();
      }
    });
  },

  /**
   * Scroll a virtualized tree so that row `bates` is in the DOM and in view.
   *
   * @param {string} bates
   */
  bringIntoView(bates) {
    const index = (this.rows ?? []).findIndex((r) => r.bates === bates);
    if (index < 0) return;
    const [start, end] = this.shown ?? [0, 0];
    if (index < start || index >= end) {
      this.treeEl.scrollTop = Math.max(0, (index - 3) * ROW_HEIGHT_PX);
      this.renderTree();
    }
    this.rowEls.get(bates)?.scrollIntoView?.({ block: "nearest" });
  },

  /**
   * The row of a collapsed line of turns: how many it hides, opened on click.
   *
   * @param {any} r
   * @returns {HTMLElement}
   */
  runRow(r) {
    const el = this.h(
      "div",
      {
        class: "arb-row arb-run-row",
        attrs: {
          role: "treeitem",
          "aria-level": r.level,
          "aria-expanded": "false",
          "aria-selected": "false",
          tabindex: r.bates === this.focusBates ? "0" : "-1",
        },
        dataset: { bates: r.bates, run: r.run },
        on: { click: () => this.toggle(r.bates, false) },
      },
      this.h("span", { class: "arb-toggle", attrs: { "aria-hidden": "true" }, text: "⋮" }),
      this.h("span", {
        class: "arb-run",
        title: "a line of turns, each the only follow-up of the one above: click to show them all",
        text: `${r.run} more turns in this line`,
      }),
    );
    el.style?.setProperty?.("--arb-indent", String(r.indent));
    return el;
  },

  /**
   * One turn's row: the question first, then its marks (label, state, audit
   * mode, graft, short name, current turn).
   *
   * @param {any} r
   * @param {string} current
   * @param {string|null} focus
   * @returns {HTMLElement}
   */
  treeRow(r, current, focus) {
    const h = this.h;
    const s = r.summary ?? {};
    const foreign = Boolean(s.foreign);
    // the row's badge: the kernel names it where it is not the mode itself (a STRICT answer
    // that quotes nothing it cites), and says it in its own words
    const badge = auditBadge(this.vocabulary, s.audit ?? s.audit_mode);
    const toggle = h("span", {
      class: "arb-toggle",
      attrs: { "aria-hidden": "true" },
      text: r.expandable ? (r.expanded ? "▾" : "▸") : "·",
      on: {
        click: (event) => {
          event.stopPropagation();
          this.toggle(r.bates, r.expanded);
        },
      },
    });
    const el = h(
      "div",
      {
        class: `arb-row${r.bates === current ? " arb-is-current" : ""}`,
        attrs: {
          role: "treeitem",
          "aria-level": r.level,
          "aria-setsize": r.setsize,
          "aria-posinset": r.posinset,
          "aria-expanded": r.expandable ? String(r.expanded) : null,
          "aria-selected": String(r.bates === this.selected),
          tabindex: r.bates === focus ? "0" : "-1",
        },
        dataset: {
          bates: r.bates,
          sid: s.sid,
          seq: s.seq,
          auditMode: s.audit_mode,
          foreign: String(foreign),
          current: String(r.bates === current),
          label: s.label ?? undefined,
          graftOf: r.graftOf ?? undefined,
          cacheKey: s.cache_key,
          state: s.state ?? undefined,
        },
        on: {
          click: () => {
            this.focusBates = r.bates;
            this.select(r.bates);
          },
        },
      },
      toggle,
      r.follows
        ? h("span", { class: "arb-follows", title: "the only follow-up of the turn above", text: "↳" })
        : null,
      h("span", { class: "arb-question", title: s.question ?? "", text: s.question ?? "…" }),
      h(
        "span",
        { class: "arb-marks" },
        s.label ? h("span", { class: "arb-label", title: `label: ${s.label}`, text: s.label }) : null,
        stateBadge(h, this.vocabulary, s),
        s.audit_mode
          ? h("span", {
              class: "arb-badge arb-audit",
              title: badge.title,
              dataset: { auditMode: s.audit_mode },
              text: badge.mark,
            })
          : null,
        supportBadge(h, s.support, true, this.vocabulary),
        r.graftOf ? h("span", { class: "arb-graft", title: `grafted under ${r.graftOf}`, text: "graft" }) : null,
        h("span", {
          class: "arb-name",
          title: foreign ? `${r.bates} (session ${s.sid})` : r.bates,
          text: shortBates(r.bates, foreign),
        }),
        r.bates === current
          ? h("span", { class: "arb-current", title: "current turn: the next %%ask goes under it", text: "●" })
          : null,
      ),
    );
    el.style?.setProperty?.("--arb-indent", String(r.indent ?? r.level - 1));
    return el;
  },

  /**
   * @param {string} bates
   * @param {boolean} expanded
   */
  async toggle(bates, expanded) {
    try {
      if (expanded) this.store.collapse(bates);
      else await this.store.expand(bates);
      this.renderTree();
    } catch (error) {
      this.fail(error, "expand");
    }
  },

  /** @param {KeyboardEvent} event */
  onKey(event) {
    const from = event.target?.getAttribute?.("data-bates") || this.focusBates;
    const move = navigate(this.rows ?? [], from, event.key);
    if (!move) return;
    event.preventDefault();
    event.stopPropagation(); // the notebook must not act on a key the tree used
    this.focusBates = move.focus;
    const row = (this.rows ?? []).find((r) => r.bates === move.focus);
    if (move.action === "expand" && row) {
      this.toggle(row.bates, false).then(() => this.rowEls.get(move.focus)?.focus?.());
      return;
    }
    if (move.action === "collapse" && row) {
      this.store.collapse(row.bates);
    }
    if (move.action === "select" && move.focus?.startsWith("run:")) {
      this.toggle(move.focus, false).then(() => this.rowEls.get(move.focus)?.focus?.());
      return;
    }
    if (move.action === "select" && move.focus) {
      this.select(move.focus, { reveal: false });
    }
    this.renderTree();
    this.bringIntoView(move.focus);
    this.rowEls.get(move.focus)?.focus?.();
  },

  /**
   * Select a node: mark it, tell the kernel (trait), open its detail and
   * reveal it in the tree.
   *
   * @param {string} bates
   * @param {{reveal?: boolean, save?: boolean}} [options]
   */
  async select(bates, { reveal = true, save = true } = {}) {
    this.selected = bates;
    this.focusBates = bates;
    if (save && this.model.get("selected_bates") !== bates) {
      this.model.set("selected_bates", bates);
      this.model.save_changes();
    }
    this.renderTree();
    await this.showDetail(bates, { reveal });
  },
};
