// Small sounds made on the spot with Web Audio (no sound files): a card's
// swish, a chime when it is your turn, a little fanfare for a won round.
// The audio starts only after the player's first click or key, as browsers ask.

const KEY = 'romme.sound';
let ctx = null;
let enabled = localStorage.getItem(KEY) !== 'off';

function wake() {
  if (!ctx) {
    try { ctx = new AudioContext(); } catch { ctx = null; return; }
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
}
for (const type of ['pointerdown', 'keydown']) window.addEventListener(type, wake, { passive: true });

export function soundOn() { return enabled; }
export function setSound(on) {
  enabled = on;
  localStorage.setItem(KEY, on ? 'on' : 'off');
}

function tone(freq, start, length, gain = 0.08, type = 'sine') {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

function swish(start) {
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
  source.connect(filter).connect(amp).connect(ctx.destination);
  source.start(start);
}

export function play(kind) {
  if (!enabled || !ctx || ctx.state !== 'running') return;
  const now = ctx.currentTime;
  if (kind === 'card') swish(now);
  else if (kind === 'turn') { tone(660, now, 0.18); tone(880, now + 0.12, 0.25); }
  else if (kind === 'win') [523, 659, 784, 1047].forEach((f, i) => tone(f, now + i * 0.11, 0.3, 0.07, 'triangle'));
  else if (kind === 'end') { tone(392, now, 0.25, 0.06, 'triangle'); tone(330, now + 0.2, 0.35, 0.06, 'triangle'); }
}
