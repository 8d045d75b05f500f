/**
 * The forest view: the tree of one session and its grafts, the detail pane,
 * and the actions (cd, fork, label, falsify, search across sessions). Built
 * from {@link makeH}, so every piece of model or document text goes through
 * `textContent`. Exercised by the browser tests and a Node smoke test.
 *
 * @module view
 */

import { append, makeH, onEnter } from "./dom.js";
import { navigate } from "./keyboard.js";
import { proofVerdict, verifyEvidence } from "./proofs.js";
import { LINK_CLOSED, REQUEST_TIMEOUT_MS, Requester } from "./requests.js";
import { ForestStore } from "./store.js";
import { markedParts, shortBates, shortSid } from "./text.js";
import {
  AUDIT_MODES,
  answerParts,
  detailHead,
  evidenceList,
  proofSection,
  relatedList,
  supportBadge,
} from "./detail.js";

/** States a record can be falsified to (FALSIFIED_STATES in arborist/store/cache.py). */
export const FALSIFY_STATES = Object.freeze(["failed", "stale", "quarantined"]);

/** A row's height in pixels (the stylesheet's `--arb-row-height`): virtual scrolling
 * places rows by it. */
export const ROW_HEIGHT_PX = 24;

/** A tree with more rows than this keeps only a window of them in the DOM. */
export const VIRTUAL_ROWS = 200;

/** Rows rendered above and below the visible ones in a virtualized tree. */
export const VIRTUAL_MARGIN = 30;

/**
 * One rendered view of a model. Built from {@link makeH}, so every piece
 * of model or document text goes through `textContent`.
 */
export class ForestView {
  /**
   * @param {any} model anywidget model
   * @param {HTMLElement} el
   * @param {{timeoutMs?: number}} [options]
   */
  constructor(model, el, { timeoutMs = REQUEST_TIMEOUT_MS } = {}) {
    this.model = model;
    this.el = el;
    this.doc = el.ownerDocument ?? globalThis.document;
    this.h = makeH(this.doc);
    this.requester = new Requester(model, { timeoutMs });
    this.requester.diagnose = () => this.diagnose();
    this.requester.onLinkClosed = () => this.linkLost();
    this.store = new ForestStore((kind, args) => this.requester.request(kind, args));
    this.selected = null;
    this.focusBates = null;
    this.detailToken = 0;
    this.rowEls = new Map();
    /** @type {Map<string, string>} fork request id -> parent bates */
    this.forks = new Map();
    /** @type {Set<string>} the detail pane's folds open before a re-render of the same turn */
    this.openFolds = new Set();
    this.pollTimer = null;
    this.polling = false;
    this.refreshQueued = false;
    this.destroyed = false;
    this.disposers = [];
    this.build();
  }

  /**
   * @param {string} event
   * @param {Function} callback
   */
  listen(event, callback) {
    this.model.on(event, callback);
    this.disposers.push(() => this.model.off(event, callback));
  }

  build() {
    const h = this.h;
    const sid = this.model.get("sid");
    this.titleEl = h("span", { class: "arb-title", text: this.model.get("title") || sid });
    this.statusEl = h("span", {
      class: "arb-status",
      attrs: { role: "status", "aria-live": "polite", "aria-label": "Status" },
      dataset: { status: "busy" },
      text: "loading…",
    });
    // What an action said (labelled, falsified, an error): it stays until dismissed or the
    // next action speaks, where the status line beside the title is the sync's to rewrite.
    this.noticeText = h("span", { class: "arb-notice-text" });
    this.noticeAction = h("button", { type: "button", class: "arb-button arb-notice-action", hidden: true });
    this.noticeEl = h(
      "div",
      { class: "arb-notice", hidden: true, attrs: { role: "status", "aria-live": "polite", "aria-label": "Notice" } },
      this.noticeText,
      this.noticeAction,
      h("button", {
        type: "button",
        class: "arb-button arb-dismiss",
        text: "×",
        title: "dismiss",
        attrs: { "aria-label": "Dismiss notice" },
        on: { click: () => this.dismiss() },
      }),
    );
    this.queryEl = h("input", {
      type: "search",
      class: "arb-query",
      placeholder: "find in every session…",
      attrs: { "aria-label": "Search all sessions" },
      on: onEnter(() => this.search(this.queryEl.value)),
    });
    this.resultsEl = h("ul", {
      class: "arb-results",
      attrs: { "aria-label": "Search results" },
      dataset: { count: 0 },
      hidden: true,
    });
    this.treeEl = h("div", {
      class: "arb-tree",
      attrs: { role: "tree", "aria-label": "Session tree" },
      on: {
        keydown: (event) => this.onKey(event),
        scroll: () => this.onScroll(),
        focusin: (event) => {
          const bates = event.target?.getAttribute?.("data-bates");
          if (bates) this.focusBates = bates;
        },
      },
    });
    this.detailEl = h("section", {
      class: "arb-detail",
      attrs: { "aria-label": "Node detail" },
      dataset: { bates: "", loading: "false" },
    });
    this.rootEl = h(
      "div",
      {
        class: "arb-forest",
        // JupyterLab's keyboard shortcuts (arrows move the active cell, "a" inserts
        // one...) must not fire for keys pressed inside the widget.
        dataset: {
          arboristForest: "",
          ready: "false",
          sid,
          revision: this.model.get("revision"),
          lmSuppressShortcuts: "true",
        },
      },
      h(
        "div",
        { class: "arb-header" },
        this.titleEl,
        h("code", { class: "arb-sid", text: sid }),
        h("button", {
          type: "button",
          class: "arb-button",
          text: "↻",
          attrs: { "aria-label": "Refresh tree" },
          on: { click: () => this.refresh() },
        }),
        this.statusEl,
      ),
      h(
        "form",
        {
          class: "arb-search",
          attrs: { role: "search", "aria-label": "Find turns" },
          on: {
            submit: (event) => {
              event.preventDefault();
              this.search(this.queryEl.value);
            },
          },
        },
        this.queryEl,
        h("button", {
          type: "submit",
          class: "arb-button",
          text: "Find",
          attrs: { "aria-label": "Search" },
        }),
      ),
      this.noticeEl,
      h("p", {
        class: "arb-legend",
        text: "S strict: quoted and proved · H hybrid: sources proved · V visual: shown only · ■ ◧ □ the question covered, partly, not answered · ● current turn · #n: turn n (hover anything for more)",
      }),
      this.resultsEl,
      h("div", { class: "arb-main" }, this.treeEl, this.detailEl),
    );
    this.el.appendChild(this.rootEl);
    // The traffic so far, on the element: what bench/widget.py counts, both directions.
    this.requester.onTraffic = (stats) => {
      for (const [name, value] of Object.entries(stats)) {
        this.rootEl.setAttribute(`data-traffic-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(value));
      }
    };
    this.renderEmptyDetail();
  }

  /** Start syncing, polling and listening; returns the cleanup function. */
  start() {
    this.listen("change:revision", () => {
      this.store.invalidateBodies();
      this.rootEl.setAttribute("data-revision", String(this.model.get("revision")));
      this.refreshSoon();
    });
    this.listen("change:root_hash", () => this.refreshSoon());
    this.listen("change:graft_hashes", () => this.refreshSoon());
    this.listen("change:current_bates", () => {
      this.store.currentBates = this.model.get("current_bates");
      this.renderTree();
      // The open detail says whether its turn is the current one: redraw it from the body it
      // shows (no request: an %%ask moves the current turn and bumps the revision at once,
      // and the refresh that follows stays small) so it never keeps "● current turn" on the
      // turn the kernel left.
      const shown = this.shownDetail;
      if (shown && shown.body.bates === this.selected) {
        this.renderDetail(shown.body, ++this.detailToken, shown.inTree);
      }
    });
    this.listen("change:selected_bates", () => {
      const bates = this.model.get("selected_bates");
      if (bates && bates !== this.selected) this.select(bates);
    });
    this.listen("change:poll_ms", () => this.startPolling());
    // The widget framework says when the comm closes (the kernel closed the widget or went).
    this.listen("comm:close", () => this.requester.closeLink(LINK_CLOSED));
    this.listen("change:title", () => {
      this.titleEl.textContent = this.model.get("title") || this.model.get("sid");
    });
    this.disposers.push(this.requester.onEvent((event) => this.onEvent(event)));
    // The first sync opens the way to the turn opened below, in its one expand.
    this.store.openFirst = this.model.get("selected_bates") || null;
    this.refresh().then(() => {
      if (this.destroyed) return;
      const target = this.model.get("selected_bates") || this.store.currentBates;
      if (target && target !== this.store.rootBates) this.select(target, { save: false });
    });
    this.startPolling();
    return () => this.destroy();
  }

  /**
   * Why a request went unanswered, from the kernel's own state as the page knows it: a
   * kernel that is gone, one that is busy (a running cell: widget messages wait for it),
   * or one that is idle yet silent, which is a closed link when a short probe confirms it.
   *
   * @returns {Promise<{closed: boolean, text: string}|null>}
   */
  async diagnose() {
    const kernel = this.model.widget_manager?.kernel;
    if (kernel) {
      if (kernel.isDisposed || kernel.status === "dead" || kernel.connectionStatus === "disconnected") {
        return { closed: true, text: "the kernel stopped or is disconnected: start it again, then re-run the cell that shows this widget (%arborist)" };
      }
      if (kernel.status === "busy") return { closed: false, text: "the kernel is busy running a cell: the widget is answered once it is done" };
      if (kernel.status === "restarting" || kernel.status === "autorestarting") {
        return { closed: true, text: "the kernel restarted: re-run the cell that shows this widget (%arborist)" };
      }
    }
    return (await this.requester.ping()) ? null : { closed: true, text: LINK_CLOSED };
  }

  /** The link to the kernel is gone: say so where the status is, and stop asking. */
  linkLost() {
    if (this.destroyed) return;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.rootEl.setAttribute("data-link", "closed");
    this.setStatus("error", this.requester.linkClosed ?? LINK_CLOSED);
    this.notify("error", this.requester.linkClosed ?? LINK_CLOSED);
  }

  destroy() {
    this.destroyed = true;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    for (const dispose of this.disposers.splice(0)) dispose();
    this.requester.close();
    this.rootEl.remove?.();
  }

  /**
   * @param {"ok"|"busy"|"error"} state
   * @param {string} text
   */
  setStatus(state, text) {
    this.statusEl.setAttribute("data-status", state);
    this.statusEl.textContent = text;
  }

  /**
   * Say what an action did (or why it failed) until the reader dismisses it or the next
   * action speaks: a sync never overwrites it.
   *
   * @param {"ok"|"error"} state
   * @param {string} text
   * @param {{text: string, label: string, run: () => void}} [action] a button beside the
   *   text (undo what was just done)
   */
  notify(state, text, action) {
    this.noticeEl.hidden = false;
    this.noticeEl.setAttribute("data-notice", state);
    this.noticeText.textContent = text;
    this.noticeAction.hidden = !action;
    this.noticeAction.textContent = action?.text ?? "";
    this.noticeAction.setAttribute("aria-label", action?.label ?? "");
    this.noticeAction.onclick = action ? () => action.run() : null;
  }

  dismiss() {
    this.noticeEl.hidden = true;
    this.noticeEl.setAttribute("data-notice", "");
    this.noticeText.textContent = "";
    this.noticeAction.hidden = true;
    this.noticeAction.onclick = null;
  }

  /**
   * @param {unknown} error
   * @param {string} [what]
   */
  fail(error, what = "") {
    if (this.destroyed) return;
    if (this.requester.linkClosed) {
      // One message for the one cause, said where the status is and in the notice.
      this.setStatus("error", this.requester.linkClosed);
      if (what && what !== "sync" && what !== "poll") this.notify("error", `${what}: ${this.requester.linkClosed}`);
      return;
    }
    const text = error?.message ?? String(error);
    this.setStatus("error", what ? `${what}: ${text}` : text);
    if (what && what !== "sync") this.notify("error", `${what}: ${text}`);
  }

  async refresh() {
    if (this.destroyed) return;
    this.setStatus("busy", "syncing…");
    try {
      await this.store.sync();
      if (this.destroyed) return;
      this.renderTree();
      this.rootEl.setAttribute("data-ready", "true");
      const root = this.store.nodes.get(this.store.rootBates);
      this.rootEl.setAttribute("data-root-hash", root?.hash ?? "");
      const turns = this.store.turns;
      this.setStatus("ok", `${turns} turn${turns === 1 ? "" : "s"} · in sync`);
    } catch (error) {
      this.fail(error, "sync");
    }
  }

  /**
   * Refresh once for every trait the kernel changed in one message: their
   * change events fire one by one, and a refresh started by the first would
   * run a second walk for the next (a sync asked for during a sync runs again).
   */
  refreshSoon() {
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    queueMicrotask(() => {
      this.refreshQueued = false;
      this.refresh();
    });
  }

  startPolling() {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
    const ms = Number(this.model.get("poll_ms")) || 0;
    if (ms > 0 && !this.destroyed) this.pollTimer = setInterval(() => this.poll(), ms);
  }

  async poll() {
    if (this.polling || this.destroyed || !this.store.synced) return;
    if (this.doc.visibilityState === "hidden") return;
    this.polling = true;
    try {
      const grafts = this.store.grafts.map((g) => g.bates);
      const answer = await this.requester.request("poll", { grafts });
      if (this.store.pollChanged(answer)) {
        this.store.invalidateBodies();
        await this.refresh();
      }
    } catch (error) {
      this.fail(error, "poll");
    } finally {
      this.polling = false;
    }
  }

  /** @param {{kind: string, request?: string, ok?: boolean, bates?: string, error?: string}} event */
  onEvent(event) {
    if (event.kind !== "turn_done" || this.destroyed) return;
    const mine = typeof event.request === "string" && this.forks.has(event.request);
    if (mine) this.forks.delete(event.request);
    if (!event.ok) {
      if (mine) {
        this.setForkStatus("error", `fork failed: ${event.error ?? "unknown error"}`);
        this.fail(event.error ?? "unknown error", "fork");
      }
      return;
    }
    this.store.invalidateBodies();
    this.store.sync().then(
      async () => {
        this.renderTree();
        if (mine && event.bates) {
          await this.select(event.bates);
          const name = shortBates(event.bates, this.store.nodes.get(event.bates)?.summary?.foreign);
          this.setForkStatus("done", `answered: ${name}`);
          this.notify("ok", `answered: ${name}${event.hit ? " (cache hit)" : ""}`);
        }
      },
      (error) => this.fail(error, "sync"),
    );
  }

  /**
   * @param {"idle"|"pending"|"done"|"error"} state
   * @param {string} text
   */
  setForkStatus(state, text) {
    if (!this.forkStatusEl) return;
    this.forkStatusEl.setAttribute("data-fork", state);
    this.forkStatusEl.textContent = text;
  }

  // --- the tree ----------------------------------------------------------

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
  }

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
  }

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
  }

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
  }

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
  }

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
  }

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
        s.state && s.state !== "ok"
          ? h("span", { class: "arb-badge arb-state", title: `answer ${s.state}`, dataset: { state: s.state }, text: s.state })
          : null,
        s.audit_mode
          ? h("span", {
              class: "arb-badge arb-audit",
              title: AUDIT_MODES[s.audit_mode] ?? s.audit_mode,
              dataset: { auditMode: s.audit_mode },
              text: s.audit_mode[0],
            })
          : null,
        supportBadge(h, s.support, true),
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
  }

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
  }

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
  }

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
  }

  // --- the detail pane ---------------------------------------------------

  renderEmptyDetail() {
    this.detailEl.setAttribute("data-bates", "");
    this.detailEl.replaceChildren(
      this.h("p", { class: "arb-empty", text: "Select a turn to see its answer and proofs." }),
    );
  }

  /**
   * @param {string} bates
   * @param {{reveal?: boolean}} [options]
   */
  async showDetail(bates, { reveal = true } = {}) {
    const token = ++this.detailToken;
    this.detailEl.setAttribute("data-bates", bates);
    this.detailEl.setAttribute("data-loading", "true");
    let body;
    try {
      body = await this.store.body(bates);
    } catch (error) {
      if (token !== this.detailToken) return;
      this.detailEl.setAttribute("data-loading", "false");
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
  }

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
    const { list, checks } = evidenceList(h, body, copy);
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
    this.holdFocus(detail);
    // replaceChildren would print null and arrays as text: append() skips and flattens them.
    detail.replaceChildren();
    detail.setAttribute("data-rendered", body.bates);
    append(this.doc, detail, [
      detailHead(h, body),
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
      proofSection(h, body, copy),
    ]);
    this.keepFolds(detail);
    if (!same) detail.scrollTop = 0; // another turn opens at its heading; a re-render stays put
    for (const input of detail.querySelectorAll?.(".arb-actions .arb-input") ?? []) {
      const name = input.getAttribute("aria-label");
      if (typed.has(name)) input.value = typed.get(name);
    }
    this.verifyProofs(detail, checks, token);
  }

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
  }

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
  }

  /**
   * Re-verify every proof here, with WebCrypto; never trust the kernel's word.
   *
   * @param {HTMLElement} detail
   * @param {Array<[HTMLElement, HTMLElement, any]>} checks
   * @param {number} token
   */
  verifyProofs(detail, checks, token) {
    Promise.all(
      checks.map(async ([li, status, item]) => {
        const result = await verifyEvidence(item);
        if (token === this.detailToken) {
          li.setAttribute("data-proof", result.status);
          status.setAttribute("data-proof", result.status);
          status.textContent = result.status === "pass" ? "✓ quote verified" : result.text;
          status.setAttribute("title", result.text);
        }
        return result;
      }),
    ).then((results) => {
      if (token === this.detailToken && results.length) {
        detail.setAttribute("data-proofs", proofVerdict(results));
      }
    });
  }

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
  }

  /**
   * Why a turn's answer cannot be falsified now, or null when it can.
   *
   * @param {any} body
   * @returns {string|null}
   */
  static cannotFalsify(body) {
    if (!body.record) return body.record_error ?? "this home's store does not hold the answer";
    if (body.record.state !== "ok") return `already ${body.record.state}`;
    return null;
  }

  /**
   * Whether the turn's falsified revision can be put back in service: only while no
   * later revision answered the question (the kernel checks it again).
   *
   * @param {any} body
   * @returns {boolean}
   */
  static canRestore(body) {
    const record = body.record;
    return Boolean(record && record.state !== "ok" && body.latest_revision?.revision === record.revision);
  }

  /**
   * The actions on a turn: ask under it, make it the kernel's current turn,
   * label it, falsify its answer.
   *
   * @param {any} body
   * @returns {HTMLElement}
   */
  renderActions(body) {
    const h = this.h;
    const forking = [...this.forks.values()].includes(body.bates);
    this.forkStatusEl = h("span", {
      class: "arb-fork-status",
      attrs: { role: "status", "aria-label": "Fork status" },
      dataset: { fork: forking ? "pending" : "idle" },
      text: forking ? "answering…" : "",
    });
    const forkInput = h("input", {
      type: "text",
      class: "arb-input",
      placeholder: body.is_root ? "ask a question in a new branch…" : "ask a follow-up under this turn…",
      attrs: { "aria-label": "Fork question" },
      on: onEnter(() => this.fork(body.bates, forkInput.value, forkInput)),
    });
    const labelInput = h("input", {
      type: "text",
      class: "arb-input arb-short",
      placeholder: "name this turn…",
      attrs: { "aria-label": "Label", value: body.label ?? "" },
      on: onEnter(() => this.relabel(body.bates, labelInput.value)),
    });
    const current = body.bates === (this.model.get("current_bates") || this.store.currentBates);
    return h(
      "div",
      { class: "arb-actions", attrs: { role: "group", "aria-label": "Actions" } },
      h(
        "form",
        {
          class: "arb-action",
          attrs: { "aria-label": "Fork" },
          on: {
            submit: (event) => {
              event.preventDefault();
              this.fork(body.bates, forkInput.value, forkInput);
            },
          },
        },
        forkInput,
        h("button", {
          type: "submit",
          class: "arb-button arb-primary",
          text: "Ask here",
          title: "Answer in the background as a new child of this turn; the kernel's current turn does not move",
          attrs: { "aria-label": "Ask under this node" },
          dataset: { action: "fork" },
        }),
        this.forkStatusEl,
      ),
      h(
        "div",
        { class: "arb-action" },
        current
          ? h("span", { class: "arb-current", title: "the next %%ask in this kernel goes under this turn", text: "● current turn" })
          : this.button("Set as current", "Make this the current node", "cd", () => this.cd(body.bates), {
              title: "Make this the kernel's current turn: the next %%ask follow-up goes under it",
            }),
        labelInput,
        this.button("Label", "Set label", "label", () => this.relabel(body.bates, labelInput.value)),
      ),
      body.is_root ? null : this.renderFalsify(body),
    );
  }

  /**
   * @param {string} text
   * @param {string} label accessible name
   * @param {string} action
   * @param {() => void} onClick
   * @param {{disabled?: boolean, title?: string}} [options]
   * @returns {HTMLElement}
   */
  button(text, label, action, onClick, { disabled = false, title } = {}) {
    return this.h("button", {
      type: "button",
      class: "arb-button",
      text,
      disabled,
      title,
      attrs: { "aria-label": label },
      dataset: { action },
      on: { click: onClick },
    });
  }

  /**
   * Falsify: a state, a reason, the button; disabled with the reason shown
   * when the answer cannot be falsified now.
   *
   * @param {any} body
   * @returns {HTMLElement}
   */
  renderFalsify(body) {
    const h = this.h;
    const why = ForestView.cannotFalsify(body);
    const stateSelect = h(
      "select",
      { class: "arb-input", disabled: Boolean(why), attrs: { "aria-label": "Falsify as" } },
      FALSIFY_STATES.map((state) => h("option", { value: state, text: state })),
    );
    const row = h("div", { class: "arb-action", dataset: { falsify: why ? "done" : "ready" } });
    const ask = () => {
      if (!why) this.confirmFalsify(body, row, stateSelect.value, reasonInput.value);
    };
    const reasonInput = h("input", {
      type: "text",
      class: "arb-input",
      disabled: Boolean(why),
      placeholder: "why is this answer wrong?",
      attrs: { "aria-label": "Falsification reason" },
      on: onEnter(ask),
    });
    const record = body.record;
    const later = record && body.latest_revision && body.latest_revision.revision !== record.revision
      ? `revision ${body.latest_revision.revision} has answered the question since (${body.latest_revision.state})`
      : null;
    append(this.doc, row, [
      stateSelect,
      reasonInput,
      this.button("Falsify", "Falsify answer", "falsify", ask, {
        disabled: Boolean(why),
        title: why ? `cannot falsify: ${why}` : "take this cached answer out of service (you confirm first)",
      }),
      why
        ? h("span", {
            class: "arb-why arb-state-text",
            attrs: { "aria-label": "Falsification state" },
            dataset: { state: record?.state ?? "none" },
            text: why,
          })
        : null,
      ForestView.canRestore(body)
        ? this.button("Undo falsification", "Undo falsification", "restore", () => this.restore(body.bates), {
            title: "put this revision back in service (recorded as one more event; the falsification stays in the record)",
          })
        : null,
      later ? h("span", { class: "arb-why", attrs: { "aria-label": "Later revision" }, text: later }) : null,
    ]);
    return row;
  }

  /**
   * Ask before falsifying, in the pane (never a browser dialog): the row becomes a
   * question with a confirm and a cancel button.
   *
   * @param {any} body
   * @param {HTMLElement} row
   * @param {string} state
   * @param {string} reason
   */
  confirmFalsify(body, row, state, reason) {
    const h = this.h;
    if (!reason.trim()) {
      this.falsify(body.bates, state, reason); // the kernel says why it cannot, in words
      return;
    }
    const name = shortBates(body.bates, body.foreign);
    const revision = body.record?.revision;
    const kept = [...row.childNodes];
    const cancel = () => {
      row.replaceChildren(...kept);
      row.setAttribute("data-falsify", "ready");
    };
    row.setAttribute("data-falsify", "confirm");
    row.replaceChildren(
      h("span", {
        class: "arb-confirm-text",
        text: `Mark the answer of ${name}${revision ? ` (revision ${revision})` : ""} ${state} because “${reason.trim()}”? It will not be served again; you can undo this until the question is answered again.`,
      }),
      this.button("Falsify", "Confirm falsify", "confirm-falsify", () => this.falsify(body.bates, state, reason)),
      this.button("Cancel", "Cancel falsify", "cancel-falsify", cancel),
    );
    row.querySelector("[data-action=confirm-falsify]")?.focus();
  }

  // --- actions -----------------------------------------------------------

  /** @param {string} bates */
  async cd(bates) {
    try {
      const result = await this.requester.request("cd", { bates });
      this.store.currentBates = result.current_bates;
      this.renderTree();
      const foreign = this.store.nodes.get(result.current_bates)?.summary?.foreign ?? false;
      this.notify("ok", `${shortBates(result.current_bates, foreign)} is now the current turn: the next %%ask follow-up goes under it`);
      if (this.selected === bates) this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "cd");
    }
  }

  /**
   * @param {string} bates
   * @param {string} question
   * @param {HTMLInputElement} input
   */
  async fork(bates, question, input) {
    if (!question.trim()) {
      this.setForkStatus("error", "type a question first");
      return;
    }
    const { id, promise } = this.requester.send("fork", { bates, question });
    this.forks.set(id, bates);
    this.setForkStatus("pending", "answering…");
    try {
      await promise;
      input.value = "";
    } catch (error) {
      this.forks.delete(id);
      this.setForkStatus("error", error.message);
      this.fail(error, "fork");
    }
  }

  /**
   * @param {string} bates
   * @param {string} label
   */
  async relabel(bates, label) {
    try {
      const result = await this.requester.request("label", { bates, label });
      this.store.updateSummary(result.bates, result.summary);
      this.renderTree();
      const foreign = this.store.nodes.get(result.bates)?.summary?.foreign ?? false;
      const name = shortBates(result.bates, foreign);
      this.notify("ok", result.label ? `labelled ${name} “${result.label}”` : `${name}'s label removed`);
      this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "label");
    }
  }

  /**
   * @param {string} bates
   * @param {string} state
   * @param {string} reason
   */
  async falsify(bates, state, reason) {
    try {
      const result = await this.requester.request("falsify", { bates, state, reason });
      this.store.updateSummary(result.bates, result.summary);
      this.store.restate(result.cache_key, { [result.revision]: result.state });
      this.renderTree();
      const name = shortBates(bates, this.store.nodes.get(bates)?.summary?.foreign ?? false);
      this.notify("ok", `the answer of ${name} (revision ${result.revision}) is now ${result.state}: it will not be served again`, {
        text: "Undo",
        label: "Undo falsification",
        run: () => this.restore(bates),
      });
      this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "falsify");
    }
  }

  /**
   * Undo a falsification: the kernel records one more state event (the store's record
   * is append-only) when no later revision replaced the answer.
   *
   * @param {string} bates
   */
  async restore(bates) {
    try {
      const result = await this.requester.request("restore", { bates });
      this.store.updateSummary(result.bates, result.summary);
      this.store.restate(result.cache_key, { [result.revision]: result.state });
      this.renderTree();
      const name = shortBates(bates, this.store.nodes.get(bates)?.summary?.foreign ?? false);
      this.notify("ok", `falsification undone: the answer of ${name} (revision ${result.revision}) is in service again (both events stay in the record)`);
      this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "undo");
    }
  }

  /**
   * Search hits grouped by session (this session first), each hit with its
   * matched words marked.
   *
   * @param {any[]} hits
   * @returns {HTMLElement[]}
   */
  searchGroups(hits) {
    const h = this.h;
    const groups = new Map();
    for (const hit of hits) {
      if (!groups.has(hit.sid)) groups.set(hit.sid, []);
      groups.get(hit.sid).push(hit);
    }
    const order = [...groups.keys()].sort((a, b) => (groups.get(a)[0].foreign ? 1 : 0) - (groups.get(b)[0].foreign ? 1 : 0));
    return order.map((sid) => {
      const first = groups.get(sid)[0];
      const title = first.foreign ? first.session_label || `session ${shortSid(sid)}` : "this session";
      return h(
        "li",
        { class: "arb-hit-group", dataset: { sid } },
        h("div", { class: "arb-hit-session", title: sid, text: `${title} (${groups.get(sid).length})` }),
        h(
          "ul",
          { class: "arb-hit-list" },
          groups.get(sid).map((hit) =>
            h(
              "li",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "arb-hit",
                  title: hit.bates,
                  attrs: { "aria-label": `Open ${hit.bates}` },
                  dataset: { bates: hit.bates, sid: hit.sid, foreign: String(hit.foreign) },
                  on: { click: () => this.select(hit.bates) },
                },
                h("span", { class: "arb-name", text: shortBates(hit.bates, hit.foreign) }),
                h("span", { class: "arb-question", text: hit.question }),
                h(
                  "span",
                  { class: "arb-snippet" },
                  markedParts(hit.snippet).map((part) => (part.mark ? h("mark", { text: part.text }) : part.text)),
                ),
              ),
            ),
          ),
        ),
      );
    });
  }

  /** @param {string} query */
  async search(query) {
    const h = this.h;
    if (!query.trim()) {
      this.resultsEl.hidden = true;
      this.resultsEl.replaceChildren();
      return;
    }
    try {
      const result = await this.requester.request("find", { query, limit: 20 });
      this.resultsEl.hidden = false;
      this.resultsEl.setAttribute("data-count", String(result.hits.length));
      this.resultsEl.replaceChildren(
        ...(result.hits.length
          ? this.searchGroups(result.hits)
          : [h("li", { class: "arb-empty", text: "no turn matches" })]),
      );
    } catch (error) {
      this.fail(error, "find");
    }
  }
}
