// The intervals scene on @sinonjs/fake-timers: the same 10,000 intervals (MINSTD from
// 42) as ../w1.lua, a one-shot at each phase that creates the interval,
// one tick of H hours. Prints the fire count and ns per fire as JSON.
// Run: node w1_fake_timers.js [N] [H]   (after npm ci in this folder)
"use strict";
const FakeTimers = require("@sinonjs/fake-timers");

const N = Number(process.argv[2] || 10000);
const H = Number(process.argv[3] || 1);
let seed = 42;
const rnd = () => { seed = (seed * 48271) % 2147483647; return seed / 2147483647; };

const clock = FakeTimers.createClock(0, Infinity);
let fires = 0;
const cb = () => { fires++; };
const start = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  const period = 1000 + Math.floor(rnd() * 59000);
  const phase = Math.floor(rnd() * period);
  clock.setTimeout(() => { cb(); clock.setInterval(cb, period); }, phase);
}
clock.tick(Math.floor(H * 3600000));
const ns = Number(process.hrtime.bigint() - start);
if (N === 10000 && H === 1 && fires !== 2560973) {
  console.error(`fake-timers-node: ${fires} fires, want 2560973`);
  process.exit(1);
}
console.log(JSON.stringify({ peer: "fake-timers-node", N, hours: H, fires, nsPerFire: ns / fires }));
