// What the web client puts on `window` for the browser tests (tests/web) to read.
// Only for the type check of romme/web/js (tsconfig.json); not served.

interface Window {
  /** The app's state (romme/web/js/main.js). */
  __romme: import('../romme/web/js/types.js').App;
  /** The table screen while it is shown (romme/web/js/table/screen.js). */
  __rommeTable: import('../romme/web/js/table/screen.js').TableScreen;
  /** Text keys asked for that no catalog holds (romme/web/js/i18n.js). */
  __rommeMissingKeys: Set<string>;
}
