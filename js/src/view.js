/**
 * The forest view: the tree of one session and its grafts, the detail pane,
 * and the actions (cd, fork, label, falsify, search across sessions). Built
 * from {@link makeH}, so every piece of model or document text goes through
 * `textContent`. Exercised by the browser tests and a Node smoke test.
 *
 * @module view
 */

import { stateBadge } from "./detail.js";
import { makeH, onEnter } from "./dom.js";
import {
  KERNEL_STOPPED,
  LINK_CLOSED,
  NOT_SENT,
  POLL_SILENT_MS,
  REQUEST_TIMEOUT_MS,
  Requester,
  kernelGone,
  kernelOnServer,
} from "./requests.js";
import { ForestStore } from "./store.js";
import { inert, markedParts, sessionStart, shortBates, shortSid } from "./text.js";
import { actionMethods } from "./view_actions.js";
import { detailMethods } from "./view_detail.js";
import { treeMethods } from "./view_tree.js";

export { FALSIFY_STATES } from "./view_actions.js";
export { ROW_HEIGHT_PX, VIRTUAL_MARGIN, VIRTUAL_ROWS } from "./view_tree.js";

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
    this.vocabulary = model.get("vocabulary") ?? {}; // the kernel's words (detail.js, auditBadge)
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
    /** The query whose hits are shown: searched again when the forest or the store moves. */
    this.lastQuery = "";
    /** @type {{bates: string, key: string}|null} the turn (and cache key) whose falsification
     * the notice offers to undo; null: no undo offered */
    this.noticeUndo = null;
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
    this.firstEl = this.renderFirst();
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
          waiting: String(!sid),
          revision: this.model.get("revision"),
          lmSuppressShortcuts: "true",
        },
      },
      h(
        "div",
        { class: "arb-header" },
        this.titleEl,
        (this.sidEl = h("code", { class: "arb-sid", text: sid })),
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
          title: "find the question in every session's turns",
        }),
      ),
      this.noticeEl,
      h("p", {
        class: "arb-legend",
        text: [this.vocabulary.legend, "● current turn · #n: turn n (hover anything for more)"].filter(Boolean).join(" · "),
      }),
      this.resultsEl,
      h("div", { class: "arb-main" }, this.firstEl, this.treeEl, this.detailEl),
    );
    // Escape closes what is open around the focus, innermost first, else returns to the tree.
    this.rootEl.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.escape(event.target)) {
        event.preventDefault();
        event.stopPropagation();
      }
    });
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
    // A view with no session yet: the first turn made one (a %%ask cell or this view's ask).
    this.listen("change:sid", () => {
      const sid = this.model.get("sid");
      this.sidEl.textContent = sid;
      this.rootEl.setAttribute("data-sid", sid);
      this.rootEl.setAttribute("data-waiting", String(!sid));
      this.refreshSoon();
    });
    // The widget framework says when the comm closes (the kernel closed the widget or went).
    this.listen("comm:close", () => this.requester.closeLink(LINK_CLOSED));
    this.listen("change:title", () => {
      this.titleEl.textContent = inert(this.model.get("title") || this.model.get("sid"));
    });
    this.disposers.push(this.requester.onEvent((event) => this.onEvent(event)));
    this.watchKernel();
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
    const gone = kernelGone(kernel);
    if (gone) return { closed: true, text: gone };
    if (kernel?.status === "busy") return { closed: false, text: "the kernel is busy running a cell: the widget is answered once it is done" };
    return (await this.requester.ping()) ? null : { closed: true, text: LINK_CLOSED };
  }

  /**
   * Listen to the kernel's own state: a restart, a stop or a lost connection closes the
   * link at once (the widget's kernel side is gone with it), said in one plain sentence,
   * never "in sync" a poll later.
   */
  watchKernel() {
    const kernel = this.model.widget_manager?.kernel;
    const check = () => {
      const gone = kernelGone(kernel);
      if (gone) this.requester.closeLink(gone);
    };
    for (const signal of [kernel?.statusChanged, kernel?.connectionStatusChanged, kernel?.disposed]) {
      if (typeof signal?.connect !== "function") continue;
      signal.connect(check);
      this.disposers.push(() => signal.disconnect(check));
    }
  }

  /**
   * The link to the kernel is gone: say so once, where the status is, and stop asking. The
   * notice goes: what it said (an Undo among it) can no longer be sent.
   */
  linkLost() {
    if (this.destroyed) return;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.rootEl.setAttribute("data-link", "closed");
    this.setStatus("error", this.requester.linkClosed ?? LINK_CLOSED);
    this.dismiss();
    this.disableSending();
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
    this.statusEl.textContent = inert(text);
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
    this.noticeUndo = null;
    // The button pressed (Undo) goes with the text it undid: the focus goes to the row.
    const lost = !action && this.noticeAction.contains?.(this.doc.activeElement);
    this.noticeEl.hidden = false;
    this.noticeEl.setAttribute("data-notice", state);
    this.noticeText.textContent = inert(text);
    this.noticeAction.hidden = !action;
    this.noticeAction.textContent = action?.text ?? "";
    this.noticeAction.setAttribute("aria-label", action?.label ?? "");
    this.noticeAction.onclick = action ? () => action.run() : null;
    if (lost) this.focusRow();
  }

  dismiss() {
    this.noticeUndo = null;
    const lost = this.noticeEl.contains?.(this.doc.activeElement);
    this.noticeEl.hidden = true;
    this.noticeEl.setAttribute("data-notice", "");
    this.noticeText.textContent = "";
    this.noticeAction.hidden = true;
    this.noticeAction.onclick = null;
    if (lost) this.focusRow(); // never <body>: the reader goes on where they were
  }

  /**
   * Give the focus to the selected turn's row (else the focused one, else the tree): where
   * a reader goes back to when what they used goes away.
   */
  focusRow() {
    const bates = [this.selected, this.focusBates].find((b) => b && this.rowEls.has(b));
    if (!bates) {
      this.treeEl.setAttribute("tabindex", this.treeEl.getAttribute("tabindex") ?? "-1");
      this.treeEl.focus?.({ preventScroll: true });
      return;
    }
    for (const [other, el] of this.rowEls) el.setAttribute("tabindex", other === bates ? "0" : "-1");
    this.focusBates = bates;
    this.rowEls.get(bates).focus?.({ preventScroll: true });
  }

  /**
   * Escape: close what is open around `target`, innermost first (the search results, a
   * fold, the cited chunk, the notice), else bring the focus back to the tree. Returns
   * whether it did anything.
   *
   * @param {any} target the element the key was pressed in
   * @returns {boolean}
   */
  escape(target) {
    if (!this.resultsEl.hidden && (target === this.queryEl || this.resultsEl.contains?.(target))) {
      this.resultsEl.hidden = true;
      this.searchToken = (this.searchToken ?? 0) + 1; // a search still on its way stays closed
      this.queryEl.focus?.();
      return true;
    }
    const fold = target?.closest?.("details[open]");
    if (fold && this.rootEl.contains?.(fold)) {
      fold.open = false;
      fold.querySelector?.("summary")?.focus?.();
      return true;
    }
    const cited = this.detailEl.querySelector?.(".arb-cited");
    if (cited && !cited.hidden) {
      const label = cited.getAttribute("data-citation");
      cited.hidden = true;
      const chips = [...(this.detailEl.querySelectorAll?.("button.arb-cite") ?? [])];
      (chips.find((chip) => chip.getAttribute("data-citation") === label) ?? chips[0])?.focus?.();
      return true;
    }
    if (!this.noticeEl.hidden) {
      this.dismiss();
      return true;
    }
    if (this.treeEl.contains?.(target)) return false;
    this.focusRow();
    return true;
  }

  /**
   * @param {unknown} error
   * @param {string} [what]
   */
  fail(error, what = "") {
    if (this.destroyed) return;
    if (this.requester.linkClosed) {
      // One message for the one cause, said once where the status is; an action says only
      // that it was not sent, pointing there.
      this.setStatus("error", this.requester.linkClosed);
      if (what && what !== "sync" && what !== "poll") this.notify("error", `${what}: ${NOT_SENT}`);
      return;
    }
    const text = error?.message ?? String(error);
    // Said once: a sync's (or poll's) failure where the sync speaks, the status line; an
    // action's in the notice, where actions speak (the status keeps saying the sync's state).
    if (!what || what === "sync" || what === "poll") this.setStatus("error", what ? `${what}: ${text}` : text);
    else this.notify("error", `${what}: ${text}`);
  }

  /**
   * A question asked here failed: said once, beside the box it was typed in while that box
   * is shown, else in the notice.
   *
   * @param {string} what "ask" or "fork"
   * @param {unknown} error
   */
  questionFailed(what, error) {
    const text = `${what} failed: ${error?.message ?? String(error)}`;
    if (this.forkStatusEl && this.rootEl.contains?.(this.forkStatusEl)) this.setForkStatus("error", text);
    else this.notify("error", text);
  }

  /** Whether this view waits for its session (none yet: its first turn makes it). */
  get waiting() {
    return !this.model.get("sid");
  }

  async refresh() {
    if (this.destroyed) return;
    if (this.waiting) {
      // Nothing to sync: the kernel writes no session before its first turn, and says
      // (`sid`) when one is made.
      this.rootEl.setAttribute("data-ready", "true");
      this.setStatus("ok", "no turns yet");
      return;
    }
    this.setStatus("busy", "syncing…");
    try {
      await this.syncStore();
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
   * Bring the store up to date, then what hangs on what moved since the last sync: the
   * search hits when the forest or the store did (a new turn, a label, a falsification),
   * and, when the store did (an answer falsified, put back or answered again), the open
   * turn's detail and the notice's Undo, so neither offers what the kernel would refuse.
   */
  async syncStore() {
    const before = this.store.synced ? [this.store.storeSeq, this.store.eventSeq] : null;
    await this.store.sync();
    if (this.destroyed || before === null) return;
    const storeMoved = before[0] !== this.store.storeSeq;
    if (storeMoved || before[1] !== this.store.eventSeq) this.refreshSearch();
    if (!storeMoved) return;
    const shown = this.shownDetail;
    const open = shown && !shown.body.is_root && this.detailEl.getAttribute("data-rendered") === shown.body.bates;
    if (open && this.store.touched(shown.body.cache_key)) this.refreshDetail(shown.body.bates);
    if (this.noticeUndo && this.store.touched(this.noticeUndo.key)) this.checkUndo(this.noticeUndo.bates);
  }

  /**
   * Read the open turn's body again and draw it when it changed (its record's state, a
   * later revision); an unchanged one is left as it is, with what the reader typed.
   *
   * @param {string} bates
   */
  async refreshDetail(bates) {
    const token = this.detailToken;
    let body;
    try {
      body = await this.store.body(bates);
    } catch (error) {
      this.fail(error, "open");
      return;
    }
    const shown = this.shownDetail;
    if (token !== this.detailToken || !shown || shown.body.bates !== bates) return;
    if (JSON.stringify(body) === JSON.stringify(shown.body)) return;
    this.renderDetail(body, ++this.detailToken, shown.inTree);
  }

  /** Search again for the hits shown (none shown: nothing to do). */
  refreshSearch() {
    if (this.lastQuery && !this.resultsEl.hidden) this.search(this.lastQuery);
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
    // An idle kernel answers a poll in milliseconds. One shut down from elsewhere (the
    // Running panel, the REST API, another page) may leave its websocket open and its
    // status "idle" in this page, so a poll still unanswered after POLL_SILENT_MS asks the
    // server whether the kernel exists: gone, it is said now, not after the request's 15 s.
    const kernel = this.model.widget_manager?.kernel;
    const silent = setTimeout(() => this.checkKernelOnServer(kernel), POLL_SILENT_MS);
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
      clearTimeout(silent);
      this.polling = false;
    }
  }

  /** @param {any} kernel the kernel this view's poll went to */
  async checkKernelOnServer(kernel) {
    if (this.destroyed || this.requester.linkClosed) return;
    if ((await kernelOnServer(kernel)) === false) this.requester.closeLink(KERNEL_STOPPED);
  }

  /** @param {{kind: string, request?: string, ok?: boolean, bates?: string, error?: string}} event */
  onEvent(event) {
    if (event.kind !== "turn_done" || this.destroyed) return;
    const mine = typeof event.request === "string" && this.forks.has(event.request);
    const what = mine && this.forks.get(event.request) === null ? "ask" : "fork"; // null: the first
    if (mine) this.forks.delete(event.request);
    if (!event.ok) {
      if (mine) this.questionFailed(what, event.error ?? "unknown error");
      return;
    }
    this.store.invalidateBodies();
    this.syncStore().then(
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
    this.forkStatusEl.textContent = inert(text);
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
    const named = (sid, first = groups.get(sid)[0]) =>
      first.foreign ? first.session_label || `session ${shortSid(sid)}` : "this session";
    // Two sessions of one label (a notebook run twice) are told apart by when each began.
    const twice = new Set(order.map((sid) => named(sid)).filter((name, i, all) => all.indexOf(name) !== i));
    return order.map((sid) => {
      const name = named(sid);
      const title = twice.has(name) && sessionStart(sid) ? `${name} · ${sessionStart(sid)}` : name;
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
                  dataset: { bates: hit.bates, sid: hit.sid, foreign: String(hit.foreign), state: hit.state ?? undefined },
                  on: { click: () => this.select(hit.bates) },
                },
                h("span", { class: "arb-name", text: shortBates(hit.bates, hit.foreign) }),
                h("span", { class: "arb-question", text: hit.question }),
                stateBadge(h, this.vocabulary, hit),
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
    this.lastQuery = query;
    const token = (this.searchToken = (this.searchToken ?? 0) + 1); // the latest search wins
    if (!query.trim()) {
      this.resultsEl.hidden = true;
      this.resultsEl.replaceChildren();
      return;
    }
    try {
      const result = await this.requester.request("find", { query, limit: 20 });
      if (token !== this.searchToken || this.destroyed) return;
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

// The view's tree, detail pane and actions live in their own modules (view_tree.js,
// view_detail.js, view_actions.js): their methods are the view's.
Object.assign(ForestView.prototype, treeMethods, detailMethods, actionMethods);
