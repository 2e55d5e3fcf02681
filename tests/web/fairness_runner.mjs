// Runs romme/web/js/fairness.js under Node.js for tests/web/test_fairness_port.py.
// Reads a JSON list of calls, [name, args] each, from stdin and writes the list of
// their results as JSON to stdout, in one process for all calls. A name is one of the
// module's exports or `draws`; byte results (seeds) are written in hex.
import * as fairness from '../../romme/web/js/fairness.js';

const helpers = {
  /**
   * `count` numbers below `n` from one ShuffleStream.
   * @param {string} seed
   * @param {number} n
   * @param {number} count
   */
  async draws(seed, n, count) {
    const stream = new fairness.ShuffleStream(seed);
    const values = [];
    for (let i = 0; i < count; i++) values.push(await stream.randbelow(n));
    return values;
  },
};

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
for (const [name, args] of calls) {
  const result = await (helpers[name] ?? fairness[name])(...args);
  results.push(result instanceof Uint8Array ? fairness.bytesToHex(result) : result);
}
process.stdout.write(JSON.stringify(results));
