/**
 * Request/answer over the anywidget model's custom messages
 * (docs/design.md section 6).
 *
 * @module requests
 */

import { jsonBytes } from "./text.js";

/** How long a request may wait for the kernel before the UI reports it. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** How long a probe of the link (after a request timed out on an idle kernel) may wait. */
export const PROBE_TIMEOUT_MS = 3_000;

/** What a view says once its link to the kernel is gone, and how to get it back. */
export const LINK_CLOSED =
  "the link to the kernel closed: re-run the cell that shows this widget (%arborist) to reconnect";

/** What an action says in the notice once the link is gone: the status line says why, once. */
export const NOT_SENT = "not sent: the status line says why";

/** A request the kernel refused or never answered; `message` is one line for the UI. */
export class RequestError extends Error {
  /**
   * @param {string} message
   * @param {string} kind the request's kind
   */
  constructor(message, kind) {
    super(message);
    this.name = "RequestError";
    this.kind = kind;
  }
}

/**
 * Request/answer over an anywidget model's custom messages. Every request
 * carries an id unique to this view (several views of one model all
 * receive every answer), times out, and resolves to the answer's `result`
 * or rejects with a {@link RequestError} carrying the kernel's one-line
 * error. Messages with a `kind` (e.g. `turn_done`) are events for
 * {@link Requester#onEvent} listeners.
 */
export class Requester {
  /**
   * @param {{send: Function, on: Function, off: Function}} model
   * @param {{timeoutMs?: number, prefix?: string}} [options]
   */
  constructor(model, { timeoutMs = REQUEST_TIMEOUT_MS, prefix } = {}) {
    this.model = model;
    this.timeoutMs = timeoutMs;
    this.prefix = prefix ?? `v${Math.random().toString(36).slice(2, 10)}`;
    this.counter = 0;
    /** @type {Map<string, {resolve: Function, reject: Function, timer: any, kind: string}>} */
    this.pending = new Map();
    /** @type {Set<Function>} */
    this.listeners = new Set();
    /** What this view's traffic cost: counted both ways (bench/widget.py reads it). */
    this.stats = { requests: 0, requestBytes: 0, replies: 0, replyBytes: 0 };
    this.closed = false;
    /** Why the link to the kernel is gone (every request then fails at once), or null. */
    this.linkClosed = null;
    /**
     * Asked when a request times out: what the link's state says, `{closed, text}` or null
     * (the view reads the kernel's status; see {@link ForestView#diagnose}).
     *
     * @type {(() => Promise<{closed: boolean, text: string}|null>)|null}
     */
    this.diagnose = null;
    /** @type {(() => void)|null} told once when the link is found closed */
    this.onLinkClosed = null;
    /** @type {((stats: object) => void)|null} called after every request and reply */
    this.onTraffic = null;
    this.handler = (message) => this.receive(message);
    model.on("msg:custom", this.handler);
  }

  /**
   * Send a request; returns its id and a promise of its result.
   *
   * @param {string} kind
   * @param {object} [args]
   * @returns {{id: string, promise: Promise<any>}}
   */
  send(kind, args = {}, { timeoutMs = this.timeoutMs, probe = false } = {}) {
    const id = `${this.prefix}-${++this.counter}`;
    const promise = new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new RequestError("the view is closed", kind));
        return;
      }
      if (this.linkClosed) {
        reject(new RequestError(`${kind}: ${this.linkClosed}`, kind));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (probe) {
          reject(new RequestError(`${kind}: no answer`, kind));
          return;
        }
        this.timedOut(kind).then((text) => reject(new RequestError(text, kind)));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, kind });
      this.stats.requests++;
      try {
        const message = { ...args, id, kind };
        this.stats.requestBytes += jsonBytes(message);
        this.model.send(message);
        this.onTraffic?.(this.stats);
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        if (probe) {
          reject(new RequestError(`${kind}: could not send: ${error?.message ?? error}`, kind));
          return;
        }
        // A message that cannot leave the page ("Cannot send": the comm or the kernel is
        // gone) is a closed link: say why, once, in plain words, and ask no more.
        this.linkGone().then((text) => reject(new RequestError(`${kind}: ${text}`, kind)));
      }
    });
    return { id, promise };
  }

  /**
   * What to say of a request the kernel did not answer in time: a closed link (then every
   * later request fails at once with the same words), a busy kernel, or not known.
   *
   * @param {string} kind
   * @returns {Promise<string>}
   */
  async timedOut(kind) {
    const waited = `${kind}: no answer from the kernel after ${Math.round(this.timeoutMs / 1000)} s`;
    let link = null;
    try {
      link = this.linkClosed ? { closed: true, text: this.linkClosed } : await this.diagnose?.();
    } catch {
      link = null;
    }
    if (link?.closed) {
      this.closeLink(link.text);
      return `${kind}: ${link.text}`;
    }
    return link?.text ? `${waited} (${link.text})` : `${waited} (is it busy or stopped?)`;
  }

  /**
   * A request could not be sent: the link is closed, for the reason the view reads from
   * the kernel's state (a restart, a stopped kernel), else {@link LINK_CLOSED}.
   *
   * @returns {Promise<string>} the words it is closed with
   */
  async linkGone() {
    let link = null;
    try {
      link = this.linkClosed ? null : await this.diagnose?.();
    } catch {
      link = null;
    }
    this.closeLink(link?.closed ? link.text : LINK_CLOSED);
    return this.linkClosed ?? LINK_CLOSED;
  }

  /**
   * The link to the kernel is gone: fail every pending and later request with `text`.
   *
   * @param {string} text
   */
  closeLink(text) {
    if (this.linkClosed) return;
    this.linkClosed = text;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new RequestError(`${waiting.kind}: ${text}`, waiting.kind));
      this.pending.delete(id);
    }
    this.onLinkClosed?.();
  }

  /**
   * Whether the kernel answers a cheap request within `ms`.
   *
   * @param {number} [ms]
   * @returns {Promise<boolean>}
   */
  async ping(ms = PROBE_TIMEOUT_MS) {
    try {
      await this.send("poll", { grafts: [] }, { timeoutMs: ms, probe: true }).promise;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * @param {string} kind
   * @param {object} [args]
   * @returns {Promise<any>} the answer's result
   */
  request(kind, args = {}) {
    return this.send(kind, args).promise;
  }

  /**
   * Handle one custom message from the kernel.
   *
   * @param {unknown} message
   */
  receive(message) {
    if (!message || typeof message !== "object") return;
    if (typeof message.kind === "string") {
      if (message.kind.startsWith("anywidget-")) return;
      for (const listener of this.listeners) listener(message);
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return; // another view's answer, or one that already timed out
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    this.stats.replies++;
    this.stats.replyBytes += jsonBytes(message);
    this.onTraffic?.(this.stats);
    if (message.ok === true) {
      waiting.resolve(message.result);
    } else {
      const text = typeof message.error === "string" ? message.error : "request failed";
      waiting.reject(new RequestError(text, waiting.kind));
    }
  }

  /**
   * @param {(event: object) => void} listener
   * @returns {() => void} unsubscribe
   */
  onEvent(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop listening and reject every pending request. */
  close() {
    this.closed = true;
    this.model.off("msg:custom", this.handler);
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new RequestError("the view is closed", waiting.kind));
      this.pending.delete(id);
    }
    this.listeners.clear();
  }
}

/** How long a poll may go unanswered before the view asks the server for its kernel. */
export const POLL_SILENT_MS = 1_000;

/**
 * Whether the Jupyter server still runs `kernel` (`GET api/kernels/ID`, same origin, with
 * the page's token if it has one): false only on a 404; true or null (not known: no
 * server settings, a network error) otherwise, so a failed check never closes a link.
 *
 * @param {any} kernel a kernel connection (JupyterLab's services), or undefined
 * @returns {Promise<boolean|null>}
 */
export async function kernelOnServer(kernel) {
  const settings = kernel?.serverSettings;
  if (!settings?.baseUrl || !kernel.id || typeof globalThis.fetch !== "function") return null;
  const url = `${settings.baseUrl.replace(/\/?$/, "/")}api/kernels/${encodeURIComponent(kernel.id)}`;
  const headers = settings.token ? { Authorization: `token ${settings.token}` } : {};
  try {
    const response = await globalThis.fetch(url, { headers, cache: "no-store", credentials: "same-origin" });
    return response.status !== 404;
  } catch {
    return null;
  }
}

/** What a restarted, stopped or disconnected kernel means for a widget, in one sentence. */
export const KERNEL_RESTARTED = "the kernel restarted, so this widget lost its kernel side: re-run the cell that shows it (%arborist)";
export const KERNEL_STOPPED = "the kernel stopped or is disconnected: start it again, then re-run the cell that shows this widget (%arborist)";

/**
 * Why `kernel`'s state ends a widget's link, or null while it lives.
 *
 * @param {any} kernel a kernel connection (JupyterLab's services), or undefined
 * @returns {string|null}
 */
export function kernelGone(kernel) {
  if (!kernel) return null;
  if (kernel.status === "restarting" || kernel.status === "autorestarting") return KERNEL_RESTARTED;
  if (kernel.isDisposed || kernel.status === "dead" || kernel.connectionStatus === "disconnected") return KERNEL_STOPPED;
  return null;
}
