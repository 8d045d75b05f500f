/**
 * Text-only DOM building. Answers and documents come from models and files:
 * they are only ever written with `textContent` / text nodes, never parsed
 * as HTML. {@link makeH} refuses `innerHTML` and event-handler attributes
 * outright.
 *
 * Every text they write is shown {@link inert}: a control character in a model's
 * answer, a question or a document's title reads as its escape (`\x1b`), as in the
 * `%%ask` output, instead of an empty box.
 *
 * @module dom
 */

import { inert } from "./text.js";

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

/** Attributes a reader is shown (a tooltip, what a screen reader says): inert too. */
const SHOWN_ATTRIBUTES = new Set(["title", "aria-label"]);

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
        el.textContent = inert(value);
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
          if (v === undefined || v === null || v === false) continue;
          el.setAttribute(name, SHOWN_ATTRIBUTES.has(name) ? inert(v) : String(v));
        }
      } else if (key === "on") {
        for (const [event, listener] of Object.entries(value)) {
          el.addEventListener(event, listener);
        }
      } else if (key === "title") {
        el.title = inert(value);
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
export function append(doc, el, children) {
  const stack = [...children].reverse();
  while (stack.length) {
    const child = stack.pop();
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) {
      for (let i = child.length - 1; i >= 0; i--) stack.push(child[i]);
    } else if (typeof child === "string" || typeof child === "number") {
      el.appendChild(doc.createTextNode(inert(child)));
    } else {
      el.appendChild(child);
    }
  }
}
