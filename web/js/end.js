// The end screen: ranking, scores, a 1–6 histogram per seat (SVG) with its luck index, χ²
// p-value and dice luck in win-% points, the post-game move grades of the human seats, and a link to verify the dice.

import { t, seatName, whereText, pieceName, getLang } from './i18n.js';
import { esc } from './html.js';
import { COLOURS, TEXT_COLOURS } from './board.js';
import { formatP } from './verify.js';


/** SVG bar chart of the faces 1..6, with the expected count n/6 as a dashed line. */
export function histogramSvg(counts, colour) {
  const n = counts.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...counts, n / 6);
  const W = 196, H = 100, bw = 22, gap = 8, x0 = 12, base = 82;
  const bars = counts.map((c, i) => {
    const h = (c / max) * 66;
    const x = x0 + i * (bw + gap);
    return `<rect x="${x}" y="${base - h}" width="${bw}" height="${h}" rx="3" fill="${colour}"><title>${i + 1}: ${c}</title></rect>
      <text x="${x + bw / 2}" y="${base - h - 3}" font-size="10" text-anchor="middle">${c}</text>
      <text x="${x + bw / 2}" y="${base + 13}" font-size="11" text-anchor="middle" font-weight="700">${i + 1}</text>`;
  }).join('');
  const ey = base - (n / 6 / max) * 66;
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${counts.map((c, i) => `${i + 1}: ${c}`).join(', ')}">
    <line x1="6" x2="${W - 6}" y1="${base}" y2="${base}" stroke="#999"/>
    ${bars}
    ${n ? `<line x1="6" x2="${W - 6}" y1="${ey}" y2="${ey}" stroke="#333" stroke-dasharray="4 3" opacity=".6"/>` : ''}
  </svg>`;
}

/**
 * The end's title: 游戏结束 — the winner (a team in team play, RULES.md §9). Also what the screen
 * reader is told at the end. @param {any} st
 */
export function endTitle(st) {
  const rules = st.rules;
  const first = (st.over?.ranking || st.ranking || [])[0] ?? 0;
  const who = st.options?.team
    ? t('teamWins', { a: seatName(rules, first), b: seatName(rules, (first + 2) % 4) })
    : `${seatName(rules, first)} ${t('place', { n: 1 })}`;
  return `${t('gameOver')} — ${who}`;
}

/**
 * @param {HTMLElement} host
 * @param {any} st  the final `state`
 * @param {{fastForward:boolean, onWatch:()=>void, onDownload:()=>void, onReplay:()=>void, onAgain?:()=>void, onClose:()=>void,
 *   onLeave?:()=>void, onReview?:(decision:any)=>void, nameOf?:(seat:number)=>string|null, who?:(seat:number)=>string, extra?:string, mine?:number[]}} h
 *   `mine`: the seats of the person looking (their place is said first); `onAgain`: 再来一局
 *   (none: no button; in a room only the host has it); `onLeave`: 离开房间 (online rooms); `onReview`: open the replay at a
 *   graded decision (复盘); `nameOf`: who held a seat (online rooms); `who`: the game screen's word for a seat's player
 *   elsewhere (你, 玩家 N, a level); `extra`: HTML after the ranking
 */
export function renderEnd(host, st, h) {
  const rules = st.rules;
  const over = st.over || {};
  const ranking = over.ranking || st.ranking || [];
  const scores = over.scores || st.scores;
  const scoreOf = (seat) => scores?.find((x) => x.seat === seat)?.score;
  const info = (seat) => st.seats.find((s) => s.seat === seat);
  const team = !!st.options?.team;
  const ctl = (s) => !s ? '' : h.nameOf ? h.nameOf(s.seat) ?? '' : h.who ? h.who(s.seat) : s.controller === 'human' ? (s.seat === 0 ? t('you') : t('human')) : t(s.level || 'normal');
  const mineSeats = h.mine || [];
  const rows = ranking.map((seat, i) => {
    const s = info(seat);
    const sc = scoreOf(seat);
    // In team play (RULES.md §9) each row names the seat's partner.
    const partner = team ? ` <span class="partner">${esc(t('teamOf'))} ${esc(seatName(rules, (seat + 2) % 4))}</span>` : '';
    return `<tr${mineSeats.includes(seat) ? ' class="me"' : ''}><td><span class="pl pl${i + 1}">${t('place', { n: i + 1 })}</span></td><td style="color:${TEXT_COLOURS[rules][seat]};font-weight:800">${esc(seatName(rules, seat))}${partner}</td>
      <td>${esc(ctl(s))}</td><td>${s ? `${s.finishedPieces}/${st.options?.pieces ?? 4}` : ''}</td>${scores ? `<td>${sc > 0 ? '+' : ''}${sc ?? ''}</td>` : ''}</tr>`;
  }).join('');
  const luck = over.luck || st.stats || [];
  const hist = luck.map((l) => {
    const z = typeof l.z === 'number' ? l.z : null;
    const word = z === null ? '' : z > 1 ? t('luckLucky') : z < -1 ? t('luckUnlucky') : t('luckNormal');
    return `<figure data-seat="${l.seat}"><figcaption style="color:${TEXT_COLOURS[rules][l.seat]}">${esc(seatName(rules, l.seat))}</figcaption>
      ${histogramSvg(l.counts, COLOURS[rules][l.seat])}
      <div class="luck">${z === null ? '' : t('luckZ', { z: (z >= 0 ? '+' : '') + z.toFixed(2) }) + ' · ' + word}<br>
      ${typeof l.mean === 'number' ? `<span class="nw">${t('meanRoll', { m: l.mean.toFixed(2) })}</span> · ` : ''}<span class="nw">${t('rollsN', { n: l.rolls })}</span>
      ${typeof l.winLuck === 'number' ? `<br><span class="win-luck">${esc(t('winLuck', { x: (l.winLuck > 0 ? '+' : '') + l.winLuck.toFixed(1) }))}</span>` : ''}
      ${typeof l.p === 'number' ? `<br><span class="p">${esc(t('luckP', { x: Number(l.chi2).toFixed(2), p: formatP(l.p) }))}</span>` : ''}</div></figure>`;
  }).join('');
  const an = over.analysis;
  // the twelve costliest of the graded decisions, in the order they were played
  const bad = (an?.decisions || []).filter((d) => d.grade !== 'good');
  const shown = bad.slice().sort((a, b) => b.loss - a.loss).slice(0, 12).sort((a, b) => a.ply - b.ply);
  let grades = '';
  if (an && an.seats?.length) {
    const lines = an.seats.map((s) => `<li><strong>${esc(t('gradeSummary', { name: seatName(rules, s.seat), n: s.decisions, lost: Number(s.lost).toFixed(1) }))}</strong>${playsLikeLine(s)}</li>`).join('');
    const items = shown.map((d, i) => `<li>${esc(seatName(rules, d.seat))} · ${esc(gradeLine(rules, d))} — <strong>${esc(t('grade_' + d.grade))}</strong>${h.onReview ? ` <button type="button" class="review" id="end-review-${i}" data-i="${i}" title="${esc(t('reviewTitle'))}" aria-label="${esc(t('reviewOf', { name: seatName(rules, d.seat), ply: decisionWords(rules, d).ply }))}">${t('review')}</button>` : ''}</li>`).join('');
    // Decisions a busy server did not rank ahead (past the few a game's end ranks) were graded by the hint's one layer: say so.
    const quick = an.quick > 0 ? `<p class="muted quick-graded">${esc(t('quickGraded', { n: an.quick }))}</p>` : '';
    grades = `<section class="grades"><h3>${t('grades')}</h3><ul>${lines}</ul>${bad.length ? `<ul>${items}</ul>` : `<p>${t(an.seats.some((s) => s.decisions > 0) ? 'noGrades' : 'noDecisions')}</p>`}${quick}</section>`;
  }
  const hero = heroHtml(st, h, ranking, team);
  // the first screen is the result and what to do next; the figures follow, folded under 详细统计
  // (open where there is room for them: on a phone they were a long scroll before any button)
  const wasOpen = /** @type {HTMLDetailsElement|null} */ (host.querySelector('#end-details'))?.open;
  const open = wasOpen ?? (typeof matchMedia === 'function' && matchMedia('(min-width: 700px) and (min-height: 600px)').matches);
  const focused = host.contains(document.activeElement) ? document.activeElement?.id : '';
  // focus on the scroll box or the dialog itself, not on a control: the one case the first step
  // takes the focus below (not the page's, after a click on text: that would scroll the dialog)
  const onBox = document.activeElement === host || document.activeElement === host.closest('dialog');
  // the primary button is the natural next step: 继续观看 while the computers' race is still to
  // be shown (every human done, result already known), else 再来一局
  const again = h.onAgain ? `<button type="button" id="end-again" ${h.fastForward ? '' : 'class="primary" autofocus'}>${t('again')}</button>` : '';
  const watchBtn = h.fastForward ? `<button type="button" class="primary" id="end-watch" autofocus>${t('watch')}</button>` : '';
  host.innerHTML = `
    ${hero}
    ${h.fastForward ? `<p class="muted watch-note">${t('watchNote')}</p>` : ''}
    <table class="rank"><thead><tr><th>${t('ranking')}</th><th>${t('seat')}</th><th><span class="sr-only">${t('playedBy')}</span></th><th>${t('finishedAll')}</th>${scores ? `<th>${t('score')}</th>` : ''}</tr></thead><tbody>${rows}</tbody></table>
    <div class="controls end-actions">
      ${watchBtn}${again}
      ${h.onLeave ? `<button type="button" id="end-leave">${t('leaveRoom')}</button>` : ''}
      <button type="button" id="end-replay">${t('replay')}</button>
      <button type="button" id="end-download">${t('download')}</button>
      ${st.gameId ? `<a id="end-verify" class="navlink" href="verify.html#game=${encodeURIComponent(st.gameId)}" target="_blank" rel="noopener">${t('verifyLink')}</a>` : ''}
      <button type="button" id="end-close"${h.onAgain || h.fastForward ? '' : ' autofocus'}>${t('close')}</button>
    </div>
    ${h.extra || ''}
    <details class="end-details" id="end-details"${open ? ' open' : ''}>
      <summary id="end-details-summary"><strong>${t('endDetails')}</strong> <span class="muted">${t(grades ? 'endDetailsWhat' : 'endDetailsWhatNoGrades')}</span></summary>
      <section><h3>${t('histogram')}</h3><div class="hist">${hist}</div><p class="muted">${t('luckNote', { example: t(rules === 'ludo' ? 'luckExampleLudo' : 'luckExample') })}${st.items ? ' ' + t('luckNoteItems') : ''}</p></section>
      ${grades}
    </details>`;
  // the dialog is named by the headline (your place) and then the winner
  host.closest('dialog')?.setAttribute('aria-labelledby', 'end-you end-title');
  host.querySelector('#end-watch')?.addEventListener('click', h.onWatch);
  if (h.onAgain) host.querySelector('#end-again')?.addEventListener('click', h.onAgain);
  if (h.onLeave) host.querySelector('#end-leave')?.addEventListener('click', h.onLeave);
  host.querySelector('#end-replay')?.addEventListener('click', h.onReplay);
  host.querySelector('#end-download')?.addEventListener('click', h.onDownload);
  host.querySelector('#end-close')?.addEventListener('click', h.onClose);
  host.querySelectorAll('button.review').forEach((b) => b.addEventListener('click', () => h.onReview?.(shown[Number(/** @type {HTMLElement} */ (b).dataset.i)])));
  // drawn again while open (another language, a room's update): focus stays on the same control
  // (复盘 buttons included), without scrolling; where it was on the scroll box (a room's end screen
  // drawn again as the dialog opened), the first step: the primary button, or 关闭 where there is
  // none (a room's guest has no 再来一局)
  const before = focused && /** @type {HTMLElement|null} */ (host.querySelector('#' + CSS.escape(focused)));
  if (before) before.focus({ preventScroll: true });
  else if (onBox && host.closest('dialog')?.open) /** @type {HTMLElement|null} */ (host.querySelector('[autofocus]'))?.focus({ preventScroll: true });
}

/** Every seat a person at this one screen (friends, no computer; 2 or more): they are 玩家 1, 玩家 2… @param {any} st */
export function friendsOnly(st) {
  return st.seats.length > 1 && st.seats.every((/** @type {any} */ s) => s.controller === 'human');
}

/** 1st, 2nd, 3rd, 4th (English); the number itself elsewhere (第 2 名 says it). */
function ordinal(n) {
  if (getLang() !== 'en') return String(n);
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${s}`;
}

/** A medal (SVG: emoji may be boxes without fonts): gold, silver, bronze, then plain, with the place on it. */
function medalSvg(place, ribbon) {
  const face = ['#f2b705', '#b9c3cc', '#cd7f32'][place - 1] ?? '#d9d2c3';
  const edge = ['#b98a00', '#7f8b96', '#8f5420'][place - 1] ?? '#a39a88';
  return `<svg class="medal" viewBox="0 0 64 80" aria-hidden="true" focusable="false">
    <path d="M18 2h12l6 26h-12z" fill="${ribbon}"/><path d="M46 2H34l-6 26h12z" fill="${ribbon}" opacity=".75"/>
    <circle cx="32" cy="50" r="24" fill="${face}" stroke="${edge}" stroke-width="3"/>
    <circle cx="32" cy="50" r="17" fill="none" stroke="#fff" stroke-opacity=".55" stroke-width="2"/>
    <text x="32" y="58" font-size="24" font-weight="800" text-anchor="middle" fill="#fff" stroke="${edge}" stroke-width="1" paint-order="stroke">${place}</text>
  </svg>`;
}

/**
 * The top of the end screen: a medal and the result of the person looking, big (你获得第 2 名;
 * in team play the team's result), under a small line naming the winner (#end-title). With no
 * one seat to speak to (a spectator, several people on one screen) the winner is the headline.
 */
function heroHtml(st, h, ranking, team) {
  const rules = st.rules;
  const first = ranking[0] ?? 0;
  const mine = (h.mine || []).filter((seat) => ranking.includes(seat));
  const placeOf = (seat) => ranking.indexOf(seat) + 1;
  // friends at one screen (every seat a person here): the seat and its player, as the ranking
  // says them (红方（玩家 1）), where the seat alone matched no name in the ranking
  const friends = !h.nameOf && !!h.who && friendsOnly(st);
  const player = (seat) => friends ? (getLang() === 'zh' ? `${seatName(rules, seat)}（${h.who?.(seat)}）` : `${seatName(rules, seat)} (${h.who?.(seat)})`) : seatName(rules, seat);
  const named = (seat) => { const n = h.nameOf?.(seat); return n ? `${seatName(rules, seat)} · ${n}` : player(seat); };
  let head, sub = '', medal, win = false, title = endTitle(st), ink = '';
  // team play with one side's people only on this screen (one, or both partners)
  const oneSide = team && mine.length > 0 && mine.every((s) => s % 2 === mine[0] % 2);
  const personal = mine.length === 1 || oneSide;
  const here = () => t('endPlayersHere', { list: mine.slice().sort((a, b) => placeOf(a) - placeOf(b)).map((s) => `${player(s)} ${t('place', { n: placeOf(s) })}`).join(' · ') });
  if (oneSide) {
    // team play (RULES.md §9), one side's people on this screen (one, or both partners): the team's result
    win = first % 2 === mine[0] % 2;
    head = t(win ? 'endTeamWon' : 'endTeamLost');
    sub = mine.length === 1 ? t('yourPlace', { place: t('place', { n: placeOf(mine[0]) }) }) : here();
    medal = medalSvg(win ? 1 : Math.min(...mine.map(placeOf)), COLOURS[rules][mine[0]]);
  } else if (mine.length === 1) {
    const place = placeOf(mine[0]);
    win = place === 1;
    head = win ? t('endYouWon') : t('endYouPlace', { n: place, ord: ordinal(place) });
    medal = medalSvg(place, COLOURS[rules][mine[0]]);
  } else {
    // nobody in particular (a spectator, people on both sides or several on one screen): the
    // winner, big; the places of the people on this screen under it
    head = team ? t('teamWins', { a: named(first), b: named((first + 2) % 4) }) : t('endWins', { name: named(first) });
    title = t('gameOver');
    win = mine.includes(first) || (team && mine.includes((first + 2) % 4));
    if (mine.length > 1) sub = here();
    medal = medalSvg(1, COLOURS[rules][first]);
    // the winner's own colour, not the red of "you won": friends at one screen all "win", and
    // a red headline for a yellow winner named the wrong seat at a glance (a team of two
    // colours keeps the ink)
    if (!team) ink = TEXT_COLOURS[rules][first];
  }
  const confetti = win ? `<div class="confetti" aria-hidden="true">${Array.from({ length: 18 }, (_, i) => `<i style="--i:${i};background:${COLOURS[rules][i % 4]}"></i>`).join('')}</div>` : '';
  return `<div class="end-hero${win ? ' win' : ''}">${confetti}${medal}
    <h2><span id="end-title" class="kicker">${esc(title)}</span>
    <span class="${personal ? 'you-place ' : ''}headline" id="end-you"${ink ? ` style="color:${ink}"` : ''}>${esc(head)}</span></h2>
    ${sub ? `<p class="hero-sub">${esc(sub)}</p>` : ''}</div>`;
}

/** The fields of a graded decision (docs/PROTOCOL.md §3 `over.analysis`) that both its line and its review note name. */
export function decisionWords(rules, d) {
  return {
    ply: d.ply + 1, die: d.die,
    played: pieceName(rules, d.played + 1), playedWhere: whereText(rules, d.playedTo),
    best: pieceName(rules, d.best + 1), bestWhere: whereText(rules, d.bestTo),
    // cut, not rounded: a loss of 3.99 (doubtful, under 4) must not read as 4.0 (bad)
    loss: (Math.floor(Number(d.loss) * 10) / 10).toFixed(1),
  };
}

/** 棋力: which computer level the seat's loss per decision was nearest, beside what each gives away (empty in 道具模式). */
function playsLikeLine(s) {
  if (!s.typical?.length) return '';
  const text = s.playsLike
    ? t('playsLike', { level: t(s.playsLike), rate: Number(s.errorRate).toFixed(2), typical: s.typical.map((x) => `${t(x.level)} ${Number(x.loss).toFixed(2)}`).join(' · ') })
    : t('playsLikeFew');
  return `<br><span class="plays-like">${esc(text)}</span>`;
}

/** The end screen's line for a graded decision. */
function gradeLine(rules, d) {
  return t('gradeLine', decisionWords(rules, d));
}
