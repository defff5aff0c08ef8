// Sounds generated with WebAudio (no files): dice rattle, steps, jump, fly, capture, finish, turn.

let ctx = null;
let muted = false;
try { muted = localStorage.getItem('fxq.muted') === '1'; } catch { /* ignore */ }

export function isMuted() { return muted; }
/** @param {boolean} m */
export function setMuted(m) {
  muted = m;
  try { localStorage.setItem('fxq.muted', m ? '1' : '0'); } catch { /* ignore */ }
}

function ac() {
  if (muted) return null;
  if (!ctx) {
    const C = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!C) return null;
    ctx = new C();
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

function tone(freq, dur, { type = 'sine', gain = 0.15, to = 0, delay = 0 } = {}) {
  const c = ac(); if (!c) return;
  const t = c.currentTime + delay;
  const o = c.createOscillator(), g = c.createGain();
  o.type = /** @type {OscillatorType} */ (type);
  o.frequency.setValueAtTime(freq, t);
  if (to) o.frequency.exponentialRampToValueAtTime(to, t + dur);
  g.gain.setValueAtTime(0.0001, t);
  g.gain.exponentialRampToValueAtTime(gain, t + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  o.connect(g).connect(c.destination);
  o.start(t); o.stop(t + dur + 0.02);
}

function noise(dur, { gain = 0.2, delay = 0, freq = 1800 } = {}) {
  const c = ac(); if (!c) return;
  const t = c.currentTime + delay;
  const n = Math.floor(c.sampleRate * dur);
  const buf = c.createBuffer(1, n, c.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n);
  const s = c.createBufferSource(); s.buffer = buf;
  const f = c.createBiquadFilter(); f.type = 'bandpass'; f.frequency.value = freq;
  const g = c.createGain(); g.gain.value = gain;
  s.connect(f).connect(g).connect(c.destination);
  s.start(t);
}

export const sfx = {
  roll() { for (let i = 0; i < 5; i++) noise(0.05, { delay: i * 0.07, gain: 0.25, freq: 1400 + i * 300 }); },
  six() { tone(660, 0.12, { gain: 0.12 }); tone(990, 0.18, { gain: 0.12, delay: 0.1 }); },
  step() { tone(520, 0.05, { type: 'triangle', gain: 0.06 }); },
  jump() { tone(400, 0.2, { type: 'triangle', to: 900, gain: 0.1 }); },
  fly() { noise(0.5, { gain: 0.12, freq: 700 }); tone(300, 0.55, { type: 'sawtooth', to: 1200, gain: 0.04 }); },
  capture() { tone(220, 0.25, { type: 'square', to: 80, gain: 0.1 }); noise(0.15, { gain: 0.2, freq: 300 }); },
  finish() { [523, 659, 784, 1047].forEach((f, i) => tone(f, 0.18, { gain: 0.1, delay: i * 0.09 })); },
  turn() { tone(880, 0.12, { gain: 0.07 }); tone(1175, 0.16, { gain: 0.06, delay: 0.09 }); },
  skip() { tone(300, 0.18, { type: 'triangle', to: 200, gain: 0.07 }); },
  win() { [523, 659, 784, 1047, 1319].forEach((f, i) => tone(f, 0.25, { gain: 0.1, delay: i * 0.12 })); },
};
