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
 * HTML; URIs are shown, never linked. {@link makeH} refuses `innerHTML` and
 * event-handler attributes outright.
 *
 * Everything above the "view" section is pure and tested in Node
 * (`js/test/widget.test.js`); the view is exercised by the browser tests.
 *
 * @module widget
 */

import { fromHex, leafHash, toHex, utf8 } from "./hashing.js";
import { verifyInclusion } from "./merkle.js";

/** How long a request may wait for the kernel before the UI reports it. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** Rows the first refresh may open on its own before leaving nodes collapsed. */
export const AUTO_EXPAND_ROWS = 150;

/** Most nodes named in one `expand` request (the kernel accepts more). */
export const EXPAND_BATCH = 500;

/**
 * Listeners that make Enter in a text box run `action` itself. A host page
 * may swallow the key before a form's implicit submission (JupyterLab's
 * notebook does), so the widget never relies on it; and the key stops here,
 * so the notebook does not act on it too.
 *
 * @param {() => void} action
 * @returns {{keydown: (event: KeyboardEvent) => void}}
 */
export function onEnter(action) {
  return {
    keydown: (event) => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      event.stopPropagation();
      action();
    },
  };
}

/** States a record can be falsified to (FALSIFIED_STATES in arborist/store/cache.py). */
export const FALSIFY_STATES = Object.freeze(["failed", "stale", "quarantined"]);

// ----------------------------------------------------------------- text ----

/**
 * Split an answer into plain text and citations `[E# | title | uri]`,
 * following the reading rule of `arborist/qa/citations.py`: a bracket with
 * no `[`, `]` or newline inside; first part `E` + 1..6 digits (leading zeros
 * dropped); three or more parts: last is the URI, the middle the title; one
 * part: the short form `[E1]`; two parts is not a citation.
 *
 * @param {string} text
 * @returns {Array<{type: "text", text: string} |
 *   {type: "citation", label: string, title: string, uri: string, raw: string}>}
 */
export function splitCitations(text) {
  const out = [];
  const source = typeof text === "string" ? text : "";
  const bracket = /\[([^[\]\n]*)\]/g;
  let last = 0;
  for (const match of source.matchAll(bracket)) {
    const parts = match[1].split("|");
    const label = /^E([0-9]{1,6})$/.exec(parts[0].trim());
    if (!label || parts.length === 2) continue;
    if (match.index > last) out.push({ type: "text", text: source.slice(last, match.index) });
    out.push({
      type: "citation",
      label: `E${Number.parseInt(label[1], 10)}`,
      title: parts.length === 1 ? "" : parts.slice(1, -1).join("|").trim(),
      uri: parts.length === 1 ? "" : parts[parts.length - 1].trim(),
      raw: match[0],
    });
    last = match.index + match[0].length;
  }
  if (last < source.length) out.push({ type: "text", text: source.slice(last) });
  return out;
}

/**
 * First `n` characters of a hash, for display (the full hash is in a title).
 *
 * @param {string|null|undefined} hash
 * @param {number} [n=12]
 * @returns {string}
 */
export function shortHash(hash, n = 12) {
  return typeof hash === "string" ? hash.slice(0, n) : "";
}

/**
 * How a row names a node: its seq in the viewer's session, else its bates.
 *
 * @param {string} bates
 * @param {{seq?: number, foreign?: boolean}|null|undefined} summary
 * @returns {string}
 */
export function nodeName(bates, summary) {
  if (summary && !summary.foreign && Number.isInteger(summary.seq)) {
    return String(summary.seq).padStart(6, "0");
  }
  return bates;
}

/**
 * UTF-8 length of a message as JSON: what a reply cost on the wire.
 *
 * @param {unknown} message
 * @returns {number}
 */
export function jsonBytes(message) {
  return new TextEncoder().encode(JSON.stringify(message) ?? "").length;
}

// ------------------------------------------------------------------ DOM ----

const FORBIDDEN_PROPS = new Set(["innerHTML", "outerHTML", "srcdoc", "insertAdjacentHTML"]);
const DIRECT_PROPS = new Set([
  "value",
  "type",
  "disabled",
  "hidden",
  "placeholder",
  "checked",
  "selected",
  "open",
  "name",
  "title",
]);

/**
 * `data-fooBar` -> `data-foo-bar`.
 *
 * @param {string} key
 * @returns {string}
 */
function dataAttribute(key) {
  return `data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * A tiny element builder bound to `doc` that can only make text: strings
 * become text nodes, `text` sets `textContent`, and HTML-parsing properties
 * (`innerHTML`, ...) and event-handler attributes (`on*`) throw. Listeners
 * are attached with `on: {click: fn}`.
 *
 * @param {Document} doc
 * @returns {(tag: string, props?: object|null, ...children: unknown[]) => HTMLElement}
 */
export function makeH(doc) {
  return function h(tag, props, ...children) {
    const el = doc.createElement(tag);
    for (const [key, value] of Object.entries(props ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      if (FORBIDDEN_PROPS.has(key) || (key !== "on" && /^on/i.test(key))) {
        throw new Error(`makeH: refusing ${key} (text only, listeners via "on")`);
      }
      if (key === "text") {
        el.textContent = String(value);
      } else if (key === "class") {
        el.setAttribute("class", String(value));
      } else if (key === "dataset") {
        for (const [name, v] of Object.entries(value)) {
          if (v !== undefined && v !== null) el.setAttribute(dataAttribute(name), String(v));
        }
      } else if (key === "attrs") {
        for (const [name, v] of Object.entries(value)) {
          if (/^on/i.test(name) || FORBIDDEN_PROPS.has(name)) {
            throw new Error(`makeH: refusing attribute ${name}`);
          }
          if (v !== undefined && v !== null && v !== false) el.setAttribute(name, String(v));
        }
      } else if (key === "on") {
        for (const [event, listener] of Object.entries(value)) {
          el.addEventListener(event, listener);
        }
      } else if (DIRECT_PROPS.has(key)) {
        el[key] = value;
      } else {
        el.setAttribute(key, String(value));
      }
    }
    append(doc, el, children);
    return el;
  };
}

/**
 * Append children (nested arrays flattened; strings and numbers as text
 * nodes; null, undefined and false skipped).
 *
 * @param {Document} doc
 * @param {Node} el
 * @param {unknown[]} children
 */
function append(doc, el, children) {
  const stack = [...children].reverse();
  while (stack.length) {
    const child = stack.pop();
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) {
      for (let i = child.length - 1; i >= 0; i--) stack.push(child[i]);
    } else if (typeof child === "string" || typeof child === "number") {
      el.appendChild(doc.createTextNode(String(child)));
    } else {
      el.appendChild(child);
    }
  }
}

// ------------------------------------------------------------- requests ----

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
    this.stats = { requests: 0, replies: 0, replyBytes: 0 };
    this.closed = false;
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
  send(kind, args = {}) {
    const id = `${this.prefix}-${++this.counter}`;
    const promise = new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new RequestError("the view is closed", kind));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new RequestError(
            `${kind}: no answer from the kernel after ${Math.round(this.timeoutMs / 1000)} s (is it busy or stopped?)`,
            kind,
          ),
        );
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, kind });
      this.stats.requests++;
      try {
        this.model.send({ ...args, id, kind });
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new RequestError(`${kind}: could not send: ${error?.message ?? error}`, kind));
      }
    });
    return { id, promise };
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

// ---------------------------------------------------------------- store ----

/**
 * What the view knows of the forest, and the walk that keeps it in sync.
 *
 * Per node: `hash` (the latest subtree_hash seen, the one `summary` belongs
 * to), `children` (bates, or null if never fetched) and `childrenHash`
 * (the subtree_hash those children were fetched at). A node needs a fetch
 * when it is expanded and `childrenHash !== hash`; everything else is
 * reused. Bodies are cached by node hash (a bates never changes its
 * node_hash; bookkeeping such as hit counts is refreshed by
 * {@link ForestStore#invalidateBodies}).
 */
export class ForestStore {
  /**
   * @param {(kind: string, args: object) => Promise<any>} request
   * @param {{autoExpandRows?: number}} [options]
   */
  constructor(request, { autoExpandRows = AUTO_EXPAND_ROWS } = {}) {
    this.request = request;
    /** @type {Map<string, {bates: string, hash: string|null, summary: object|null,
     *   children: string[]|null, childrenHash: string|null}>} */
    this.nodes = new Map();
    this.expanded = new Set();
    this.sid = null;
    this.label = null;
    this.rootBates = null;
    this.currentBates = null;
    this.nextSeq = null;
    this.eventSeq = null;
    this.storeSeq = null;
    this.turns = 0;
    /** @type {Array<{bates: string, parent_bates: string}>} */
    this.grafts = [];
    this.seenGrafts = new Set();
    /** @type {Map<string, object>} node_hash -> body */
    this.bodies = new Map();
    /** @type {Map<string, string>} bates -> node_hash */
    this.bodyHash = new Map();
    this.autoExpandBudget = autoExpandRows;
    this.synced = false;
    this._syncing = null;
    this._again = false;
  }

  /**
   * @param {string} bates
   * @returns {{bates: string, hash: string|null, summary: object|null,
   *   children: string[]|null, childrenHash: string|null}}
   */
  node(bates) {
    let node = this.nodes.get(bates);
    if (!node) {
      node = { bates, hash: null, summary: null, children: null, childrenHash: null };
      this.nodes.set(bates, node);
    }
    return node;
  }

  /**
   * Whether an expanded node's children must be (re)fetched.
   *
   * @param {string} bates
   * @returns {boolean}
   */
  stale(bates) {
    const node = this.nodes.get(bates);
    return !node || node.children === null || node.childrenHash !== node.hash;
  }

  /**
   * Bring the view up to date. Concurrent calls share one walk; a call
   * made during a walk runs one more walk after it.
   *
   * @returns {Promise<void>}
   */
  sync() {
    if (this._syncing) {
      this._again = true;
      return this._syncing;
    }
    this._syncing = (async () => {
      try {
        do {
          this._again = false;
          await this.syncOnce();
        } while (this._again);
      } finally {
        this._syncing = null;
      }
    })();
    return this._syncing;
  }

  /** One walk: the roots, then every changed, expanded node, level by level. */
  async syncOnce() {
    const known = {};
    for (const graft of this.grafts) {
      const node = this.nodes.get(graft.bates);
      if (node?.summary && node.hash) known[graft.bates] = node.hash;
    }
    this.applyRoots(await this.request("roots", { known, since: this.eventSeq }));
    const tops = [this.rootBates, ...this.grafts.map((g) => g.bates)];
    await this.descend(tops.filter((b) => this.expanded.has(b) && this.stale(b)));
    this.synced = true;
    this.autoExpandBudget = 0; // only the first refresh opens nodes on its own
  }

  /**
   * Apply a `roots` answer. Renames change no hash, so they come apart:
   * `relabelled` holds every node renamed since the chain head this view
   * saw last (`event_seq`).
   *
   * @param {{sid: string, label: string|null, root_bates: string, root_hash: string,
   *   current_bates: string, next_seq: number, turns: number, event_seq?: number,
   *   store_seq?: number,
   *   relabelled?: Record<string, string|null>,
   *   grafts: Array<{bates: string, parent_bates: string, subtree_hash: string, summary?: object}>}} r
   */
  applyRoots(r) {
    this.sid = r.sid;
    this.label = r.label ?? null;
    this.rootBates = r.root_bates;
    this.currentBates = r.current_bates;
    this.nextSeq = r.next_seq;
    this.turns = r.turns ?? this.turns;
    this.eventSeq = r.event_seq ?? this.eventSeq;
    if (r.store_seq !== undefined && r.store_seq !== this.storeSeq) {
      // A record changed state (falsified, evicted, rehydrated): bodies hold records.
      if (this.storeSeq !== null) this.invalidateBodies();
      this.storeSeq = r.store_seq;
    }
    const renamed = Object.entries(r.relabelled ?? {});
    for (const [bates, label] of renamed) {
      const node = this.nodes.get(bates);
      if (node?.summary) node.summary = { ...node.summary, label };
    }
    if (renamed.length) this.invalidateBodies();
    this.node(r.root_bates).hash = r.root_hash;
    this.expanded.add(r.root_bates); // the synthetic root is never a row: always open
    this.grafts = r.grafts.map((g) => {
      const node = this.node(g.bates);
      node.hash = g.subtree_hash;
      if (g.summary) node.summary = g.summary;
      if (!this.seenGrafts.has(g.bates)) {
        this.seenGrafts.add(g.bates);
        this.expanded.add(g.bates);
      }
      return { bates: g.bates, parent_bates: g.parent_bates };
    });
  }

  /**
   * The `expand` request for `frontier`: for each requested node the hash
   * its children were fetched at, for each child it holds the hash its
   * summary belongs to (so the kernel can leave unchanged ones out).
   *
   * @param {string[]} frontier
   * @returns {{known: Record<string, string>, bates: string[]}}
   */
  expandRequest(frontier) {
    const known = {};
    const asked = new Set(frontier);
    for (const bates of frontier) {
      const node = this.nodes.get(bates);
      if (!node) continue;
      if (node.children !== null && node.childrenHash) known[bates] = node.childrenHash;
      for (const child of node.children ?? []) {
        if (asked.has(child)) continue;
        const held = this.nodes.get(child);
        if (held?.summary && held.hash) known[child] = held.hash;
      }
    }
    return { known, bates: frontier };
  }

  /**
   * Fetch the children of `frontier` and keep going down into every
   * expanded child that changed, one request per level.
   *
   * @param {string[]} frontier
   */
  async descend(frontier) {
    let level = [...new Set(frontier)];
    while (level.length) {
      const next = [];
      for (let i = 0; i < level.length; i += EXPAND_BATCH) {
        const batch = level.slice(i, i + EXPAND_BATCH);
        const request = this.expandRequest(batch);
        const reply = await this.request("expand", request);
        next.push(...this.applyExpand(reply, request.known));
      }
      level = [...new Set(next)];
    }
  }

  /**
   * Apply an `expand` answer; returns the expanded children that need a fetch.
   * A child answered as `{bates}` alone is unchanged: its hash is the one
   * this view declared in `known`.
   *
   * @param {{nodes: Record<string, {subtree_hash: string,
   *   children: Array<{bates: string, subtree_hash?: string, summary?: object}>}>,
   *   missing?: string[]}} reply
   * @param {Record<string, string>} [known] the hashes the request declared
   * @returns {string[]}
   */
  applyExpand(reply, known = {}) {
    const next = [];
    for (const [bates, entry] of Object.entries(reply.nodes ?? {})) {
      const node = this.node(bates);
      node.hash = entry.subtree_hash;
      node.childrenHash = entry.subtree_hash;
      node.children = entry.children.map((c) => c.bates);
      if (node.summary) node.summary = { ...node.summary, n_children: node.children.length };
      for (const child of entry.children) {
        const seen = this.nodes.has(child.bates);
        const held = this.node(child.bates);
        held.hash = child.subtree_hash ?? known[child.bates] ?? held.hash;
        if (child.summary) held.summary = child.summary;
        if (!seen && held.summary) this.openNew(held);
        if (this.expanded.has(child.bates)) next.push(child.bates);
      }
    }
    for (const bates of reply.missing ?? []) this.nodes.delete(bates);
    // Judged after the whole answer: a child may have been answered in it too.
    return next.filter((bates) => this.stale(bates));
  }

  /**
   * A node seen for the first time: a leaf is open (its children are known
   * to be none, and a turn added under it will show at once); a node with
   * children opens while the first refresh's row budget lasts.
   *
   * @param {{bates: string, hash: string|null, summary: object|null,
   *   children: string[]|null, childrenHash: string|null}} node
   */
  openNew(node) {
    const count = node.summary?.n_children ?? 0;
    if (count === 0) {
      node.children = [];
      node.childrenHash = node.hash;
      this.expanded.add(node.bates);
    } else if (this.autoExpandBudget >= count) {
      this.autoExpandBudget -= count;
      this.expanded.add(node.bates);
    }
  }

  /**
   * Open a node (fetching its children if needed, and any expanded,
   * changed descendants below them).
   *
   * @param {string} bates
   */
  async expand(bates) {
    this.expanded.add(bates);
    if (this.stale(bates)) await this.descend([bates]);
  }

  /** @param {string} bates */
  collapse(bates) {
    if (bates !== this.rootBates) this.expanded.delete(bates);
  }

  /**
   * Open every ancestor of a node that lies in this session's tree, in one
   * request. `path` is the node's ancestors, top first (the body's `path`).
   * Returns false when the node is not in this session's tree (a turn of
   * another session that was never grafted onto).
   *
   * @param {string[]} path
   * @returns {Promise<boolean>}
   */
  async reveal(path) {
    const tops = new Set([this.rootBates, ...this.grafts.map((g) => g.bates)]);
    const start = path.findIndex((b) => tops.has(b));
    if (start < 0) return false;
    const chain = path.slice(start);
    for (const bates of chain) this.expanded.add(bates);
    await this.descend(chain.filter((b) => this.stale(b)));
    return true;
  }

  /**
   * Whether a poll answer shows something this view does not hold.
   *
   * @param {{root_hash: string, next_seq: number, current_bates: string,
   *   graft_hashes: Record<string, string>, event_seq?: number, store_seq?: number}} p
   * @returns {boolean}
   */
  pollChanged(p) {
    if (!this.rootBates) return true;
    if (p.root_hash !== this.nodes.get(this.rootBates)?.hash) return true;
    if (p.next_seq !== this.nextSeq || p.current_bates !== this.currentBates) return true;
    if (p.event_seq !== undefined && p.event_seq !== this.eventSeq) return true;
    if (p.store_seq !== undefined && p.store_seq !== this.storeSeq) return true;
    return this.grafts.some((g) => p.graft_hashes?.[g.bates] !== this.nodes.get(g.bates)?.hash);
  }

  /**
   * A node's summary after a rename (the label is not in any hash, so the
   * walk would not bring it).
   *
   * @param {string} bates
   * @param {object} summary
   */
  updateSummary(bates, summary) {
    const node = this.nodes.get(bates);
    if (node) node.summary = summary;
    this.invalidateBodies();
  }

  /**
   * A node's body: question, answer, record, evidence with proofs.
   *
   * @param {string} bates
   * @returns {Promise<object>}
   */
  async body(bates) {
    const hash = this.bodyHash.get(bates);
    if (hash && this.bodies.has(hash)) return this.bodies.get(hash);
    const body = await this.request("body", { bates });
    this.bodyHash.set(bates, body.node_hash);
    this.bodies.set(body.node_hash, body);
    return body;
  }

  /** Forget cached bodies (hit counts, states and labels change outside any hash). */
  invalidateBodies() {
    this.bodies.clear();
    this.bodyHash.clear();
  }

  /**
   * The visible rows, in order: the root's subtree, then each graft.
   *
   * @returns {Array<{bates: string, level: number, parent: string|null,
   *   expandable: boolean, expanded: boolean, graftOf: string|null,
   *   posinset: number, setsize: number, summary: object|null}>}
   */
  rows() {
    const rows = [];
    const row = (bates, level, parent, graftOf, posinset, setsize) => {
      const node = this.nodes.get(bates);
      const count = node?.children ? node.children.length : (node?.summary?.n_children ?? 0);
      return {
        bates,
        level,
        parent,
        expandable: count > 0,
        expanded: count > 0 && this.expanded.has(bates),
        graftOf,
        posinset,
        setsize,
        summary: node?.summary ?? null,
      };
    };
    const walk = (tops, graftOf) => {
      // Iterative depth-first walk: a 10,000-turn chain must not overflow the stack.
      const stack = [];
      for (let i = tops.length - 1; i >= 0; i--) {
        stack.push([tops[i], 1, null, i === 0 ? graftOf : null, i + 1, tops.length]);
      }
      while (stack.length) {
        const [bates, level, parent, graft, pos, size] = stack.pop();
        const r = row(bates, level, parent, graft, pos, size);
        rows.push(r);
        const kids = this.nodes.get(bates)?.children;
        if (r.expanded && kids) {
          for (let i = kids.length - 1; i >= 0; i--) {
            stack.push([kids[i], level + 1, bates, null, i + 1, kids.length]);
          }
        }
      }
    };
    const root = this.rootBates ? this.nodes.get(this.rootBates) : null;
    if (root?.children) walk(root.children, null);
    for (const graft of this.grafts) walk([graft.bates], graft.parent_bates);
    return rows;
  }
}

// ----------------------------------------------------------- keyboard ----

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

// -------------------------------------------------------------- proofs ----

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
    if (ok) return { status: "pass", text: "proof verified in this browser" };
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

// ---------------------------------------------------------------- view ----

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
    this.store = new ForestStore((kind, args) => this.requester.request(kind, args));
    this.selected = null;
    this.focusBates = null;
    this.detailToken = 0;
    this.rowEls = new Map();
    /** @type {Map<string, string>} fork request id -> parent bates */
    this.forks = new Map();
    this.pollTimer = null;
    this.polling = false;
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
      this.resultsEl,
      h("div", { class: "arb-main" }, this.treeEl, this.detailEl),
    );
    this.el.appendChild(this.rootEl);
    this.renderEmptyDetail();
  }

  /** Start syncing, polling and listening; returns the cleanup function. */
  start() {
    this.listen("change:revision", () => {
      this.store.invalidateBodies();
      this.rootEl.setAttribute("data-revision", String(this.model.get("revision")));
      this.refresh();
    });
    this.listen("change:root_hash", () => this.refresh());
    this.listen("change:graft_hashes", () => this.refresh());
    this.listen("change:current_bates", () => {
      this.store.currentBates = this.model.get("current_bates");
      this.renderTree();
    });
    this.listen("change:selected_bates", () => {
      const bates = this.model.get("selected_bates");
      if (bates && bates !== this.selected) this.select(bates);
    });
    this.listen("change:poll_ms", () => this.startPolling());
    this.listen("change:title", () => {
      this.titleEl.textContent = this.model.get("title") || this.model.get("sid");
    });
    this.disposers.push(this.requester.onEvent((event) => this.onEvent(event)));
    this.refresh().then(() => {
      if (this.destroyed) return;
      const target = this.model.get("selected_bates") || this.store.currentBates;
      if (target && target !== this.store.rootBates) this.select(target, { save: false });
    });
    this.startPolling();
    return () => this.destroy();
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
   * @param {unknown} error
   * @param {string} [what]
   */
  fail(error, what = "") {
    if (this.destroyed) return;
    const text = error?.message ?? String(error);
    this.setStatus("error", what ? `${what}: ${text}` : text);
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
          this.setForkStatus("done", `answered: ${event.bates}`);
          this.setStatus("ok", `answered: ${event.bates}${event.hit ? " (cache hit)" : ""}`);
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
    const elements = rows.map((r) => {
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
          },
          on: {
            click: () => {
              this.focusBates = r.bates;
              this.select(r.bates);
            },
          },
        },
        toggle,
        r.graftOf
          ? h("span", { class: "arb-graft", text: `grafted at ${r.graftOf}` })
          : null,
        h("span", { class: "arb-name", text: nodeName(r.bates, s) }),
        h("span", { class: "arb-question", text: s.question ?? "…" }),
        s.audit_mode
          ? h("span", {
              class: "arb-badge arb-audit",
              dataset: { auditMode: s.audit_mode },
              text: s.audit_mode,
            })
          : null,
        s.label ? h("span", { class: "arb-label", text: `(${s.label})` }) : null,
        foreign ? h("span", { class: "arb-from", text: `[from ${s.sid}]` }) : null,
        r.bates === current ? h("span", { class: "arb-current", text: "● current" }) : null,
      );
      el.style?.setProperty?.("--arb-level", String(r.level));
      this.rowEls.set(r.bates, el);
      return el;
    });
    if (!elements.length) {
      elements.push(
        h("p", { class: "arb-empty", text: "No turns yet: ask with %%ask, or fork from a node." }),
      );
    }
    this.treeEl.replaceChildren(...elements);
    this.treeEl.setAttribute("data-rows", String(rows.length));
    if (hadFocus && focus) this.rowEls.get(focus)?.focus?.();
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
    if (move.action === "select" && move.focus) {
      this.select(move.focus, { reveal: false });
    }
    this.renderTree();
    this.rowEls.get(move.focus)?.focus?.();
    this.rowEls.get(move.focus)?.scrollIntoView?.({ block: "nearest" });
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
        this.renderTree();
        this.rowEls.get(bates)?.scrollIntoView?.({ block: "nearest" });
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
    const h = this.h;
    const record = body.record;
    const evidence = record?.evidence ?? [];
    const byLabel = new Map(evidence.map((item) => [item.label, item]));
    const detail = this.detailEl;
    detail.setAttribute("data-loading", "false");
    detail.setAttribute("data-bates", body.bates);
    detail.setAttribute("data-state", record?.state ?? (body.is_root ? "root" : "none"));
    detail.setAttribute("data-served", body.served ?? "");
    detail.setAttribute("data-proofs", evidence.length ? "pending" : "none");

    const cited = h("blockquote", {
      class: "arb-cited",
      attrs: { "aria-label": "Cited text" },
      hidden: true,
    });
    const showCitation = (label) => {
      const item = byLabel.get(label);
      cited.hidden = false;
      cited.setAttribute("data-citation", label);
      cited.replaceChildren(
        h("div", { class: "arb-cited-head", text: item ? `${label} · ${item.title} · ${item.uri}` : label }),
        h("div", {
          class: "arb-cited-text",
          text: item
            ? (item.text ?? "(cold: this chunk's text is not held in the store)")
            : `${label} is not in this answer's evidence`,
        }),
      );
    };

    const answer = h(
      "div",
      { class: "arb-answer", attrs: { "aria-label": "Answer" } },
      splitCitations(body.answer_text).map((part) =>
        part.type === "text"
          ? part.text
          : h("button", {
              type: "button",
              class: "arb-cite",
              text: `[${part.label}${part.title ? ` | ${part.title}` : ""}]`,
              title: part.uri,
              attrs: { "aria-label": `Show cited text ${part.label}${part.title ? `: ${part.title}` : ""}` },
              dataset: { citation: part.label },
              on: { click: () => showCitation(part.label) },
            }),
      ),
    );

    const proofEls = [];
    const evidenceList = h(
      "ol",
      { class: "arb-evidence", attrs: { "aria-label": "Evidence" } },
      evidence.map((item) => {
        const status = h("span", {
          class: "arb-proof",
          attrs: { "aria-label": `Proof of ${item.label}` },
          dataset: { proof: "pending" },
          text: "verifying…",
        });
        const li = h(
          "li",
          { dataset: { evidence: item.label, proof: "pending", cited: String(Boolean(item.cited)), tier: item.tier } },
          h("span", { class: "arb-ev-label", text: item.label }),
          " ",
          h("span", { class: "arb-ev-title", text: item.title }),
          " ",
          h("span", { class: "arb-ev-uri", text: item.uri }),
          " ",
          h("span", {
            class: "arb-ev-chunk",
            text: `chunk ${item.chunk_index + 1}/${item.chunk_count}`,
          }),
          " ",
          status,
          h(
            "details",
            { class: "arb-ev-more" },
            h("summary", { text: "text and proof" }),
            h("div", { class: "arb-ev-text", text: item.text ?? "(cold: text not held)" }),
            h("div", { class: "arb-hash", text: `source_root ${item.source_root}` }),
            h("div", { class: "arb-hash", text: `leaf ${item.leaf}` }),
            h("div", { class: "arb-hash", text: `proof [${(item.proof ?? []).join(", ")}]` }),
          ),
        );
        proofEls.push([li, status, item]);
        return li;
      }),
    );

    // Sources other turns cited together with this answer's (co-access; untrusted text).
    const related = body.related ?? [];
    const relatedList = h(
      "ul",
      { class: "arb-related", attrs: { "aria-label": "Related sources" } },
      related.map((item) =>
        h(
          "li",
          { dataset: { related: item.leaf, tier: item.tier } },
          h("span", { class: "arb-rel-score", text: item.freq_score.toFixed(2) }),
          " ",
          h("span", { class: "arb-ev-title", text: item.title }),
          " ",
          h("span", { class: "arb-ev-uri", text: item.uri }),
          " ",
          h("span", { class: "arb-ev-chunk", text: `chunk ${item.chunk_index + 1}` }),
          item.text
            ? h(
                "details",
                { class: "arb-ev-more" },
                h("summary", { text: "text" }),
                h("div", { class: "arb-ev-text", text: item.text }),
              )
            : null,
        ),
      ),
    );

    const dims = h(
      "dl",
      { class: "arb-dims", attrs: { "aria-label": "Cache key dimensions" } },
      h("dt", { text: "cache_key" }),
      h("dd", { class: "arb-hash", text: body.cache_key || "—" }),
      Object.entries(record?.dimensions ?? {}).map(([name, value]) => [
        h("dt", { text: name }),
        h("dd", { class: "arb-hash", dataset: { dimension: name }, text: value === "" ? "(empty)" : value }),
      ]),
    );

    const facts = h(
      "dl",
      { class: "arb-facts", attrs: { "aria-label": "Node facts" } },
      [
        ["bates", body.bates],
        ["parent", body.parent ?? "—"],
        ["created", body.created_at],
        ["node_hash", body.node_hash],
        ["subtree_hash", body.subtree_hash],
        ["cited", (body.cited_titles ?? []).join("; ") || "—"],
        ["served", body.served ?? "—"],
        [
          "first answered",
          body.first_answered
            ? `${body.first_answered.created_at}${body.first_answered.bates ? ` by ${body.first_answered.bates}` : ""} (revision ${body.first_answered.revision})`
            : "—",
        ],
        ["hits", record ? String(record.hit_count) : "—"],
      ].map(([name, value]) => [h("dt", { text: name }), h("dd", { text: value })]),
    );

    const stateText = record
      ? `${record.state}${record.state_reason ? `: ${record.state_reason}` : ""}`
      : (body.record_error ?? (body.is_root ? "session root" : "no record"));

    // Actions.
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
      placeholder: "ask a question under this turn…",
      attrs: { "aria-label": "Fork question" },
      on: onEnter(() => this.fork(body.bates, forkInput.value, forkInput)),
    });
    const labelInput = h("input", {
      type: "text",
      class: "arb-input",
      value: body.label ?? "",
      attrs: { "aria-label": "Label" },
      on: onEnter(() => this.relabel(body.bates, labelInput.value)),
    });
    const stateSelect = h(
      "select",
      { class: "arb-input", attrs: { "aria-label": "Falsify as" } },
      FALSIFY_STATES.map((state) => h("option", { value: state, text: state })),
    );
    const reasonInput = h("input", {
      type: "text",
      class: "arb-input",
      placeholder: "why is this answer wrong?",
      attrs: { "aria-label": "Falsification reason" },
      on: onEnter(() => {
        if (record?.state === "ok") this.falsify(body.bates, stateSelect.value, reasonInput.value);
      }),
    });
    const button = (text, label, action, onClick, disabled = false) =>
      h("button", {
        type: "button",
        class: "arb-button",
        text,
        disabled,
        attrs: { "aria-label": label },
        dataset: { action },
        on: { click: onClick },
      });
    const actions = h(
      "div",
      { class: "arb-actions", attrs: { role: "group", "aria-label": "Actions" } },
      h(
        "div",
        { class: "arb-action" },
        button("cd here", "Make this the current node", "cd", () => this.cd(body.bates)),
        body.bates === (this.model.get("current_bates") || this.store.currentBates)
          ? h("span", { class: "arb-current", text: "● current" })
          : null,
      ),
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
          class: "arb-button",
          text: "Ask here",
          attrs: { "aria-label": "Ask under this node" },
          dataset: { action: "fork" },
        }),
        this.forkStatusEl,
      ),
      h(
        "div",
        { class: "arb-action" },
        labelInput,
        button("Label", "Set label", "label", () => this.relabel(body.bates, labelInput.value)),
      ),
      body.is_root
        ? null
        : h(
            "div",
            { class: "arb-action" },
            stateSelect,
            reasonInput,
            button(
              "Falsify",
              "Falsify answer",
              "falsify",
              () => this.falsify(body.bates, stateSelect.value, reasonInput.value),
              !record || record.state !== "ok",
            ),
          ),
    );

    // replaceChildren would print null and arrays as text: append() skips and flattens them.
    detail.replaceChildren();
    append(
      this.doc,
      detail,
      [
      h(
        "div",
        { class: "arb-detail-head" },
        h("code", { class: "arb-bates", text: body.bates }),
        body.audit_mode && !body.is_root
          ? h("span", {
              class: "arb-badge arb-audit",
              dataset: { auditMode: body.audit_mode },
              text: body.audit_mode,
            })
          : null,
        record
          ? h("span", {
              class: "arb-badge arb-state",
              dataset: { state: record.state },
              text: record.state,
            })
          : null,
        body.served
          ? h("span", { class: "arb-badge arb-served", dataset: { served: body.served }, text: body.served })
          : null,
        body.label ? h("span", { class: "arb-label", text: `(${body.label})` }) : null,
        body.foreign ? h("span", { class: "arb-from", text: `[from ${body.sid}]` }) : null,
      ),
      inTree
        ? null
        : h("p", {
            class: "arb-note",
            text: `In session ${body.sid}, outside this tree: cd here, then ask, to graft onto it.`,
          }),
      body.is_root
        ? h("p", { class: "arb-note", text: "The session's root: fork here to start a new branch." })
        : [
            h("h4", { text: "Question" }),
            h("p", { class: "arb-question-full", attrs: { "aria-label": "Question" }, text: body.question }),
            h("h4", { text: "Answer" }),
            answer,
            cited,
            h("h4", { text: "Evidence" }),
            evidence.length ? evidenceList : h("p", { class: "arb-note", text: "No evidence." }),
            related.length ? [h("h4", { text: "Related sources" }), relatedList] : null,
            h("h4", { text: "Falsification state" }),
            h("p", {
              class: "arb-state-text",
              attrs: { "aria-label": "Falsification state" },
              dataset: { state: record?.state ?? "none" },
              text: stateText,
            }),
            h("h4", { text: "Cache key" }),
            dims,
          ],
      h("h4", { text: "Node" }),
      facts,
      actions,
      ],
    );

    // Re-verify every proof here, with WebCrypto; never trust the kernel's word.
    Promise.all(
      proofEls.map(async ([li, status, item]) => {
        const result = await verifyEvidence(item);
        if (token === this.detailToken) {
          li.setAttribute("data-proof", result.status);
          status.setAttribute("data-proof", result.status);
          status.textContent = result.text;
        }
        return result;
      }),
    ).then((results) => {
      if (token === this.detailToken && results.length) {
        detail.setAttribute("data-proofs", proofVerdict(results));
      }
    });
  }

  // --- actions -----------------------------------------------------------

  /** @param {string} bates */
  async cd(bates) {
    try {
      const result = await this.requester.request("cd", { bates });
      this.store.currentBates = result.current_bates;
      this.renderTree();
      this.setStatus("ok", `current node: ${result.current_bates}`);
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
      this.setStatus("ok", `labelled ${result.bates} ${result.label}`);
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
      this.store.invalidateBodies();
      this.setStatus("ok", `${result.cache_key.slice(0, 12)}… is now ${result.state}`);
      this.showDetail(bates, { reveal: false });
    } catch (error) {
      this.fail(error, "falsify");
    }
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
          ? result.hits.map((hit) =>
              h(
                "li",
                {},
                h(
                  "button",
                  {
                    type: "button",
                    class: "arb-hit",
                    attrs: { "aria-label": `Open ${hit.bates}` },
                    dataset: { bates: hit.bates, sid: hit.sid, foreign: String(hit.foreign) },
                    on: { click: () => this.select(hit.bates) },
                  },
                  h("span", { class: "arb-name", text: nodeName(hit.bates, hit) }),
                  h("span", { class: "arb-question", text: hit.question }),
                  hit.foreign ? h("span", { class: "arb-from", text: `[from ${hit.sid}]` }) : null,
                  h("span", { class: "arb-snippet", text: hit.snippet }),
                ),
              ),
            )
          : [h("li", { class: "arb-empty", text: "no turn matches" })]),
      );
    } catch (error) {
      this.fail(error, "find");
    }
  }
}

/**
 * anywidget entry point.
 *
 * @param {{model: any, el: HTMLElement}} context
 * @returns {() => void} cleanup
 */
function render({ model, el }) {
  return new ForestView(model, el).start();
}

export default { render };
