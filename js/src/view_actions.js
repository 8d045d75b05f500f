/**
 * The forest view's actions on a turn: the buttons of its detail pane (ask under it,
 * make it current, label it, falsify its answer and undo that) and the requests they
 * send. Methods of {@link ForestView} (installed on its prototype by view.js), so
 * `this` is the view.
 *
 * @module view_actions
 */

import { append, onEnter } from "./dom.js";
import { shortBates } from "./text.js";

/** States a record can be falsified to (FALSIFIED_STATES in arborist/_store/cache.py). */
export const FALSIFY_STATES = Object.freeze(["failed", "stale", "quarantined"]);

/**
 * Why a turn's answer cannot be falsified now, or null when it can.
 *
 * @param {any} body
 * @returns {string|null}
 */
export function cannotFalsify(body) {
  if (!body.record) return body.record_error ?? "this home's store does not hold the answer";
  if (body.record.state !== "ok") {
    const why = body.record.state_reason;
    return `already ${body.record.state}${why ? `: ${why}` : ""}`;
  }
  return null;
}

/**
 * Whether the turn's falsified revision can be put back in service: only while no
 * later revision answered the question (the kernel checks it again).
 *
 * @param {any} body
 * @returns {boolean}
 */
export function canRestore(body) {
  const record = body.record;
  return Boolean(record && record.state !== "ok" && body.latest_revision?.revision === record.revision);
}

/** The actions' methods of {@link ForestView}. */
export const actionMethods = {
  /**
   * What a view with no session yet shows in its tree's place: that there are no turns,
   * and a box to ask the first question (the `ask` request; the kernel makes the session
   * with its turn). Hidden by the stylesheet once the view has a session.
   *
   * @returns {HTMLElement}
   */
  renderFirst() {
    const h = this.h;
    const status = h("span", {
      class: "arb-fork-status",
      attrs: { role: "status", "aria-label": "First question status" },
      dataset: { fork: "idle" },
    });
    const input = h("input", {
      type: "text",
      class: "arb-input",
      placeholder: "ask the first question…",
      attrs: { "aria-label": "First question" },
      on: onEnter(() => this.askFirst(input.value, input, status)),
    });
    return h(
      "section",
      { class: "arb-first", attrs: { "aria-label": "No turns yet" } },
      h("p", { class: "arb-first-text", text: "No turns yet: ask a question with %%ask in a cell, or in the box below. The session is made with its first turn, and its tree shows here." }),
      h(
        "form",
        {
          class: "arb-action",
          attrs: { "aria-label": "Ask the first question" },
          on: {
            submit: (event) => {
              event.preventDefault();
              this.askFirst(input.value, input, status);
            },
          },
        },
        input,
        h("button", {
          type: "submit",
          class: "arb-button arb-primary",
          text: "Ask",
          title: "Answer in the background; its turn makes this kernel's session",
          attrs: { "aria-label": "Ask" },
          dataset: { action: "ask" },
        }),
        status,
      ),
    );
  },

  /**
   * @param {string} question
   * @param {HTMLInputElement} input
   * @param {HTMLElement} status
   */
  async askFirst(question, input, status) {
    this.forkStatusEl = status; // turn_done reports here (no detail pane is open)
    await this.sendQuestion("ask", { question }, null, input);
  },

  /**
   * Send a question (``kind`` "ask": the first one; "fork": under turn ``parent``) and
   * wait for its ``pending`` answer: the turn itself comes later, as ``turn_done``.
   *
   * @param {string} kind
   * @param {{question: string, bates?: string}} args
   * @param {string | null} parent
   * @param {HTMLInputElement} input
   */
  async sendQuestion(kind, args, parent, input) {
    if (!args.question.trim()) {
      this.setForkStatus("error", "type a question first");
      return;
    }
    const { id, promise } = this.requester.send(kind, args);
    this.forks.set(id, parent);
    this.setForkStatus("pending", "answering…");
    try {
      await promise;
      input.value = "";
    } catch (error) {
      this.forks.delete(id);
      this.questionFailed(kind, error);
    }
  },

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
              title: "Make this the kernel's current turn: the next new %%ask follow-up goes under it (a cell run again stays where its turn is)",
            }),
        labelInput,
        this.button("Label", "Set label", "label", () => this.relabel(body.bates, labelInput.value)),
      ),
      body.is_root ? null : this.renderFalsify(body),
    );
  },

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
  },

  /**
   * Falsify: a state, a reason, the button; disabled with the reason shown
   * when the answer cannot be falsified now.
   *
   * @param {any} body
   * @returns {HTMLElement}
   */
  renderFalsify(body) {
    const h = this.h;
    const why = cannotFalsify(body);
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
      canRestore(body)
        ? this.button("Undo falsification", "Undo falsification", "restore", () => this.restore(body.bates), {
            title: "put this revision back in service (recorded as one more event; the falsification stays in the record)",
          })
        : null,
      later ? h("span", { class: "arb-why", attrs: { "aria-label": "Later revision" }, text: later }) : null,
    ]);
    return row;
  },

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
  },

  // --- the requests the actions send ----------------------------------

  /** @param {string} bates */
  async cd(bates) {
    try {
      const result = await this.requester.request("cd", { bates });
      this.store.currentBates = result.current_bates;
      this.renderTree();
      const foreign = this.store.nodes.get(result.current_bates)?.summary?.foreign ?? false;
      this.notify("ok", `${shortBates(result.current_bates, foreign)} is now the current turn: the next new %%ask follow-up goes under it`);
      if (this.selected === bates) this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "cd");
    }
  },

  /**
   * @param {string} bates
   * @param {string} question
   * @param {HTMLInputElement} input
   */
  async fork(bates, question, input) {
    await this.sendQuestion("fork", { bates, question }, bates, input);
  },

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
      this.refreshSearch();
    } catch (error) {
      this.fail(error, "label");
    }
  },

  /**
   * @param {string} bates
   * @param {string} state
   * @param {string} reason
   */
  async falsify(bates, state, reason) {
    try {
      const result = await this.requester.request("falsify", { bates, state, reason });
      this.store.updateSummary(result.bates, result.summary);
      const why = result.state_reason ? { [result.revision]: result.state_reason } : {};
      this.store.restate(result.cache_key, { [result.revision]: result.state }, why);
      this.renderTree();
      const name = shortBates(bates, this.store.nodes.get(bates)?.summary?.foreign ?? false);
      this.notify("ok", `the answer of ${name} (revision ${result.revision}) is now ${result.state}: it will not be served again`, {
        text: "Undo",
        label: "Undo falsification",
        run: () => this.restore(bates),
      });
      this.noticeUndo = { bates, key: result.cache_key }; // offered while the kernel takes it
      this.showDetail(bates, { reveal: false });
      this.refreshSearch();
    } catch (error) {
      this.fail(error, "falsify");
    }
  },

  /**
   * The notice's Undo after the store moved (the question answered again, the answer put
   * back elsewhere): kept only while the kernel would still take it, else said why not.
   *
   * @param {string} bates
   */
  async checkUndo(bates) {
    let body;
    try {
      body = await this.store.body(bates);
    } catch {
      return; // the sync says what went wrong; the undo, if taken, says it again
    }
    if (this.noticeUndo?.bates !== bates || canRestore(body)) return;
    this.noticeUndo = null;
    const later = body.latest_revision;
    const why = body.record?.state === "ok"
      ? "it was put back in service since"
      : later && later.revision !== body.record?.revision
        ? `revision ${later.revision} has answered the question since, so it can no longer be undone`
        : "it can no longer be undone";
    this.notify("ok", `${this.noticeText.textContent} (${why})`);
  },

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
      this.refreshSearch();
    } catch (error) {
      this.fail(error, "undo");
    }
  },
};
