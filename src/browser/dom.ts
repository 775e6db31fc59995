// A tiny element builder: the page is a handful of forms and tables, no framework needed.
// Never sets a style attribute (the CSP forbids inline styles); classes and `hidden` only.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

/** One `dt`/`dd` pair of a figures list: a value, and a detail in muted text after it. */
export function figure(term: string, value: string, detail?: string): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, value, detail ? h('span', { class: 'detail' }, ` ${detail}`) : null)];
}

/** Unique ids for label/for pairs. */
let counter = 0;
export const uid = (prefix: string) => `${prefix}-${++counter}`;
