// @ts-check
// The help page (#/help): the rules in short, the table's controls and the
// keyboard keys. It opens over whatever screen is showing (the entry form, the
// lobby, a running table), so that nothing is lost; closing it goes back.

import { t } from './i18n.js';
import { dialog, h } from './ui.js';
import { KEY_HELP } from './table/keys.js';

/** The rules in the order a new player needs them (docs/rules.md says it all). */
const RULES = ['help.rules_cards', 'help.rules_turn', 'help.rules_melds', 'help.rules_opening',
  'help.rules_joker', 'help.rules_out', 'help.rules_end', 'help.rules_knock'];
/** What the table's buttons and gestures do. */
const CONTROLS = ['help.controls_draw', 'help.controls_arrange', 'help.controls_lay',
  'help.controls_discard', 'help.controls_hint'];

/** @type {{close: () => void} | null} */
let open = null;
/** Whether the page was reached from another screen of the app (then closing goes back). */
let cameFromApp = false;

/**
 * The "?" button that opens the help page, for every screen's header.
 * @param {string} id
 */
export function helpButton(id) {
  return h('button.ghost.help-link', { id, type: 'button', onclick: () => { location.hash = '#/help'; },
    'data-i18n-label': 'help.button', 'data-i18n-title': 'help.button' }, '?');
}

/** Show the page for `#/help`, close it for any other address. */
export function followHelpRoute() {
  if (location.hash === '#/help') { showHelp(); return; }
  cameFromApp = true;
  if (open) { const o = open; open = null; o.close(); }
}

function showHelp() {
  if (open) return;
  /** @param {string} title @param {string[]} keys @param {string} id */
  const section = (title, keys, id) => h('section.help-section', { id },
    h('h3', t(title)), h('ul', keys.map((k) => h('li', t(k)))));
  const body = h('div.help-body',
    section('help.rules_title', RULES, 'help-rules'),
    section('help.controls_title', CONTROLS, 'help-controls'),
    section('keys.title', KEY_HELP, 'help-keys'),
    h('p.hint-text', t('help.more')),
    h('div.dialog-buttons', h('button.primary', { id: 'help-close', onclick: () => dlg.close() }, t('common.close'))));
  const dlg = dialog(t('help.title'), body, {
    className: 'help',
    onClose: () => {
      if (open === null) return; // closed by a change of address
      open = null;
      // Back to where the help was opened from; a help page opened by its own
      // address goes to the start.
      if (location.hash === '#/help') {
        if (cameFromApp) history.back(); else location.hash = '#/lobby';
      }
    },
  });
  open = dlg;
}
