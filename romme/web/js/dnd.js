// @ts-check
// Drag and drop for the hand, on pointer events (mouse, pen and touch alike).
//
// A press on a hand card that moves more than a few pixels lifts the card: a
// ghost follows the pointer, the hand opens a gap where the card would land,
// and any element marked [data-drop] under the pointer lights up. Letting go
// over a drop target calls onDrop; over the hand, onReorder; elsewhere the card
// flies back. A press without movement is a click (onTap).
//
// From the press to the release the hand is held (`holding`): its owner must not
// rebuild the hand's cards meanwhile (the indexes the hooks get are those of the
// cards as they were pressed), and redraws the hand in onIdle. The drop target is
// the one under the pointer when the card is let go, so that targets drawn anew
// during the drag (the answer to the move before came) take the card.

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
 * @property {() => void} [onIdle] the press is over (a tap, a drop, a drag let go or cancelled)
 */

/** @typedef {{index: number, key: string | undefined, card: HTMLElement, x: number, y: number, id: number}} Press */
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

/**
 * The drop target under a point, if any (the ghost lets the pointer through).
 * @param {number} x
 * @param {number} y
 */
function targetAt(x, y) {
  const under = document.elementFromPoint(x, y);
  const over = under ? under.closest('[data-drop]') : null;
  return over instanceof HTMLElement ? over : null;
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

  /** A card is pressed or dragged: the hand's cards must stay as they are. */
  get holding() { return this.press !== null || this.drag !== null; }

  /** The card being dragged (its data-index), or null. */
  get draggedIndex() { return this.drag ? this.drag.index : null; }

  /** @param {PointerEvent} e */
  down(e) {
    if (e.button !== 0 || this.press || this.drag) return;
    const card = cardOf(e);
    if (!card || !this.hand.contains(card)) return;
    const index = Number(card.dataset.index);
    // No text selection and no native drag may start from a card.
    if (e.pointerType === 'mouse') e.preventDefault();
    this.press = { index, key: card.dataset.key, card, x: e.clientX, y: e.clientY, id: e.pointerId };
    window.addEventListener('pointermove', this.move, { passive: false });
    window.addEventListener('pointerup', this.up);
    window.addEventListener('pointercancel', this.cancel);
  }

  /** @param {Press} press */
  start(press) {
    // The hand was drawn anew under the press (a change of language): the same card's new element.
    if (!press.card.isConnected && press.key !== undefined) {
      const again = this.hand.querySelector(`[data-key="${CSS.escape(press.key)}"]`);
      if (again instanceof HTMLElement) { press.card = again; press.index = Number(again.dataset.index); }
    }
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
    const target = targetAt(e.clientX, e.clientY);
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
      this.hooks.onIdle?.();
      return;
    }
    const { index, insertAt } = d;
    // The target under the pointer now: the one the last move lit may have been drawn anew.
    const target = targetAt(e.clientX, e.clientY);
    // Read the target's data before onEnd clears the drop marks.
    const data = target ? { ...target.dataset } : null;
    this.finish(!target && insertAt === null);
    if (data) this.hooks.onDrop?.(index, data);
    else if (insertAt !== null) this.hooks.onReorder?.(index, insertAt);
    this.hooks.onIdle?.();
  }

  cancel() {
    if (!this.press) return;
    this.unlisten();
    if (this.drag) this.finish(true); else this.press = null;
    this.hooks.onIdle?.();
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
