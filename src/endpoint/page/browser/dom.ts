/**
 * Building DOM nodes. Text always goes in as text nodes and attributes through `setAttribute`,
 * so nothing from a record is ever parsed as HTML.
 */

/** What can be a child: a node, text (added as a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Attributes to set; `undefined` and `false` skip one, `true` sets it empty. */
export type Attrs = Record<string, string | number | boolean | undefined>;

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

function setAttrs(element: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
}

/** An HTML element with a class (may be empty), attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  setAttrs(element, attrs);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children. */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  setAttrs(element, attrs);
  append(element, children);
  return element;
}

/** Replaces every child of `parent` with `children`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** The URL when it is `http:` or `https:` (safe to link to), else `undefined`. */
export function webUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
