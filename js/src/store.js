/**
 * What a view knows of the forest, and the walk by `subtree_hash` that keeps
 * it in sync (docs/design.md section 6). Pure: tested in Node against a fake
 * kernel that answers as `arborist/_faces/sync.py` does.
 *
 * @module store
 */

/** Rows one `expand` may bring beyond the requested nodes' children: a first screen,
 * or a whole deep chain, in one reply instead of one request per level. */
export const AUTO_EXPAND_ROWS = 150;

/** A line of single-child turns longer than this shows as its ends and one "more" row. */
export const RUN_MIN = 6;

/** Turns of a collapsed line shown before and after its "more" row. */
export const RUN_ENDS = 2;

/** Most nodes named in one `expand` request (the kernel accepts more). */
export const EXPAND_BATCH = 500;

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
    /** @type {Map<string, Promise<object>>} bates -> a body request on its way */
    this.pendingBodies = new Map();
    this.rowBudget = autoExpandRows;
    /** Nodes the reader closed: a refresh never reopens them. */
    this.closedByUser = new Set();
    /** Lines of turns the reader opened whole (keyed by the turn above the line). */
    this.openRuns = new Set();
    /** @type {Map<string, string>} bates -> parent bates, for the nodes held */
    this.parents = new Map();
    /** The turn a first sync opens the way to (the view's selection); null: the current turn. */
    this.openFirst = null;
    this.synced = false;
    /** @type {Set<string>|null} cache-key prefixes the last sync's walks moved (null: any) */
    this.touchedKeys = null;
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
    // What moved is told over every walk of this call (a walk asked for during it runs
    // after), so a caller who saw the first walk's answer change is told of it too.
    this.touchedKeys = new Set();
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

  /**
   * One walk: the roots, then every changed, expanded node, level by level.
   * A first walk also opens the way to the current turn (or {@link ForestStore#openFirst})
   * in its first `expand` (`reveal`), so the view shows it, however deep, without
   * waiting for its body's path: roots, expand, body is the whole first screen.
   */
  async syncOnce() {
    const known = {};
    for (const graft of this.grafts) {
      const node = this.nodes.get(graft.bates);
      if (node?.summary && node.hash) known[graft.bates] = node.hash;
    }
    const first = !this.synced;
    const applied = this.applyRoots(await this.request("roots", { known, since: this.eventSeq, store_since: this.storeSeq }));
    if (!applied) {
      const tops = [this.rootBates, ...this.grafts.map((g) => g.bates)];
      const target = first ? (this.openFirst ?? this.currentBates) : null;
      const reveal = target && !tops.includes(target) ? target : null;
      await this.descend(tops.filter((b) => this.expanded.has(b) && this.stale(b)), { reveal });
    }
    this.synced = true;
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
    const delta = this.synced && Array.isArray(r.added);
    this.sid = r.sid;
    this.label = r.label ?? null;
    this.rootBates = r.root_bates;
    this.currentBates = r.current_bates;
    this.nextSeq = r.next_seq;
    this.turns = r.turns ?? this.turns;
    this.eventSeq = r.event_seq ?? this.eventSeq;
    // Answers falsified or marked stale since (changing no hash): their rows show it now.
    for (const [prefix, states] of Object.entries(r.restated ?? {})) {
      this.restate(prefix, states, r.restated_reasons?.[prefix] ?? {});
    }
    // The cache keys this answer says moved: restated, or asked again by an added turn
    // (a new revision, a hit). Null when it cannot tell (a walk by hashes, too many).
    const walk = delta && r.restated
      ? [...Object.keys(r.restated), ...r.added.map((a) => a.summary?.cache_key).filter(Boolean)]
      : null;
    this.touchedKeys = walk && this.touchedKeys ? new Set([...this.touchedKeys, ...walk]) : null;
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
    if (delta) for (const added of r.added) this.addTurn(added);
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
    if (delta) {
      // The added turns are in place: the tops' children lists are current at their new hashes.
      for (const top of [r.root_bates, ...this.grafts.map((g) => g.bates)]) {
        const node = this.nodes.get(top);
        if (node?.children) node.childrenHash = node.hash;
      }
    }
    return delta;
  }

  /**
   * Put one turn added since the last sync under its parent, when the view
   * holds the parent (a turn elsewhere is not in this tree, or under a part
   * never fetched). The parent's ancestors' hashes are now out of date: they
   * are forgotten (`null`), so a later walk by hashes asks for them again.
   * Idempotent: a turn already held is left alone.
   *
   * @param {{bates: string, parent_bates: string, subtree_hash: string, summary: object}} added
   */
  addTurn(added) {
    const parent = this.nodes.get(added.parent_bates);
    if (!parent || this.nodes.get(added.bates)?.summary) return;
    const node = this.node(added.bates);
    node.hash = added.subtree_hash;
    node.summary = added.summary;
    node.children = [];
    node.childrenHash = node.hash;
    this.expanded.add(added.bates);
    this.parents.set(added.bates, added.parent_bates);
    if (parent.children) {
      parent.children.push(added.bates);
      parent.childrenHash = null;
    }
    if (parent.summary) {
      const count = parent.children ? parent.children.length : (parent.summary.n_children ?? 0) + 1;
      parent.summary = { ...parent.summary, n_children: count };
    }
    for (let up = added.parent_bates; up; up = this.parents.get(up)) {
      const held = this.nodes.get(up);
      if (!held) break;
      held.hash = null;
      held.childrenHash = null;
    }
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
   * expanded child that changed, one request per level. With `reveal`, the
   * first request also asks for the ancestors of that turn (the kernel finds
   * them): the nodes whose children come open, so the turn shows.
   *
   * @param {string[]} frontier
   * @param {{reveal?: string|null}} [options]
   */
  async descend(frontier, { reveal = null } = {}) {
    let level = [...new Set(frontier)];
    while (level.length) {
      const next = [];
      for (let i = 0; i < level.length; i += EXPAND_BATCH) {
        const batch = level.slice(i, i + EXPAND_BATCH);
        const request = { ...this.expandRequest(batch), budget: this.rowBudget };
        if (reveal) request.reveal = reveal;
        reveal = null;
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
        const seen = this.nodes.get(child.bates)?.summary;
        const held = this.node(child.bates);
        this.parents.set(child.bates, bates);
        held.hash = child.subtree_hash ?? known[child.bates] ?? held.hash;
        if (child.summary) held.summary = child.summary;
        if (!seen && held.summary) this.openNew(held, child.bates in (reply.nodes ?? {}));
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
   * children opens when its children came in the same reply (the kernel
   * spent its row budget on them), unless the reader closed it.
   *
   * @param {{bates: string, hash: string|null, summary: object|null,
   *   children: string[]|null, childrenHash: string|null}} node
   * @param {boolean} fetched whether the reply also holds its children
   */
  openNew(node, fetched) {
    const count = node.summary?.n_children ?? 0;
    if (count === 0) {
      node.children = [];
      node.childrenHash = node.hash;
      this.expanded.add(node.bates);
    } else if (fetched && !this.closedByUser.has(node.bates)) {
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
    if (bates.startsWith("run:")) {
      this.openRuns.add(bates.slice(4));
      return;
    }
    this.expanded.add(bates);
    this.closedByUser.delete(bates);
    if (this.stale(bates)) await this.descend([bates]);
  }

  /** @param {string} bates */
  collapse(bates) {
    if (bates.startsWith("run:")) {
      this.openRuns.delete(bates.slice(4));
    } else if (bates !== this.rootBates) {
      this.expanded.delete(bates);
      this.closedByUser.add(bates);
    }
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
    // One request for a body asked for twice at once (the open pane and the notice's undo).
    const pending = this.pendingBodies.get(bates);
    if (pending) return pending;
    const asked = this.request("body", { bates }).then(
      (body) => {
        if (this.pendingBodies.get(bates) === asked) {
          this.pendingBodies.delete(bates);
          this.bodyHash.set(bates, body.node_hash);
          this.bodies.set(body.node_hash, body);
        }
        return body;
      },
      (error) => {
        if (this.pendingBodies.get(bates) === asked) this.pendingBodies.delete(bates);
        throw error;
      },
    );
    this.pendingBodies.set(bates, asked);
    return asked;
  }

  /**
   * Every held row whose answer is `cacheKey` shows the state of the revision it showed
   * (a falsify changes no hash, so no walk would bring it); `ok` shows nothing. A later
   * revision's state never reaches a row that showed an earlier one.
   *
   * @param {string} cacheKey the full key, or the prefix a summary carries
   * @param {Record<string, string>} states revision -> state now
   * @param {Record<string, string>} [reasons] revision -> why it is out of service
   */
  restate(cacheKey, states, reasons = {}) {
    for (const node of this.nodes.values()) {
      const summary = node.summary;
      if (!summary || !cacheKey.startsWith(summary.cache_key ?? "\u0000")) continue;
      const state = states[String(summary.revision)];
      if (state === undefined) continue;
      const reason = reasons[String(summary.revision)];
      if (state === "ok" && !summary.state) continue;
      if (state === summary.state && (reason === undefined || reason === summary.state_reason)) continue;
      // A reason held for another state must never stay beside this one.
      const { state: _was, state_reason: _why, ...rest } = summary;
      node.summary = state === "ok" ? rest : { ...rest, state, ...(reason ? { state_reason: reason } : {}) };
    }
  }

  /**
   * Whether the last sync may have changed the answer under cache key ``key`` (its state,
   * a later revision): what decides whether an open turn's body is read again.
   *
   * @param {string|null|undefined} key a full cache key
   * @returns {boolean}
   */
  touched(key) {
    if (this.touchedKeys === null) return true;
    return Boolean(key) && [...this.touchedKeys].some((prefix) => key.startsWith(prefix));
  }

  /** Forget cached bodies (hit counts, states and labels change outside any hash). */
  invalidateBodies() {
    this.bodies.clear();
    this.bodyHash.clear();
    this.pendingBodies.clear(); // an answer on its way may be older than the change
  }

  /**
   * The line of single-child turns that starts at `start`: each turn but the
   * last is open and has exactly one child, which is the next.
   *
   * @param {string} start
   * @returns {string[]}
   */
  lineFrom(start) {
    const line = [start];
    for (let at = start; ; ) {
      const kids = this.nodes.get(at)?.children;
      if (!kids || kids.length !== 1 || !this.expanded.has(at)) return line;
      at = kids[0];
      line.push(at);
    }
  }

  /**
   * The visible rows, in order: the root's subtree, then each graft.
   *
   * `level` is a row's depth (for assistive technology); `indent` is how far
   * it is drawn in: a turn that is its parent's only child continues its
   * parent's line at the same indent, so a deep conversation reads down the
   * page instead of running off to the right. A line longer than
   * {@link RUN_MIN} shows its first and last {@link RUN_ENDS} turns around
   * one `run` row that opens it whole.
   *
   * @returns {Array<{bates: string, level: number, indent: number, parent: string|null,
   *   expandable: boolean, expanded: boolean, graftOf: string|null, run?: number,
   *   posinset: number, setsize: number, summary: object|null}>}
   */
  rows() {
    const rows = [];
    const row = (bates, level, indent, parent, graftOf, posinset, setsize) => {
      const node = this.nodes.get(bates);
      const count = node?.children ? node.children.length : (node?.summary?.n_children ?? 0);
      return {
        bates,
        level,
        indent,
        parent,
        expandable: count > 0,
        expanded: count > 0 && this.expanded.has(bates),
        graftOf,
        posinset,
        setsize,
        follows: setsize === 1 && parent !== null,
        summary: node?.summary ?? null,
      };
    };
    // Iterative depth-first walk: a 10,000-turn chain must not overflow the stack.
    const stack = [];
    const pushKids = (bates, level, indent) => {
      const kids = this.nodes.get(bates)?.children ?? [];
      const step = kids.length === 1 ? 0 : 1;
      for (let i = kids.length - 1; i >= 0; i--) {
        stack.push([kids[i], level + 1, indent + step, bates, null, i + 1, kids.length, step === 0]);
      }
    };
    // `inLine`: the turn continues its parent's line (it is an only child), so the line,
    // if long, was collapsed or opened where it began.
    const visit = ([bates, level, indent, parent, graft, pos, size, inLine]) => {
      const r = row(bates, level, indent, parent, graft, pos, size);
      rows.push(r);
      if (!r.expanded) return;
      const kids = this.nodes.get(bates)?.children ?? [];
      const line = kids.length === 1 ? this.lineFrom(kids[0]) : [];
      if (inLine || line.length <= RUN_MIN || this.openRuns.has(bates)) {
        pushKids(bates, level, indent);
        return;
      }
      const shown = (i) => row(line[i], level + 1 + i, indent, i ? line[i - 1] : bates, null, 1, 1);
      for (let i = 0; i < RUN_ENDS; i++) rows.push(shown(i));
      rows.push({
        bates: `run:${bates}`,
        level: level + 1 + RUN_ENDS,
        indent,
        parent: line[RUN_ENDS - 1],
        expandable: true,
        expanded: false,
        graftOf: null,
        run: line.length - 2 * RUN_ENDS,
        posinset: 1,
        setsize: 1,
        summary: null,
      });
      for (let i = line.length - RUN_ENDS; i < line.length; i++) rows.push(shown(i));
      const last = rows[rows.length - 1];
      if (last.expanded) pushKids(last.bates, last.level, indent);
    };
    const walk = (tops, graftOf) => {
      for (let i = tops.length - 1; i >= 0; i--) {
        stack.push([tops[i], 1, 0, null, i === 0 ? graftOf : null, i + 1, tops.length, false]);
      }
      while (stack.length) visit(stack.pop());
    };
    const root = this.rootBates ? this.nodes.get(this.rootBates) : null;
    if (root?.children) walk(root.children, null);
    for (const graft of this.grafts) walk([graft.bates], graft.parent_bates);
    return rows;
  }
}
