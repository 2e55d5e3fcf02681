// @ts-check
// Small sounds made on the spot with Web Audio (no sound files): a card's
// swish, a chime when it is your turn, a little fanfare for a won round.
// The audio starts only after the player's first click or key, as browsers ask.

const KEY = 'romme.sound';
const VOLUME_KEY = 'romme.volume';
/** Made on the first click or key (browsers allow audio only after one). @type {AudioContext | null} */
let ctx = null;
/** Every sound goes through it: the player's volume. @type {GainNode | null} */
let master = null;
let enabled = localStorage.getItem(KEY) !== 'off';
const saved = Number(localStorage.getItem(VOLUME_KEY) ?? '0.8');
let volume = Number.isFinite(saved) ? Math.max(0, Math.min(1, saved)) : 0.8;

function wake() {
  if (!ctx) {
    try { ctx = new AudioContext(); } catch { ctx = null; return; }
    master = ctx.createGain();
    master.gain.value = volume;
    master.connect(ctx.destination);
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
}
for (const type of ['pointerdown', 'keydown']) window.addEventListener(type, wake, { passive: true });

export function soundOn() { return enabled; }
/** The volume, 0 to 1. */
export function soundVolume() { return volume; }
/** @param {number} value 0 to 1 */
export function setVolume(value) {
  volume = Math.max(0, Math.min(1, value));
  localStorage.setItem(VOLUME_KEY, String(volume));
  if (master) master.gain.value = volume;
}
/** @param {boolean} on */
export function setSound(on) {
  enabled = on;
  localStorage.setItem(KEY, on ? 'on' : 'off');
}

/**
 * @param {AudioContext} ctx
 * @param {number} freq
 * @param {number} start
 * @param {number} length
 * @param {number} [gain]
 * @param {OscillatorType} [type]
 */
function tone(ctx, freq, start, length, gain = 0.08, type = 'sine') {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(master ?? ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/**
 * @param {AudioContext} ctx
 * @param {number} start
 */
function swish(ctx, start) {
  const length = 0.09;
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 2;
  const source = ctx.createBufferSource();
  const filter = ctx.createBiquadFilter();
  const amp = ctx.createGain();
  source.buffer = buffer;
  filter.type = 'bandpass';
  filter.frequency.value = 2400;
  amp.gain.value = 0.25;
  source.connect(filter).connect(amp).connect(master ?? ctx.destination);
  source.start(start);
}

/** @param {'card' | 'turn' | 'win' | 'end' | 'tick'} kind */
export function play(kind) {
  const c = ctx;
  if (!enabled || !c || c.state !== 'running') return;
  const now = c.currentTime;
  if (kind === 'card') swish(c, now);
  else if (kind === 'turn') { tone(c, 660, now, 0.18); tone(c, 880, now + 0.12, 0.25); }
  else if (kind === 'win') [523, 659, 784, 1047].forEach((f, i) => tone(c, f, now + i * 0.11, 0.3, 0.07, 'triangle'));
  else if (kind === 'tick') tone(c, 1250, now, 0.06, 0.07, 'square');
  else if (kind === 'end') { tone(c, 392, now, 0.25, 0.06, 'triangle'); tone(c, 330, now + 0.2, 0.35, 0.06, 'triangle'); }
}
