// play_and_review.mjs — the browser test of the web server's page (src/server/www).
//
// Drives Chromium through the page only (clicks, keys, file contents pasted), against a running
// tools/serve:
//   1. Play: a new 37-ring game against the engine at level `quick`, played to its end by clicking
//      the highlighted choices only (one of them at random, seeded by ZZ_TEST_SEED, default 1); mid-game a hint with its heat-map; the result banner checked
//      against GET /api/games/ID; the SGF downloaded through the page's link (starts with "(;",
//      one Done per turn; replayed by $ZZ_REPLAY when set).
//   2. Review: the archive game $ZZ_REVIEW_SGF pasted and reviewed at 50 ms per position; the
//      graph has one point per turn; the flagged turns shown are exactly those with a label in
//      GET /api/reviews/ID, and there is at least one.
// Screenshots: play-start.png, play-midgame.png, play-end.png, review.png in $ZZ_SCREENSHOTS.
//
// env: ZZ_SERVE_URL (required, e.g. http://127.0.0.1:8123), ZZ_SCREENSHOTS (default
// build/web-screenshots), ZZ_REVIEW_SGF (default: a 37-ring game of ../shared/boardspace or
// $ZZ_BOARDSPACE_DIR), ZZ_REPLAY (optional: tools/replay), ZZ_CHROMIUM (default /usr/bin/chromium),
// ZZ_TEST_SEED (default 1).
// Exit status 0 when every check passed, 1 otherwise (with the reason).

import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const BASE = (process.env.ZZ_SERVE_URL || '').replace(/\/+$/, '');
const SHOTS = path.resolve(process.env.ZZ_SCREENSHOTS || 'build/web-screenshots');
const ARCHIVE = process.env.ZZ_BOARDSPACE_DIR || path.resolve(REPO, '..', 'shared', 'boardspace');
const REVIEW_SGF = process.env.ZZ_REVIEW_SGF || path.join(ARCHIVE, 'sgf/37/2001/U_Z-babou-Dumbot-2001-01-03-1746.sgf');
const CHROMIUM = process.env.ZZ_CHROMIUM || '/usr/bin/chromium';
const MAX_TURNS = 200;          // human moves in the game (fail beyond)
const TIME_LIMIT_MS = 170_000;  // the whole test

const T0 = Date.now();
const elapsed = () => ((Date.now() - T0) / 1000).toFixed(1) + ' s';
const log = (...a) => console.log(`[${elapsed()}]`, ...a);

class Failure extends Error {}
function check(cond, msg) { if (!cond) throw new Failure(msg); }
function timeLeft() {
  const left = TIME_LIMIT_MS - (Date.now() - T0);
  check(left > 0, `the test ran past its ${TIME_LIMIT_MS / 1000} s limit`);
  return left;
}

async function api(method, p, body) {
  const r = await fetch(BASE + p, {
    method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  check(r.ok, `${method} ${p}: HTTP ${r.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function main() {
  check(BASE, 'set ZZ_SERVE_URL to the server, e.g. ZZ_SERVE_URL=http://127.0.0.1:8123 (tools/serve --port 8123)');
  try {
    const h = await api('GET', '/api/health');
    check(h.ok === true, `/api/health: ${JSON.stringify(h)}`);
  } catch (e) {
    throw new Failure(`the server at ${BASE} does not answer /api/health: ${e.message}`);
  }
  check(fs.existsSync(REVIEW_SGF), `the game to review is not there: ${REVIEW_SGF} (set ZZ_REVIEW_SGF to a Boardspace .sgf)`);
  check(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set ZZ_CHROMIUM)`);
  fs.mkdirSync(SHOTS, { recursive: true });

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const pageErrors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => { pageErrors.push(`a dialog was opened: ${d.message()}`); d.dismiss().catch(() => {}); });

    await page.goto(BASE + '/', { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=new-game]');
    const game = await playGame(page);
    await checkSgf(page, game);
    await reviewGame(page);
    check(pageErrors.length === 0, `JavaScript errors on the page: ${pageErrors.join(' | ')}`);
  } finally {
    await browser.close();
  }
}

/* ------------------------------------------------------------------------------ play */
const PLAY = '[data-testid=panel-play]';

async function playPhase(page) {
  return page.$eval(PLAY, (e) => ({ phase: e.dataset.phase, stage: e.dataset.stage, ply: e.dataset.ply, id: e.dataset.gameId }));
}

/* Wait until the person is to move (or the game is over) and nothing is in flight. */
async function waitForHumanOrOver(page) {
  await page.waitForFunction((sel) => {
    const e = document.querySelector(sel);
    return (e.dataset.phase === 'human' || e.dataset.phase === 'over') && document.getElementById('app').dataset.busy === 'false';
  }, PLAY, { timeout: Math.min(60_000, timeLeft()) });
  return playPhase(page);
}

// the choices among the highlighted ones: seeded, so that a failure can be replayed
const SEED = Number(process.env.ZZ_TEST_SEED || 1) >>> 0;
let rngState = SEED || 1;
function random() {   // mulberry32
  rngState = (rngState + 0x6d2b79f5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

async function clickOne(page, selector, what) {
  const els = await page.$$(selector);
  check(els.length > 0, `nothing to click for ${what} (${selector})`);
  await els[Math.floor(random() * els.length)].click();
}

async function playGame(page) {
  await page.selectOption('[data-testid=ng-rings]', '37');
  await page.selectOption('[data-testid=ng-seat]', '0');
  await page.selectOption('[data-testid=ng-level]', 'quick');
  await page.click('[data-testid=new-game]');
  await page.waitForFunction((sel) => !!document.querySelector(sel).dataset.gameId, PLAY);
  let st = await waitForHumanOrOver(page);
  const id = st.id;
  log(`game ${id} started (choices seeded with ZZ_TEST_SEED=${SEED})`);
  const g0 = await api('GET', `/api/games/${id}`);
  check(g0.rings === 37 && g0.level === 'quick' && g0.human === 0, `the new game is not what the form asked for: ${JSON.stringify({ rings: g0.rings, level: g0.level, human: g0.human })}`);
  check((await page.$$('[data-testid=ring]')).length === 37, 'the board does not show 37 rings');
  await page.screenshot({ path: path.join(SHOTS, 'play-start.png') });
  // flipping is a view transform only
  await page.click('[data-testid=flip]');
  check(await page.$eval('[data-testid=board]', (e) => e.dataset.flipped) === 'true', 'Flip board did not flip the board');
  await page.click('[data-testid=flip]');
  check(await page.$eval('[data-testid=board]', (e) => e.dataset.flipped) === 'false', 'Flip board did not turn the board back');

  let moves = 0, hinted = false;
  for (;;) {
    st = await waitForHumanOrOver(page);
    if (st.phase === 'over') break;
    moves++;
    check(moves <= MAX_TURNS, `the game did not end within ${MAX_TURNS} moves of the player`);
    // mid-game (from the 4th move on, at a placement: a richer heat-map than a forced jump)
    if (!hinted && moves >= 4 && (st.stage === 'colour' || st.stage === 'ring' || moves >= 12)) {
      await showHint(page);
      hinted = true;
      await checkUndo(page, id);
      st = await playPhase(page);
    }

    // one move: click the first highlighted choice at each stage until the move is sent
    const ply = st.ply;
    for (let k = 0; ; k++) {
      check(k < 8, `move ${moves}: still at stage '${st.stage}' after ${k} clicks`);
      if (st.phase !== 'human' || st.ply !== ply) break;
      const before = st.stage;
      if (st.stage === 'colour') await clickOne(page, '[data-testid^="pick-"][data-clickable="true"]', 'a marble colour');
      else if (st.stage === 'ring' || st.stage === 'remove' || st.stage === 'jump-to') await clickOne(page, '[data-testid="ring"][data-clickable="true"]', `stage ${st.stage}`);
      else if (st.stage === 'jump-from') await clickOne(page, '[data-testid="marble"][data-clickable="true"]', 'the jumping marble');
      else throw new Failure(`move ${moves}: the person is to move but the page waits for nothing (stage '${st.stage}')`);
      await page.waitForFunction(([sel, stage, p]) => {
        const e = document.querySelector(sel);
        return e.dataset.stage !== stage || e.dataset.ply !== p || e.dataset.phase !== 'human';
      }, [PLAY, before, ply], { timeout: 15_000 });
      st = await playPhase(page);
      if (st.stage === 'none' || st.ply !== ply) break;
    }
  }
  check(hinted, `the game ended before the hint could be tried (${moves} moves of the player)`);
  log(`game over after ${moves} moves of the player`);

  // the final position: the banner and the server agree
  const banner = page.locator('[data-testid=result-banner]');
  check(await banner.isVisible(), 'the game is over but the result banner is not shown');
  const shown = (await banner.textContent()).trim();
  const g = await api('GET', `/api/games/${id}`);
  check(g.over === true, `the page shows the end but the server says over=${g.over}`);
  check(shown === g.result, `the banner says "${shown}" but the server's result is "${g.result}"`);
  check(g.result.length > 0, 'the server gives an empty result text');
  const listed = await page.$$eval('[data-testid=turn]', (l) => l.map((e) => e.querySelector('.mv-text').textContent));
  check(listed.length === g.turns.length && listed.every((t, i) => t === g.turns[i].text),
    `the move list (${listed.length} turns) differs from the server's turns (${g.turns.length})`);
  log(`result: ${g.result} (${g.turns.length} turns)`);
  await page.screenshot({ path: path.join(SHOTS, 'play-end.png') });
  return g;
}

async function showHint(page) {
  await page.click('[data-testid=hint]');
  await page.waitForFunction(() => {
    const b = document.querySelector('[data-testid=hint-body]');
    return b.dataset.state === 'running' || b.dataset.state === 'done';
  });
  await page.waitForTimeout(1000);
  const heat = await page.$$('[data-testid=heat]');
  check(heat.length > 0, 'the hint shows no heat-map on the board after 1 s');
  const best = (await page.textContent('[data-testid=hint-best]')).trim();
  check(best && best !== '—', 'the hint shows no best move');
  await page.screenshot({ path: path.join(SHOTS, 'play-midgame.png') });
  if (await page.isEnabled('[data-testid=hint-stop]')) await page.click('[data-testid=hint-stop]');
  await page.waitForFunction(() => document.querySelector('[data-testid=hint-body]').dataset.state === 'done');
  log(`hint: best ${best}, ${heat.length} cells on the heat-map`);
}

/* Undo after the engine's reply gives the person their own turn back (two turns taken back). */
async function checkUndo(page, id) {
  const before = await api('GET', `/api/games/${id}`);
  const n = before.turns.length;
  if (n < 2 || before.turns[n - 1].player === before.human || before.chain) return;
  await page.click('[data-testid=undo]');
  await waitForHumanOrOver(page);
  await page.waitForFunction((k) => document.querySelectorAll('[data-testid=turn]').length === k, n - 2);
  const after = await api('GET', `/api/games/${id}`);
  check(after.turns.length === n - 2 && after.to_move === after.human,
    `Undo after the engine's reply: ${n} turns became ${after.turns.length}, to_move ${after.to_move} (expected ${n - 2} turns and the person to move)`);
  check(await page.$eval('[data-testid=hint-body]', (e) => e.dataset.state) === 'none', 'the hint was not cleared by Undo');
  log(`undo: ${n} turns -> ${after.turns.length}`);
}

/* ------------------------------------------------------------------------------ SGF */
async function checkSgf(page, g) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-sgf]')]);
  const file = path.join(SHOTS, 'zertz-game.sgf');
  await download.saveAs(file);
  const sgf = fs.readFileSync(file, 'utf8');
  check(sgf.trimStart().startsWith('(;'), `the downloaded SGF does not start with "(;": ${JSON.stringify(sgf.slice(0, 40))}`);
  const dones = (sgf.match(/\bDone\s*\]/g) || []).length;
  check(dones === g.turns.length, `the SGF has ${dones} Done nodes for ${g.turns.length} turns`);
  if (process.env.ZZ_REPLAY) {
    const r = spawnSync(process.env.ZZ_REPLAY, [file], { encoding: 'utf8', timeout: 30_000 });
    check(r.status === 0, `${process.env.ZZ_REPLAY} ${file} exited with ${r.status}: ${(r.stderr || r.stdout || '').slice(0, 400)}`);
    log(`SGF replayed by ${process.env.ZZ_REPLAY}`);
  }
  log(`SGF downloaded (${sgf.length} bytes, ${dones} turns): ${file}`);
}

/* ------------------------------------------------------------------------------ review */
const REVIEW = '[data-testid=panel-review]';

async function reviewGame(page) {
  await page.click('[data-testid=tab-review]');
  await page.waitForSelector(REVIEW, { state: 'visible' });
  const sgf = fs.readFileSync(REVIEW_SGF, 'utf8');
  await page.fill('[data-testid=rv-text]', sgf);
  await page.fill('[data-testid=rv-budget]', '50');
  await page.click('[data-testid=rv-start]');
  await page.waitForFunction((sel) => ['running', 'done', 'error', 'stopped'].includes(document.querySelector(sel).dataset.state), REVIEW);
  await page.waitForFunction((sel) => ['done', 'error', 'stopped'].includes(document.querySelector(sel).dataset.state), REVIEW,
    { timeout: Math.min(120_000, timeLeft()) });
  const state = await page.$eval(REVIEW, (e) => e.dataset.state);
  const status = (await page.textContent('[data-testid=rv-status]')).trim();
  check(state === 'done', `the review ended as '${state}': ${status}`);
  const id = await page.$eval(REVIEW, (e) => e.dataset.reviewId);
  check(id, 'the page does not say which review it shows');
  const rv = await api('GET', `/api/reviews/${id}`);
  check(!rv.running && rv.done === rv.total, `the server's review is not finished: done ${rv.done} of ${rv.total}`);
  const turns = rv.review.turns;
  log(`review ${id}: ${turns.length} turns, ${rv.total} positions`);

  // progress bar at the end
  const prog = await page.$eval('[data-testid=rv-progress]', (e) => ({ done: Number(e.dataset.done), total: Number(e.dataset.total) }));
  check(prog.done === rv.done && prog.total === rv.total, `the progress bar says ${prog.done}/${prog.total}, the server ${rv.done}/${rv.total}`);

  // the graph: one point per turn
  check(await page.isVisible('[data-testid=rv-graph]'), 'the win-probability graph is not shown');
  const points = await page.$$eval('[data-testid=graph-point]', (l) => l.map((e) => Number(e.dataset.turn)));
  check(turns.length > 0, 'the review has no turns');
  check(points.length === turns.length, `the graph has ${points.length} points for ${turns.length} turns`);
  check(points.every((t, i) => t === i + 1), 'the graph points are not turns 1..n in order');
  check(await page.$('[data-testid=graph-line]'), 'the graph has no line');

  // the flagged turns shown are exactly those labelled by the server
  const want = turns.map((t, i) => (t.label ? `${i + 1}:${t.label}` : null)).filter(Boolean);
  const listed = await page.$$eval('[data-testid=flagged-move]', (l) => l.map((e) => `${e.dataset.turn}:${e.dataset.label}`));
  const dots = await page.$$eval('[data-testid=graph-flag]', (l) => l.map((e) => `${e.dataset.turn}:${e.dataset.label}`));
  check(want.length > 0, `the review flags no turn of ${path.basename(REVIEW_SGF)} (no inaccuracy, mistake or blunder at 50 ms): pick another game with ZZ_REVIEW_SGF`);
  check(JSON.stringify(listed) === JSON.stringify(want), `flagged turns in the list ${JSON.stringify(listed)} differ from the server's ${JSON.stringify(want)}`);
  check(JSON.stringify(dots) === JSON.stringify(want), `flagged dots on the graph ${JSON.stringify(dots)} differ from the server's ${JSON.stringify(want)}`);
  const better = turns.map((t, i) => (t.better ? String(i + 1) : null)).filter(Boolean);
  const shownBetter = await page.$$eval('[data-testid=better-move]', (l) => l.map((e) => e.dataset.turn));
  check(JSON.stringify(shownBetter) === JSON.stringify(better), `turns marked better than the engine's ${JSON.stringify(shownBetter)} differ from the server's ${JSON.stringify(better)}`);
  const summary = await page.$$('[data-testid^=rv-summary-]');
  check(summary.length >= 2, 'the summary per player is missing');
  log(`flagged: ${want.join(', ')}`);

  // select a flagged turn: the board shows that position with both choices marked
  const first = Number(want[0].split(':')[0]);
  await page.click(`[data-testid=flagged-move][data-turn="${first}"]`);
  await page.waitForFunction((t) => document.querySelector('[data-testid=rv-board]').dataset.turn === String(t - 1), first);
  check(await page.$('[data-testid=rv-board] [data-testid=mark-played]') || await page.$('[data-testid=rv-board] [data-testid=arrow-played]'),
    'the selected turn shows no mark for the turn played');
  const played = (await page.textContent('[data-testid=rv-played]')).trim();
  check(played === turns[first - 1].played, `the position card shows "${played}" for turn ${first}, the server "${turns[first - 1].played}"`);
  // the board shows positions[i]: the same rings and marbles as the server's
  const pos = rv.positions[first - 1];
  const rings = await page.$$eval('[data-testid=rv-board] [data-testid=ring]', (l) => l.map((e) => e.dataset.cell).sort());
  check(JSON.stringify(rings) === JSON.stringify([...pos.rings_left].sort()), `the board of turn ${first} does not show the server's rings`);
  const marbles = await page.$$eval('[data-testid=rv-board] [data-testid=marble]', (l) => Object.fromEntries(l.map((e) => [e.dataset.cell, e.dataset.color])));
  check(JSON.stringify(Object.entries(marbles).sort()) === JSON.stringify(Object.entries(pos.marbles).sort()), `the board of turn ${first} does not show the server's marbles`);
  await page.mouse.move(1, 1);
  await page.screenshot({ path: path.join(SHOTS, 'review.png') });

  // the arrow keys step through the game; a click on the graph selects a turn
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((t) => document.querySelector('[data-testid=rv-board]').dataset.turn === String(t), first);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((t) => document.querySelector('[data-testid=rv-board]').dataset.turn === String(t - 1), first);
  const box = await page.locator('[data-testid=rv-graph]').boundingBox();
  await page.mouse.click(box.x + box.width * 0.97, box.y + box.height / 2);
  const picked = await page.$eval('[data-testid=rv-board]', (e) => Number(e.dataset.turn));
  check(picked >= turns.length - 3, `a click at the right end of the graph selected turn ${picked + 1} of ${turns.length}`);
}

main().then(() => {
  log(`PASS: screenshots in ${SHOTS}`);
  process.exit(0);
}).catch((e) => {
  const msg = e instanceof Failure ? e.message : (e && e.stack) || String(e);
  console.error(`FAIL [${elapsed()}]: ${msg}`);
  process.exit(1);
});
