// @ts-check
// Lists that change a little at a time (the lobby's tables, the running games) are
// brought up to date item by item, as a keyed list in any view library is: an item
// whose data did not change keeps its element, so a button under the pointer or
// with the keyboard's focus stays where it is, and the browser lays out only what
// changed. With a thousand players in the lobby a table changes several times a
// second; redrawing every card on each change would flicker and steal focus.

/** @typedef {{ signature: string, element: Element }} Entry */

/** @type {WeakMap<Element, Map<string, Entry>>} */
const entriesOf = new WeakMap();

/**
 * Make `box`'s children the elements for `items`, in that order. An item whose key
 * and signature are those of an element shown before keeps that element; any other
 * is built. Elements already in place are not moved (moving one would take its focus).
 * @template T
 * @param {Element} box
 * @param {T[]} items
 * @param {(item: T) => string} key which item this is (a table's id)
 * @param {(item: T) => string} signature everything `build` reads, as a string
 * @param {(item: T) => Element} build
 */
export function keyedList(box, items, key, signature, build) {
  const before = entriesOf.get(box) ?? new Map();
  /** @type {Map<string, Entry>} */
  const after = new Map();
  const elements = items.map((item) => {
    const id = key(item);
    const sig = signature(item);
    const kept = before.get(id);
    const element = kept && kept.signature === sig ? kept.element : build(item);
    after.set(id, { signature: sig, element });
    return element;
  });
  entriesOf.set(box, after);
  const wanted = new Set(elements);
  for (const child of [...box.children]) if (!wanted.has(child)) child.remove();
  elements.forEach((element, index) => {
    const here = box.children[index] ?? null;
    if (here !== element) box.insertBefore(element, here);
  });
}

/** @type {WeakMap<Element, string>} */
const drawnFrom = new WeakMap();

/**
 * Whether `box` was last drawn from the same `signature`; if not, the new one is
 * kept and the caller draws. A panel redrawn while the player presses one of its
 * buttons would lose the click (the press and the release land on two different
 * elements), so a panel whose content did not change is left alone.
 * @param {Element} box
 * @param {string} signature everything the panel shows, as a string
 */
export function drawnAlready(box, signature) {
  if (drawnFrom.get(box) === signature) return true;
  drawnFrom.set(box, signature);
  return false;
}
