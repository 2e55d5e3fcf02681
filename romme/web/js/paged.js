// @ts-check
// A screen of its own for a list the server gives a page at a time, newest
// first (a player's game history, the chip history): it keeps what was loaded,
// asks for the next page when the player wants older entries, and draws the frame
// these screens share: the way back to the lobby, the title, the language menu,
// the list, an error, and "Loading…" or the button for the next page.

import { t } from './i18n.js';
import { clear, h, languagePicker } from './ui.js';
import { backButton } from './replay/page.js';

/** @import { App } from './types.js' */

/**
 * One page of a list: its entries, and whether older ones follow.
 * @template T
 * @typedef {{items: T[], more: boolean}} Page
 */

/**
 * A subclass says how to fetch the next page (`fetchPage`) and how to draw the
 * list (`render`, through `renderPage`), and calls `loadMore()` once built.
 * @template T
 */
export class PagedScreen {
  /**
   * @param {App} app
   * @param {HTMLElement} root
   */
  constructor(app, root) {
    this.app = app;
    this.root = root;
    /** @type {T[]} */
    this.items = [];
    this.more = false;
    this.loading = false;
    /** @type {string | null} */
    this.error = null;
  }

  destroy() { clear(this.root); }

  /** @param {string} what */
  update(what) { if (what === 'language') this.render(); }

  /**
   * The page after the entries loaded so far.
   * @returns {Promise<Page<T>>}
   */
  fetchPage() { return Promise.reject(new Error('PagedScreen.fetchPage')); }

  render() {}

  /** The next page, added below the entries shown. */
  async loadMore() {
    if (this.loading) return;
    this.loading = true;
    this.render();
    try {
      const page = await this.fetchPage();
      this.items.push(...page.items);
      this.more = page.more;
      this.error = null;
    } catch (err) {
      this.error = this.app.errorText(/** @type {any} */ (err));
    } finally {
      this.loading = false;
      this.render();
    }
  }

  /**
   * Draw the screen: the frame around `content` (the list, or what stands for it).
   * @param {{back: string, title: string, content: Node[], moreId: string, moreText: string}} parts
   *   `back`: the id of the back button; `moreId`, `moreText`: the next page's button
   */
  renderPage({ back, title, content, moreId, moreText }) {
    const header = h('header.topbar',
      backButton(back, () => this.app.openLobby()),
      h('h1.replay-title', title),
      h('div.topbar-right', languagePicker()));
    const body = [...content];
    if (this.error) body.push(h('p.form-error', { role: 'alert' }, this.error));
    if (this.loading) body.push(h('p.muted', t('common.loading')));
    else if (this.more) body.push(h('button', { id: moreId, onclick: () => this.loadMore() }, moreText));
    this.root.replaceChildren(h('div.replay', header, h('section.panel.history', { 'aria-busy': String(this.loading) }, body)));
  }
}
