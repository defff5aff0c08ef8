// The UI's rule sentences (web/js/i18n.js) against docs/RULES.md, in both languages: no browser
// needed (i18n.js imports nothing and reads localStorage inside a try).
import test from 'node:test';
import assert from 'node:assert/strict';
import { ALL } from '../js/i18n.js';

test('every key is said in both languages', () => {
  const zh = Object.keys(ALL.zh).sort();
  const en = Object.keys(ALL.en).sort();
  assert.deepEqual(zh.filter((k) => !(k in ALL.en)), []);
  assert.deepEqual(en.filter((k) => !(k in ALL.zh)), []);
});

test('a storm push stops at the takeoff point (RULES.md §15.18: clamped at p0)', () => {
  // a 雷暴 on p2 pushes a plane from it back to p0, 2 squares: "3 squares" alone is not true
  assert.match(ALL.zh.evStruck_storm, /起飞点/);
  assert.match(ALL.en.evStruck_storm, /takeoff point/);
});

test('the booster doubles the walk of a plane already out, not a takeoff (RULES.md §15.17)', () => {
  assert.match(ALL.zh.itemBoosterOn, /已起飞的飞机/);
  assert.match(ALL.en.itemBoosterOn, /already out/);
});

test('a missile targets an enemy plane on the loop only (RULES.md §15.15)', () => {
  assert.match(ALL.zh.itemTargetMissile, /外圈/);
  assert.match(ALL.en.itemTargetMissile, /on the loop/);
});

test('one timeout plays one step; only the second in a row puts the seat into 托管 (online.rs)', () => {
  assert.doesNotMatch(ALL.zh.timeLeftWarn, /托管/);
  assert.doesNotMatch(ALL.en.timeLeftWarn, /auto-play/);
});

test('a stack collision where a shield held does not say that all go home (RULES.md §15.14)', () => {
  assert.match(ALL.zh.collisionShielded, /护盾/);
  assert.match(ALL.en.collisionShielded, /shield/);
  assert.doesNotMatch(ALL.zh.collisionShielded, /同归于尽/);
  assert.doesNotMatch(ALL.en.collisionShielded, /all go home/);
});
