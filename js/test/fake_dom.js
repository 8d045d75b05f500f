/**
 * A small DOM for tests that build elements with makeH: text nodes, attributes,
 * children, listeners; enough for the view and the Markdown writer.
 */

export class FakeNode {
  constructor(doc) {
    this.ownerDocument = doc;
    this.childNodes = [];
    this.parentNode = null;
  }

  appendChild(child) {
    child.parentNode?.removeChildNode(child);
    child.parentNode = this;
    this.childNodes.push(child);
    return child;
  }

  removeChildNode(child) {
    this.childNodes = this.childNodes.filter((c) => c !== child);
    child.parentNode = null;
  }

  remove() {
    this.parentNode?.removeChildNode(this);
  }

  replaceChildren(...nodes) {
    for (const child of this.childNodes) child.parentNode = null;
    this.childNodes = [];
    for (const node of nodes) this.appendChild(node);
  }

  contains(node) {
    for (let at = node; at; at = at.parentNode) if (at === this) return true;
    return false;
  }

  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }

  set textContent(value) {
    this.replaceChildren();
    if (value !== "") this.appendChild(new FakeText(this.ownerDocument, String(value)));
  }

  descendants() {
    const out = [];
    const stack = [...this.childNodes].reverse();
    while (stack.length) {
      const node = stack.pop();
      if (node instanceof FakeElement) out.push(node);
      stack.push(...[...node.childNodes].reverse());
    }
    return out;
  }

  find(predicate) {
    return this.descendants().filter(predicate);
  }

  byAttr(name, value) {
    return this.find((n) => (value === undefined ? n.getAttribute(name) !== null : n.getAttribute(name) === value));
  }
}

export class FakeText extends FakeNode {
  constructor(doc, data) {
    super(doc);
    this.data = data;
  }

  get textContent() {
    return this.data;
  }

  set textContent(value) {
    this.data = String(value);
  }
}

export class FakeElement extends FakeNode {
  constructor(doc, tag) {
    super(doc);
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.listeners = new Map();
    this.style = { props: {}, setProperty: (k, v) => (this.style.props[k] = v) };
    this.hidden = false;
    this.value = "";
  }

  set innerHTML(_value) {
    throw new Error("innerHTML must never be used");
  }

  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  addEventListener(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(listener);
  }

  removeEventListener(type, listener) {
    this.listeners.set(type, (this.listeners.get(type) ?? []).filter((l) => l !== listener));
  }

  dispatch(type, extra = {}) {
    const event = {
      type,
      target: this,
      defaultPrevented: false,
      stopped: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
      stopPropagation() {
        this.stopped = true;
      },
      ...extra,
    };
    for (let at = this; at && !event.stopped; at = at.parentNode) {
      for (const listener of at.listeners?.get(type) ?? []) listener(event);
    }
    return event;
  }

  focus() {
    this.ownerDocument.activeElement = this;
  }

  scrollIntoView() {}
}

export class FakeDocument {
  constructor() {
    this.activeElement = null;
    this.visibilityState = "visible";
  }

  createElement(tag) {
    return new FakeElement(this, tag);
  }

  createTextNode(text) {
    return new FakeText(this, text);
  }
}
