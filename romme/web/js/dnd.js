// @ts-check
// Drag and drop for the hand, on pointer events (mouse, pen and touch alike).
//
// A press on a hand card that moves more than a few pixels lifts the card: a
// ghost follows the pointer, the hand opens a gap where the card would land,
// and any element marked [data-drop] under the pointer lights up. Letting go
// over a drop target calls onDrop; over the hand, onReorder; elsewhere the card
// flies back. A press without movement is a click (onTap).

const THRESHOLD = 6;

/**
 * What the hand's owner does at each step; `i` is the dragged card's data-index.
 * @typedef {object} DragHooks
 * @property {(i: number) => boolean} [canDrag]
 * @property {(i: number) => void} [onStart]
 * @property {(i: number, insertAt: number | null, target: HTMLElement | null) => void} [onMove]
 * @property {() => void} [onEnd]
 * @property {(i: number, target: DOMStringMap) => void} [onDrop] the drop target's data attributes
 * @property {(from: number, to: number) => void} [onReorder]
 * @property {(i: number, how: 'pointer' | 'keyboard') => void} [onTap]
 * @property {(clientX: number, clientY: number) => number | null} [insertionIndex]
 */

/** @typedef {{index: number, card: HTMLElement, x: number, y: number, id: number}} Press */
/**
 * @typedef {{index: number, card: HTMLElement, ghost: HTMLElement, dx: number, dy: number,
 *   target: HTMLElement | null, insertAt: number | null}} Drag
 */

/**
 * The card element under an event's target, if any.
 * @param {Event} e
 */
function cardOf(e) {
  const card = e.target instanceof Element ? e.target.closest('[data-index]') : null;
  return card instanceof HTMLElement ? card : null;
}

export class HandDrag {
  /**
   * @param {HTMLElement} hand  the hand container; its cards carry data-index
   * @param {DragHooks} hooks
   */
  constructor(hand, hooks) {
    this.hand = hand;
    this.hooks = hooks;
    /** A press on a card that has not moved far enough to be a drag. @type {Press | null} */
    this.press = null;
    /** @type {Drag | null} */
    this.drag = null;
    hand.addEventListener('pointerdown', (e) => this.down(e));
    hand.addEventListener('click', (e) => {
      // Keyboard "click" (Enter / Space on a focused card button): a real
      // pointer press is handled in up(), so ignore clicks it produced.
      if (e.detail !== 0) return;
      const card = cardOf(e);
      if (card) this.hooks.onTap?.(Number(card.dataset.index), 'keyboard');
    });
    this.move = this.move.bind(this);
    this.up = this.up.bind(this);
    this.cancel = this.cancel.bind(this);
  }

  get active() { return this.drag !== null; }

  /** @param {PointerEvent} e */
  down(e) {
    if (e.button !== 0 || this.press || this.drag) return;
    const card = cardOf(e);
    if (!card || !this.hand.contains(card)) return;
    const index = Number(card.dataset.index);
    // No text selection and no native drag may start from a card.
    if (e.pointerType === 'mouse') e.preventDefault();
    this.press = { index, card, x: e.clientX, y: e.clientY, id: e.pointerId };
    window.addEventListener('pointermove', this.move, { passive: false });
    window.addEventListener('pointerup', this.up);
    window.addEventListener('pointercancel', this.cancel);
  }

  /** @param {Press} press */
  start(press) {
    const { card, index } = press;
    if (this.hooks.canDrag && !this.hooks.canDrag(index)) return false;
    const rect = card.getBoundingClientRect();
    const ghost = /** @type {HTMLElement} */ (card.cloneNode(true));
    ghost.classList.add('drag-ghost');
    ghost.removeAttribute('data-index');
    ghost.removeAttribute('id');
    Object.assign(ghost.style, {
      position: 'fixed', left: `${rect.left}px`, top: `${rect.top}px`,
      width: `${card.offsetWidth}px`, height: `${card.offsetHeight}px`,
      transform: 'rotate(0deg) scale(1.08)', margin: '0', zIndex: '1000', pointerEvents: 'none',
    });
    document.body.append(ghost);
    card.classList.add('dragging');
    document.body.classList.add('is-dragging');
    this.drag = {
      index, card, ghost,
      dx: press.x - rect.left, dy: press.y - rect.top,
      target: null, insertAt: null,
    };
    this.hooks.onStart?.(index);
    return true;
  }

  /** @param {PointerEvent} e */
  move(e) {
    const press = this.press;
    if (!press || e.pointerId !== press.id) return;
    if (!this.drag) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < THRESHOLD) return;
      if (!this.start(press)) { this.reset(); return; }
    }
    e.preventDefault();
    const d = /** @type {Drag} */ (this.drag);
    d.ghost.style.left = `${e.clientX - d.dx}px`;
    d.ghost.style.top = `${e.clientY - d.dy}px`;
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const over = under ? under.closest('[data-drop]') : null;
    const target = over instanceof HTMLElement ? over : null;
    if (target !== d.target) {
      d.target?.classList.remove('drop-over');
      target?.classList.add('drop-over');
      // Over a target the ghost turns see-through, so that it never hides the
      // target (the arrow at a sequence's high end lies where the card hangs).
      d.ghost.classList.toggle('over-target', !!target);
      d.target = target;
    }
    d.insertAt = target ? null : (this.hooks.insertionIndex?.(e.clientX, e.clientY) ?? null);
    this.hooks.onMove?.(d.index, d.insertAt, target);
  }

  /** @param {PointerEvent} e */
  up(e) {
    if (!this.press || e.pointerId !== this.press.id) return;
    const press = this.press;
    const d = this.drag;
    this.unlisten();
    if (!d) {
      this.press = null;
      this.hooks.onTap?.(press.index, 'pointer');
      return;
    }
    const { index, target, insertAt } = d;
    // Read the target's data before onEnd clears the drop marks.
    const data = target ? { ...target.dataset } : null;
    this.finish(!target && insertAt === null);
    if (data) this.hooks.onDrop?.(index, data);
    else if (insertAt !== null) this.hooks.onReorder?.(index, insertAt);
  }

  cancel() {
    if (!this.press) return;
    this.unlisten();
    if (this.drag) this.finish(true); else this.press = null;
  }

  /** @param {boolean} flyBack the card was dropped nowhere: its ghost flies back */
  finish(flyBack) {
    const d = this.drag;
    if (!d) return;
    d.target?.classList.remove('drop-over');
    const ghost = d.ghost;
    if (flyBack && d.card.isConnected) {
      const rect = d.card.getBoundingClientRect();
      ghost.style.transition = 'left .18s ease-out, top .18s ease-out, transform .18s';
      ghost.style.left = `${rect.left}px`;
      ghost.style.top = `${rect.top}px`;
      ghost.style.transform = 'none';
      setTimeout(() => ghost.remove(), 190);
    } else {
      ghost.remove();
    }
    d.card.classList.remove('dragging');
    document.body.classList.remove('is-dragging');
    this.drag = null;
    this.press = null;
    this.hooks.onEnd?.();
  }

  reset() {
    this.unlisten();
    this.press = null;
  }

  unlisten() {
    window.removeEventListener('pointermove', this.move);
    window.removeEventListener('pointerup', this.up);
    window.removeEventListener('pointercancel', this.cancel);
  }
}
