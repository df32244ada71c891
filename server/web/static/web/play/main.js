// The browser table (issue #32): draws the seat answer of the seat API and sends what
// the answer lists (`legal`, `allowed`). No rule lives here: which tile fits, where,
// who acts, the scores and the hand's verdict all come from the server.
import { SeatLink } from "./net.js";
import { lineLayout } from "./line.js";

const root = document.getElementById("play");
const setup = JSON.parse(document.getElementById("play-setup").textContent);
const W = setup.words;
const $ = (id) => document.getElementById(id);
const protoH = $("tile-h").content.firstElementChild;
const protoV = $("tile-v").content.firstElementChild;
const STORE = "dekabes-play-" + setup.code;
const NARROW = matchMedia("(max-width: 999px)"); // below play.css's desktop grid
const prefs = JSON.parse(localStorage.getItem("dekabes-play-prefs") || "{}");

const state = {
  answers: {}, // seat -> newest seat answer
  shown: null, // the seat whose tiles are on screen
  handoff: null, // a seat waiting for "show my tiles" (several seats, one device)
  selection: null, // {tile, end}
  hint: null,
  panel: null, // "rules" | "log"
  ask: null, // a question before an action that cannot be undone
  seen: JSON.parse(sessionStorage.getItem(STORE) || "null"), // what was shown already
  notices: [],
  left: new Set(),
  status: null,
  wasMyTurn: false,
  lastTurns: 0,
  rove: null, // the hand's tile focused last: its one Tab stop
};

function fmt(text, values) {
  return text.replace(/%\(([a-z]+)\)s/g, (m, name) => (values && name in values ? values[name] : m));
}

// A count in its words: the server sends them by number, in the language's plural forms.
function count(forms, n) {
  if (!Number.isInteger(n) || n < 0) return "";
  return fmt(forms[Math.min(n, forms.length - 1)], { n });
}

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = value;
    else if (name === "on") node.addEventListener("click", value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children || []) if (child) node.append(child);
  return node;
}

function button(label, onClick, attrs) {
  return el("button", Object.assign({ type: "button", text: label, on: onClick }, attrs || {}));
}

function fill(box, nodes) {
  box.replaceChildren(...nodes.filter(Boolean));
  box.drawn = null;
}

// Redraw a region only when what it shows changed: the buttons a finger or a screen
// reader is on stay the same nodes while the table moves elsewhere.
function once(box, key, build) {
  if (box.drawn === key) return false;
  build();
  box.drawn = key;
  return true;
}

// -- tiles ---------------------------------------------------------------------------------
function spoken(tile) {
  const [a, b] = tile.split("-").map(Number);
  return `${W.numbers[a]}-${W.numbers[b]}`;
}

function tileSvg(a, b, vertical) {
  const svg = (vertical ? protoV : protoH).cloneNode(true);
  svg.querySelector(".half-a").setAttribute("href", "#pips-" + a);
  svg.querySelector(".half-b").setAttribute("href", "#pips-" + b);
  svg.setAttribute("data-tile", `${Math.min(a, b)}-${Math.max(a, b)}`);
  svg.setAttribute("aria-hidden", "true");
  svg.removeAttribute("role");
  svg.removeAttribute("aria-label");
  return svg;
}

// -- what the answer says --------------------------------------------------------------------
const mine = () => state.answers[state.shown];
const view = () => (mine() ? mine().view : null);

function legalPlays(v) {
  const out = new Map();
  for (const e of v.legal) {
    if (e.type === "play") {
      if (!out.has(e.tile)) out.set(e.tile, []);
      out.get(e.tile).push(e.end || null);
    }
  }
  return out;
}

function legalOf(v, type) {
  return v.legal.filter((e) => e.type === type);
}

function teamOf(v, seat) {
  // The seat view names its own team and partner; the other two seats are the others.
  if (seat === v.seat || seat === v.partner) return v.team;
  return v.team === "A" ? "B" : "A";
}

function player(answer, seat) {
  const s = answer.table.seats[String(seat)] || {};
  return s;
}

function seatTitle(answer, seat) {
  const s = player(answer, seat);
  const name = s.player || (s.kind === "human" ? W.seat_free : "—");
  return `${fmt(W.seat, { n: seat })} · ${name}`;
}

function pointsText(n) {
  return fmt(n === 1 ? W.point_one : W.points_many, { n });
}

function resultText(r) {
  if (!r) return "";
  const values = { team: r.team, points: pointsText(r.points) };
  if (r.result === "tie") return W.result_tie;
  if (r.dekabes) return fmt(W.result_dekabes, values);
  return fmt(r.result === "block" ? W.result_block : W.result_domino, values);
}

// Which of my seats the screen should show: the one the match waits for.
function seatToShow() {
  const held = setup.seats.filter((s) => !state.left.has(s));
  if (held.length === 0) return null;
  const any = state.answers[held[0]];
  const waiting = any ? any.seats_to_act.filter((s) => held.includes(s)) : [];
  if (state.shown && waiting.includes(state.shown)) return state.shown;
  if (waiting.length) return waiting[0];
  return state.shown && held.includes(state.shown) ? state.shown : held[0];
}

function myTurn() {
  const v = view();
  return Boolean(v && v.legal.length && !state.handoff);
}

// -- the screen ------------------------------------------------------------------------------
function render() {
  const answer = mine();
  root.setAttribute("aria-busy", answer ? "false" : "true");
  if (!answer) return;
  const focus = focusKey();
  const v = answer.view;
  root.dataset.state = "ready";
  root.dataset.phase = v.phase;
  root.dataset.version = String(answer.version);
  root.dataset.seat = String(state.shown);
  root.dataset.handoff = state.handoff ? "true" : "false";
  const first = !state.drawnOnce;
  if (first) {
    state.drawnOnce = true;
    requestAnimationFrame(() => performance.mark("dekabes-board-drawn")); // bench/web_table.py
  }
  renderScoreboard(answer);
  renderPicker();
  renderSeats(answer);
  const laidNew = renderLine(v);
  renderPrompt(answer);
  renderHand(v);
  renderTools(answer);
  renderDialog(answer);
  renderNotices();
  if (focus && !root.contains(document.activeElement)) keepFocus(focus);
  if (first) bringTableIntoView();
  else if (laidNew && $("dialog").hidden) keepNewTileInSight();
  const turn = myTurn();
  document.title = (turn ? `▶ ${W.your_turn_title} · ` : "") + setup.title;
  if (turn && !state.wasMyTurn) signalTurn();
  state.wasMyTurn = turn;
}

// A keyboard or screen reader user's place: the control they pressed is often redrawn or
// gone (a tile played, Accept, Continue), and focus then falls to the page's top. What
// was focused in the table, to find it again (or the next best) after the drawing.
const KEYED = ["tile", "action", "tool", "pref", "seat"];

function focusKey() {
  const node = document.activeElement;
  if (!node || node === root || !root.contains(node)) return null;
  const name = KEYED.find((k) => node.dataset && node.dataset[k] !== undefined);
  return name ? [name, node.dataset[name]] : ["", ""];
}

function keepFocus([name, value]) {
  const usable = (n) => n && !n.disabled && n.offsetParent !== null;
  const same = name && [...root.querySelectorAll(`button[data-${name}], input[data-${name}]`)].find((n) => n.dataset[name] === value);
  const next = [
    same,
    root.querySelector("#dialog:not([hidden]) button"),
    root.querySelector("#actions button.primary"),
    root.querySelector("#hand .selected"),
    root.querySelector("#hand .fits"),
    root.querySelector("#actions button"),
    root.querySelector("#hand button"),
  ].find(usable);
  (next || $("prompt")).focus({ preventScroll: true }); // the prompt: tabindex -1
}

// On a phone the site's header stands above the table and pushes it down: the first
// drawing scrolls the header away (it is one swipe up), unless the reader scrolled first.
function bringTableIntoView() {
  if (window.scrollY > 0 || !NARROW.matches) return;
  if (document.documentElement.scrollHeight <= window.innerHeight) return;
  root.scrollIntoView({ block: "start" });
}

// On a phone the dock covers the board's foot (or, sideways, the screen ends under the
// board): a tile just laid out of sight is scrolled into it, by the least scroll that
// shows it between the screen's top and the dock.
function keepNewTileInSight() {
  const tile = document.querySelector("#line .laid.last");
  if (!tile || !NARROW.matches) return;
  const box = tile.getBoundingClientRect();
  const dock = $("dock").getBoundingClientRect();
  const beside = dock.left >= box.right || dock.right <= box.left;
  const bottom = beside ? window.innerHeight : Math.min(window.innerHeight, dock.top);
  if (box.bottom > bottom - 4) window.scrollBy(0, box.bottom - bottom + 8);
  else if (box.top < 4) window.scrollBy(0, box.top - 8);
}

function renderScoreboard(answer) {
  const v = answer.view;
  const key = JSON.stringify([v.scores, v.results.length, v.hand_no, v.base, v.team]);
  once($("scoreboard"), key, () => drawScoreboard(v));
}

function drawScoreboard(v) {
  const won = { A: 0, B: 0 };
  for (const r of v.results) if (r.team in won) won[r.team] += 1;
  const team = (t) =>
    el("span", { class: `score team-${t}${t === v.team ? " mine" : ""}`, "data-team": t }, [
      el("span", { class: "label", text: fmt(W.team, { team: t }) + (t === v.team ? ` (${W.you})` : "") }),
      el("strong", { class: "points", text: String(v.scores[t]) }),
      el("span", { class: "wins", text: fmt(W.wins, { n: won[t] }) }),
    ]);
  const facts = [
    el("span", { class: "hand-no", text: fmt(W.hand_no, { n: Math.max(1, v.hand_no) }) }),
    el("span", { class: "base", text: fmt(W.base, { n: v.base }) }),
  ];
  if (setup.deadline) {
    const at = new Date(setup.deadline).toLocaleString(document.documentElement.lang);
    facts.push(el("span", { class: "deadline", text: fmt(W.deadline, { at }) }));
  }
  $("scoreboard").replaceChildren(team("A"), team("B"), el("span", { class: "facts" }, facts));
}

function renderPicker() {
  const held = setup.seats.filter((s) => !state.left.has(s));
  const box = $("seat-picker");
  box.hidden = held.length < 2;
  if (box.hidden) return;
  fill(box, [
    el("span", { text: W.your_seats }),
    ...held.map((s) =>
      button(fmt(W.show_seat, { n: s }), () => askHandoff(s), {
        "aria-pressed": String(s === state.shown && !state.handoff),
        "data-seat": s,
      }),
    ),
  ]);
}

function seatBox(answer, seat) {
  const v = answer.view;
  const s = player(answer, seat);
  const here = answer.presence && answer.presence[String(seat)];
  const team = teamOf(v, seat);
  const acting = answer.seats_to_act.includes(seat);
  const passRun = v.turns.slice(v.turns.length - v.passes_in_row);
  const passed = v.phase === "play" && passRun.some((t) => t.seat === seat);
  const parts = [
    el("span", { class: "name", text: seatTitle(answer, seat) }),
    el("span", { class: `team team-${team}`, text: fmt(W.team, { team }) }),
  ];
  if (s.is_bot) parts.push(el("span", { class: "tag", text: W.bot }));
  // a free seat: no one to be here or away; a computer away since the table's creation
  // has not come yet (docs/web.md): no mark
  const coming = s.is_bot && here && !here.connected && Date.parse(here.away_since) === Date.parse(answer.table.created_at);
  if (here && s.player && !coming) {
    parts.push(
      el("span", { class: `presence ${here.connected ? "here" : "away"}`, text: here.connected ? `● ${W.here}` : `○ ${W.away}` }),
    );
  }
  if (seat !== v.seat) {
    parts.push(el("span", { class: "count", text: count(W.tiles_left, v.tile_counts[String(seat)]) }));
  }
  if (acting) parts.push(el("span", { class: "acting", text: `▶ ${W.to_act}` }));
  if (passed) parts.push(el("span", { class: "passed", text: W.log_pass.replace("%(s)s", String(seat)) }));
  return el("div", { class: `seat-card team-${team}${acting ? " to-act" : ""}`, "data-seat": seat }, parts);
}

function renderSeats(answer) {
  const v = answer.view;
  const key = JSON.stringify([v.seat, v.tile_counts, answer.seats_to_act, answer.presence, answer.table.seats, v.passes_in_row, v.turns.length, v.phase]);
  if ($("seat-bottom").drawn === key) return;
  $("seat-bottom").drawn = key;
  // Drawn from this seat's side: the next seat on its right, the partner across.
  const next = (v.seat % 4) + 1;
  const previous = ((v.seat + 2) % 4) + 1;
  $("seat-right").replaceChildren(seatBox(answer, next));
  $("seat-top").replaceChildren(seatBox(answer, v.partner));
  $("seat-left").replaceChildren(seatBox(answer, previous));
  $("seat-bottom").replaceChildren(seatBox(answer, v.seat));
}

// Whether a tile was laid since the last drawing (the line drawn only when it changed).
function renderLine(v) {
  const box = $("line");
  const area = $("line-area");
  const width = area.clientWidth || 320;
  // The move just sent, drawn at once as a preview (its tile as in the hand, at the end
  // chosen from `legal`) until the server's answer draws the line as it is.
  const ghost = state.ghost && !v.line.some((t) => t.tile === state.ghost.tile) ? state.ghost : null;
  const key = JSON.stringify([v.line, v.ends, state.lineWidth, v.turns.length, ghost]);
  if (box.drawn === key) return false;
  let drawn = v;
  if (ghost) {
    const [a, b] = ghost.tile.split("-").map(Number);
    const item = { tile: ghost.tile, a, b, seat: v.seat, ghost: true };
    drawn = {
      line: ghost.end === "left" ? [item, ...v.line] : [...v.line, item],
      turns: v.turns.concat([{ type: "play", tile: ghost.tile, end: ghost.end || null }]),
    };
  }
  const plan = lineLayout(drawn, width, state.lineWidth);
  state.lineWidth = plan.width;
  box.style.setProperty("--u", plan.unit + "px");
  box.style.height = plan.height + "px";
  box.style.width = plan.width + "px";
  const last = v.turns.filter((t) => t.type === "play").pop();
  const nodes = plan.items.map((item, index) => {
    const t = drawn.line[index];
    const isLast = last && last.tile === t.tile;
    const node = el(
      "div",
      {
        class: `laid${isLast ? " last" : ""}${t.a === t.b ? " double" : ""}${t.ghost ? " ghost" : ""}`,
        role: "listitem",
        "aria-label": fmt(W.tile_by, { tile: spoken(`${t.a}-${t.b}`), n: t.seat }) + (isLast ? ` (${fmt(W.last_tile, { tile: "" }).replace(/[:：]\s*$/, "")})` : ""),
        "data-tile": t.tile,
      },
      [tileSvg(item.flip ? t.b : t.a, item.flip ? t.a : t.b, t.a === t.b)],
    );
    node.style.left = item.x + "px";
    node.style.top = item.y + "px";
    return node;
  });
  if (!nodes.length) nodes.push(el("p", { class: "empty", text: W.line_empty }));
  // a list only while it has items (an empty list role is an error to screen readers),
  // and named only then (a name on a plain div is an ARIA error: axe's prohibited-attr)
  if (v.line.length) {
    box.setAttribute("role", "list");
    box.setAttribute("aria-label", W.line);
  } else {
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
  box.replaceChildren(...nodes);
  box.drawn = JSON.stringify([v.line, v.ends, state.lineWidth, v.turns.length, ghost]);
  const laid = last ? `${v.hand_no}:${last.tile}` : null;
  const laidNew = laid !== null && laid !== state.lastLaid;
  state.lastLaid = laid;
  const ends = [];
  if (v.ends) {
    ends.push(el("span", { class: "end left", text: fmt(W.left_end, { n: v.ends[0] }) }));
    if (last) ends.push(el("span", { class: "last-laid", text: fmt(W.last_tile, { tile: last.tile }) }));
    ends.push(el("span", { class: "end right", text: fmt(W.right_end, { n: v.ends[1] }) }));
  }
  fill($("ends"), ends);
  return laidNew;
}

function renderPrompt(answer) {
  const v = answer.view;
  const actions = [];
  let text = "";
  let quiet = false; // waiting for others: shown, not said
  if (state.handoff) {
    text = fmt(W.handoff, { n: state.handoff });
    actions.push(button(fmt(W.handoff_show, { n: state.handoff }), showHandoff, { class: "primary", "data-action": "show" }));
  } else if (answer.table.annulled) {
    text = W.annulled;
  } else if (answer.table.forfeited) {
    text = W.forfeited;
  } else if (v.phase === "accept") {
    const accept = legalOf(v, "accept");
    if (accept.length) {
      text = W.accept_prompt;
      actions.push(button(W.accept, () => act("accept"), { class: "primary", "data-action": "accept", accesskey: "a" }));
      if (legalOf(v, "claim_redeal").length) {
        actions.push(button(W.claim_redeal, () => act("claim_redeal"), { "data-action": "claim_redeal" }));
      }
    } else {
      text = W.accepted_wait;
      quiet = true;
    }
  } else if (v.phase === "choose_opener") {
    const choices = legalOf(v, "choose_opener");
    if (choices.length) {
      text = W.opener_prompt;
      for (const c of choices) {
        const label = c.opener === v.seat ? W.open_me : W.open_partner;
        actions.push(button(label, () => act("choose_opener", { opener: c.opener }), { "data-action": "choose_opener", "data-opener": c.opener }));
      }
    } else {
      text = fmt(W.opener_wait, { n: v.to_act });
      quiet = true;
    }
  } else if (v.phase === "play") {
    const plays = legalPlays(v);
    const sel = state.selection;
    if (plays.size) {
      text = v.line.length ? W.your_turn : W.must_open;
      if (sel && plays.has(sel.tile)) {
        const ends = plays.get(sel.tile);
        if (ends.length > 1) {
          text = fmt(W.choose_end, { tile: sel.tile });
          actions.push(button(`◀ ${fmt(W.play_left, { n: v.ends[0] })}`, () => play(sel.tile, "left"), { class: "primary", "data-action": "play-left" }));
          actions.push(button(`${fmt(W.play_right, { n: v.ends[1] })} ▶`, () => play(sel.tile, "right"), { class: "primary", "data-action": "play-right" }));
        } else {
          text = fmt(W.picked, { tile: sel.tile });
          const end = ends[0];
          const label = end === "left" ? `◀ ${fmt(W.play_left, { n: v.ends[0] })}` : end === "right" ? `${fmt(W.play_right, { n: v.ends[1] })} ▶` : fmt(W.play, { tile: sel.tile });
          actions.push(button(label, () => play(sel.tile, end), { class: "primary", "data-action": "play" }));
        }
      }
    } else if (v.to_act) {
      text = fmt(W.waiting_for, { n: v.to_act });
      quiet = true;
    }
  } else if (v.phase === "match_over") {
    text = W.match_over;
  }
  if (answer.paused && !state.panel) [text, quiet] = [`${W.paused} ${text}`, false];
  if (state.sending) [text, quiet] = [W.sent, true];
  if ($("prompt").textContent !== text) $("prompt").textContent = text;
  // Said (a polite live region) only when it asks something of this reader, not each
  // "Waiting for seat 2", "3", "4" as the computers play (#said tells their moves).
  const heard = quiet ? "" : text;
  if ($("prompt-said").textContent !== heard) $("prompt-said").textContent = heard;
  const key = actions.map((b) => b.outerHTML).join("");
  once($("actions"), key, () => $("actions").replaceChildren(...actions));
}

function renderHand(v) {
  const box = $("hand");
  if (state.handoff || !v.hand.length) {  // no listbox, so no name (as the line's)
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
    box.removeAttribute("aria-orientation");
    fill(box, []);
    return;
  }
  box.setAttribute("aria-label", W.your_tiles);
  box.setAttribute("role", "listbox");
  box.setAttribute("aria-orientation", "horizontal");
  const plays = v.phase === "play" ? legalPlays(v) : new Map();
  const ghost = state.ghost && state.ghost.tile;
  const key = JSON.stringify([v.hand, [...plays.keys()], state.selection, state.hint && state.hint.tile, ghost]);
  if (box.drawn === key) return;
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.dataset.tile : null;
  const nodes = v.hand.filter((tile) => tile !== ghost).map((tile) => {
    const [a, b] = tile.split("-").map(Number);
    const fits = plays.has(tile) && !ghost;
    const selected = state.selection && state.selection.tile === tile;
    const hinted = state.hint && state.hint.tile === tile;
    const label = spoken(tile) + (fits ? `, ${W.fits}` : "");
    return el(
      "button",
      {
        type: "button",
        role: "option",
        class: `tile-button${fits ? " fits" : ""}${selected ? " selected" : ""}${hinted ? " hinted" : ""}`,
        "aria-label": label,
        "aria-selected": selected ? "true" : "false",
        "aria-disabled": fits ? null : "true",
        "data-tile": tile,
        on: () => pick(tile),
      },
      [tileSvg(a, b, true)],
    );
  });
  // one Tab stop (roving tabindex): the tile focused, else the one picked, else the first
  // that fits, else the last one focused; the arrows, Home and End move among them
  const stop = [focused, state.selection && state.selection.tile, ...nodes.filter((n) => n.classList.contains("fits")).map((n) => n.dataset.tile), state.rove]
    .find((t) => t && nodes.some((n) => n.dataset.tile === t)) || (nodes[0] && nodes[0].dataset.tile);
  for (const n of nodes) n.tabIndex = n.dataset.tile === stop ? 0 : -1;
  box.replaceChildren(...nodes);
  box.drawn = key;
  if (focused) focusTile(focused);
}

function roveHand(event) {
  state.rove = event.target.dataset.tile;
  for (const n of $("hand").children) n.tabIndex = n === event.target ? 0 : -1;
}

function moveInHand(target, key) {
  const tiles = [...$("hand").children];
  const at = { ArrowLeft: tiles.indexOf(target) - 1, ArrowRight: tiles.indexOf(target) + 1, Home: 0, End: tiles.length - 1 }[key];
  tiles[Math.max(0, Math.min(tiles.length - 1, at))].focus();
}

function renderTools(answer) {
  const allowed = new Set(answer.allowed);
  const key = JSON.stringify([answer.allowed, answer.table.rated, myTurn(), state.hint && state.hint.text, state.sending]);
  const can = (name) => allowed.has(name) && !state.sending;
  if ($("tools").drawn === key) return;
  $("tools").drawn = key;
  const tools = [
    button(W.rules, () => openPanel("rules"), { "data-tool": "rules", "aria-keyshortcuts": "R" }),
    button(W.log, () => openPanel("log"), { "data-tool": "log", "aria-keyshortcuts": "L" }),
  ];
  if (!answer.table.rated) {
    tools.push(button(W.hint, getHint, { "data-tool": "hint", disabled: !myTurn() || state.sending, "aria-keyshortcuts": "H" }));
    tools.push(button(W.undo, () => act("undo"), { "data-tool": "undo", disabled: !can("undo"), "aria-keyshortcuts": "U" }));
    tools.push(button(W.redo, () => act("redo"), { "data-tool": "redo", disabled: !can("redo"), "aria-keyshortcuts": "Y" }));
    tools.push(button(W.restart_hand, () => confirmThen(W.confirm_restart, () => act("restart_hand")), { "data-tool": "restart_hand", disabled: !can("restart_hand") }));
    tools.push(button(W.new_match, () => confirmThen(W.confirm_new_match, () => act("new_match")), { "data-tool": "new_match", disabled: !can("new_match") }));
    tools.push(button(W.leave, () => confirmThen(W.confirm_leave, leave), { "data-tool": "leave" }));
  }
  const sound = el("label", { class: "toggle" }, [el("input", { type: "checkbox", "data-pref": "sound", checked: prefs.sound ? true : null }), document.createTextNode(W.sound)]);
  const buzz = el("label", { class: "toggle" }, [el("input", { type: "checkbox", "data-pref": "vibrate", checked: prefs.vibrate ? true : null }), document.createTextNode(W.vibrate)]);
  tools.push(sound);
  if (navigator.vibrate) tools.push(buzz);
  $("tools").replaceChildren(...tools);
  if (state.hint) $("tools").append(el("p", { class: "hint-text", role: "status", text: state.hint.text }));
}

// -- dialogs: the hand's end, the match's end, panels, questions ---------------------------
function renderDialog(answer) {
  const box = $("dialog");
  const v = answer.view;
  let kind = null;
  let key = null;
  if (state.ask) [kind, key] = ["ask", state.ask.text];
  else if (state.panel) [kind, key] = ["panel", state.panel + v.turns.length + "/" + v.results.length + v.hand_no];
  else if (answer.takeback) [kind, key] = ["takeback", JSON.stringify([answer.takeback, answer.allowed])];
  else if (!state.handoff && state.seen && v.results.length > state.seen.results && v.last_hand) [kind, key] = ["reveal", "r" + v.results.length];
  else if (v.phase === "match_over" && !(state.seen && state.seen.matchOver === v.results.length)) [kind, key] = ["over", "o" + v.results.length + v.winner];
  const open = Boolean(kind);
  const wasOpen = !box.hidden;
  box.hidden = !open;
  root.classList.toggle("dialog-open", open);
  if (open) {
    if (box.drawn === kind + key) return;
    const build = { ask: askDialog, panel: panelDialog, takeback: takebackDialog, reveal: revealDialog, over: matchOverDialog }[kind];
    fill(box, [build(answer)]);
    box.drawn = kind + key;
    // read with its title when focus enters: the hand's result, not only "Continue"
    if ($("dialog-said")) box.setAttribute("aria-describedby", "dialog-said");
    else box.removeAttribute("aria-describedby");
    if (!wasOpen || !box.contains(document.activeElement)) {
      const first = box.querySelector("button.primary, button");
      if (first) first.focus();
    }
  } else {
    fill(box, []);
  }
}

function dialogBody(title, kind, parts, buttons) {
  return el("div", { class: `dialog-body ${kind}`, "data-dialog": kind, "aria-labelledby": "dialog-title" }, [
    el("h2", { id: "dialog-title", text: title }),
    ...parts,
    el("div", { class: "dialog-buttons" }, buttons),
  ]);
}

function revealDialog(answer) {
  const v = answer.view;
  const last = v.last_hand;
  const rows = [1, 2, 3, 4].map((seat) => {
    const team = teamOf(v, seat);
    const tiles = (last.hands[String(seat)] || []).map((t) => {
      const [a, b] = t.split("-").map(Number);
      const holder = el("span", { class: "shown-tile", role: "img", "aria-label": spoken(t), "data-tile": t }, [tileSvg(a, b, true)]);
      return holder;
    });
    return el("tr", { class: `team-${team}`, "data-seat": seat }, [
      el("th", { scope: "row", text: `${seatTitle(answer, seat)} · ${fmt(W.team, { team })}` }),
      el("td", {}, [el("div", { class: "tiles" }, tiles)]),
      el("td", { class: "pips", text: count(W.pips, (last.pips || {})[String(seat)] || 0) }),
    ]);
  });
  const lines = [el("p", { class: `banner${last.dekabes ? " dekabes" : ""}`, "data-result": last.result, text: resultText(last) })];
  const ends = answer.last_tile_ends;
  if (ends) {
    const words = { tile: ends.tile, left: ends.ends[0], right: ends.ends[1] };
    lines.push(el("p", { class: "why", text: fmt(last.dekabes ? W.why_dekabes : W.why_not_dekabes, words) }));
  }
  const score = `${fmt(W.team, { team: "A" })} ${v.scores.A} · ${fmt(W.team, { team: "B" })} ${v.scores.B}`;
  lines.push(el("p", { class: "score-line", text: v.phase === "match_over" ? `${score} · ${W.match_over}` : `${score} · ${fmt(W.next_base, { n: v.base })}` }));
  const table = el("table", { class: "reveal-hands" }, [el("tbody", {}, rows)]);
  return dialogBody(fmt(W.hand_over, { n: last.hand_no }), "reveal", [el("div", { id: "dialog-said" }, lines), table], [
    button(W.continue, () => seen({ results: v.results.length }), { class: "primary", "data-action": "continue" }),
  ]);
}

function matchOverDialog(answer) {
  const v = answer.view;
  const won = { A: 0, B: 0 };
  for (const r of v.results) if (r.team in won) won[r.team] += 1;
  const parts = [
    el("p", { class: "banner", text: fmt(W.match_won, { team: v.winner, a: v.scores.A, b: v.scores.B }) }),
    el("p", { class: "verdict", text: v.winner === v.team ? W.you_won : W.you_lost }),
    el("p", { text: `${fmt(W.team, { team: "A" })}: ${fmt(W.wins, { n: won.A })} · ${fmt(W.team, { team: "B" })}: ${fmt(W.wins, { n: won.B })}` }),
  ];
  const buttons = [button(W.close, () => seen({ matchOver: v.results.length }), { class: "primary", "data-action": "close" })];
  if (answer.allowed.includes("new_match")) {
    buttons.push(button(W.new_match, () => { seen({ matchOver: v.results.length }); act("new_match"); }, { "data-action": "new_match" }));
  }
  return dialogBody(W.match_over, "match-over", [el("div", { id: "dialog-said" }, parts)], buttons);
}

// The log's sentence for a play, by the end it was laid on (the log panel, the said log).
function playWords(turn) {
  return turn.end === "left" ? W.log_play_left : turn.end === "right" ? W.log_play_right : W.log_play;
}

function panelDialog(answer) {
  const v = answer.view;
  let parts;
  if (state.panel === "rules") {
    parts = [el("ul", { class: "rules" }, W.rules_text.split("|").map((t) => el("li", { text: t })))];
  } else {
    const lines = v.turns.map((t) => {
      if (t.type === "pass") return el("li", { text: fmt(W.log_pass, { s: t.seat }) });
      return el("li", { text: fmt(playWords(t), { s: t.seat, t: t.tile }) });
    });
    parts = [
      el("h3", { text: fmt(W.hand_no, { n: Math.max(1, v.hand_no) }) }),
      lines.length ? el("ol", { class: "log" }, lines) : el("p", { text: W.log_no_moves }),
      el("h3", { text: W.log_hands }),
      el("ol", { class: "results" }, v.results.map((r) => el("li", { text: resultText(r) }))),
    ];
  }
  parts.push(el("p", { class: "note", text: W.pauses_computers }));
  return dialogBody(state.panel === "rules" ? W.rules : W.log, `panel-${state.panel}`, parts, [
    button(W.close, closePanel, { class: "primary", "data-action": "close-panel" }),
  ]);
}

function takebackDialog(answer) {
  const t = answer.takeback;
  const what = W["cmd_" + t.command] || t.command;
  if (answer.allowed.includes("accept_takeback")) {
    return dialogBody(fmt(W.takeback_asks, { n: t.seat, what }), "takeback", [], [
      button(W.agree, () => act("accept_takeback"), { class: "primary", "data-action": "accept_takeback" }),
      button(W.decline, () => act("decline_takeback"), { "data-action": "decline_takeback" }),
    ]);
  }
  const seats = t.waiting_for.map((n) => fmt(W.seat, { n })).join(", ");
  return el("div", { class: "dialog-body takeback-wait", "data-dialog": "takeback-wait" }, [el("h2", { id: "dialog-title", text: fmt(W.takeback_wait, { what, seats }) })]);
}

function askDialog() {
  const ask = state.ask;
  return dialogBody(ask.text, "confirm", [], [
    button(W.yes, () => { state.ask = null; ask.then(); render(); }, { class: "primary", "data-action": "yes" }),
    button(W.no, () => { state.ask = null; render(); }, { "data-action": "no" }),
  ]);
}

// The notices are a live region: a notice is added once and left alone (redrawn, every
// notice would be read out again at each move). A pass is said in #said, in its turn.
function renderNotices() {
  const box = $("notices");
  const keys = state.notices.map((n) => n.key);
  for (const node of [...box.children]) if (!keys.includes(node.dataset.key)) node.remove();
  const shown = [...box.children].map((node) => node.dataset.key);
  for (const n of state.notices) {
    if (shown.includes(n.key)) continue;
    box.append(el("p", { class: `notice ${n.kind || ""}`, text: n.text, "data-key": n.key, "aria-hidden": n.kind === "pass" ? "true" : null }));
  }
}

let notices = 0;
function notice(text, kind) {
  notices += 1;
  state.notices = state.notices.filter((n) => n.text !== text).concat([{ text, kind, key: String(notices) }]).slice(-3);
}

// What a screen reader hears of the other seats: each play and each pass as it comes, in
// order, in a log (the line and the notices show them; the prompt says whose turn it is).
function say(text) {
  $("said").append(el("p", { text }));
}

// -- doing things ----------------------------------------------------------------------------
let link;

function act(type, fields) {
  const answer = mine();
  if (!answer || !link) return;
  const allowed = answer.allowed.includes(type);
  if (!allowed) return;
  if (link.send(state.shown, type, fields)) {
    state.sending = true;
    state.selection = null;
    state.hint = null;
    render();
  }
}

function pick(tile) {
  const v = view();
  if (!v || state.handoff) return;
  const plays = v.phase === "play" ? legalPlays(v) : new Map();
  const sel = state.selection;
  if (sel && sel.tile === tile && plays.has(tile)) {
    const ends = plays.get(tile);
    if (ends.length === 1) return play(tile, ends[0]);
    if (sel.end) return play(tile, sel.end);
  }
  state.selection = { tile, end: null };
  render();
  focusTile(tile);
}

function play(tile, end) {
  if (link && link.pending) return;
  state.ghost = { tile, end: end || null };
  act("play", end ? { tile, end } : { tile });
  if (!link.pending) state.ghost = null;
}

function step(by) {
  const v = view();
  if (!v) return;
  const plays = legalPlays(v);
  const tiles = v.hand.filter((t) => plays.has(t));
  if (!tiles.length) return;
  const now = state.selection ? tiles.indexOf(state.selection.tile) : -1;
  const next = tiles[(now + by + tiles.length) % tiles.length] || tiles[0];
  state.selection = { tile: next, end: null };
  render();
  focusTile(next);
}

function chooseEnd(end) {
  const v = view();
  if (!v || !state.selection) return;
  const ends = legalPlays(v).get(state.selection.tile) || [];
  state.selection.end = ends.includes(end) ? end : ends.length === 1 ? ends[0] : null;
  render();
}

function confirmPlay() {
  const v = view();
  if (!v || !state.selection) return;
  const ends = legalPlays(v).get(state.selection.tile) || [];
  const end = state.selection.end || (ends.length === 1 ? ends[0] : null);
  if (ends.length && (end !== null || ends[0] === null)) play(state.selection.tile, end);
}

function focusTile(tile) {
  const node = document.querySelector(`#hand [data-tile="${tile}"]`);
  if (node) node.focus();
}

async function getHint() {
  const v = view();
  if (!v || !link) return;
  const hint = await link.hint(state.shown);
  if (!hint) {
    state.hint = { text: W.hint_none };
  } else if (hint.type === "play") {
    const where = hint.end === "left" ? fmt(W.play_left, { n: v.ends[0] }) : hint.end === "right" ? fmt(W.play_right, { n: v.ends[1] }) : fmt(W.play, { tile: hint.tile });
    state.hint = { tile: hint.tile, text: fmt(W.hint_is, { move: `${hint.tile} — ${where}` }) };
    state.selection = { tile: hint.tile, end: hint.end || null };
  } else {
    const words = { accept: W.accept, claim_redeal: W.claim_redeal, choose_opener: hint.opener === v.seat ? W.open_me : W.open_partner };
    state.hint = { text: fmt(W.hint_is, { move: words[hint.type] || hint.type }) };
  }
  render();
}

function openPanel(name) {
  const answer = mine();
  state.panel = state.panel === name ? null : name;
  if (state.panel && answer && answer.allowed.includes("pause")) act("pause");
  render();
}

function closePanel() {
  state.panel = null;
  const answer = mine();
  if (answer && answer.allowed.includes("resume")) act("resume");
  render();
}

function confirmThen(text, then) {
  state.ask = { text, then };
  render();
}

async function leave() {
  const seat = state.shown;
  if (await link.leave(seat)) {
    state.left.add(seat);
    notice(W.left_table);
    const next = seatToShow();
    if (next === null) {
      root.dataset.state = "left";
      fill($("hand"), []);
      $("prompt").textContent = W.left_table;
      renderNotices();
      return;
    }
    state.shown = next;
  }
  render();
}

function seen(what) {
  state.seen = Object.assign({}, state.seen, what);
  sessionStorage.setItem(STORE, JSON.stringify(state.seen));
  render();
}

function askHandoff(seat) {
  if (seat === state.shown && !state.handoff) return;
  state.handoff = seat;
  state.selection = null;
  state.hint = null;
  render();
}

function showHandoff() {
  state.shown = state.handoff;
  state.handoff = null;
  render();
}

function signalTurn() {
  if (prefs.sound) {
    try {
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.value = 0.08;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.15);
    } catch (e) {
      /* no sound here */
    }
  }
  if (prefs.vibrate && navigator.vibrate) navigator.vibrate(150);
}

// -- what arrives ----------------------------------------------------------------------------
function onAnswer(answer) {
  const before = state.answers[answer.seat];
  state.answers[answer.seat] = answer;
  if (!state.seen) {
    // First sight: what ended before the page opened is not shown again, except the
    // last hand's end while the next one has not started.
    const v = answer.view;
    const fresh = v.last_hand && v.turns.length === 0 && v.phase !== "match_over" ? 1 : 0;
    state.seen = { results: v.results.length - fresh, handovers: maxSeq(answer), matchOver: null };
    sessionStorage.setItem(STORE, JSON.stringify(state.seen));
  }
  if (answer.seat === state.shown || state.shown === null) {
    state.sending = Boolean(link && link.pending);
    if (!state.sending) state.ghost = null;
    news(before, answer);
  }
  const wanted = seatToShow();
  if (state.shown === null) {
    state.shown = wanted;
  } else if (wanted !== state.shown && !state.handoff) {
    state.handoff = wanted; // several seats on one device: the next one's tiles wait
  }
  if (state.selection && !(answer.view.hand || []).includes(state.selection.tile) && answer.seat === state.shown) state.selection = null;
  if (before && before.version !== answer.version && answer.seat === state.shown) state.hint = null;
  render();
}

function maxSeq(answer) {
  return answer.table.handovers.reduce((m, h) => Math.max(m, h.seq), 0);
}

function news(before, answer) {
  const v = answer.view;
  for (const h of answer.table.handovers) {
    if (h.seq > ((state.seen && state.seen.handovers) || 0)) {
      notice(h.to ? fmt(W.handover, { n: h.seat, to: h.to }) : fmt(W.handover_open, { n: h.seat }), "handover");
      state.seen.handovers = h.seq;
      sessionStorage.setItem(STORE, JSON.stringify(state.seen));
    }
  }
  if (answer.table.forfeited && !(before && before.table.forfeited)) notice(W.forfeited, "forfeit");
  // Passes as they happen, and the others' plays said: the turns this answer added.
  if (before && before.view.hand_no !== v.hand_no) $("said").replaceChildren();
  if (before && before.view.hand_no === v.hand_no) {
    for (const t of v.turns.slice(before.view.turns.length)) {
      if (t.type === "pass") {
        const text = fmt(W.passed, { n: t.seat, a: t.ends[0], b: t.ends[1] });
        notice(text, "pass");
        say(text);
      } else if (t.seat !== v.seat) {
        say(fmt(playWords(t), { s: t.seat, t: spoken(t.tile) }));
      }
    }
  } else if (before && v.phase === "accept" && before.view.phase !== "accept" && v.results.length === before.view.results.length) {
    notice(W.redeal_claimed);
  }
}

function onSettled() {
  state.sending = Boolean(link && link.pending);
  if (!state.sending) state.ghost = null;
  if (mine()) render();
}

function onPresence(presence) {
  for (const answer of Object.values(state.answers)) answer.presence = presence;
  render();
}

function onStatus(status) {
  state.status = status;
  const text = { live: W.online, polling: W.online, lost: W.reconnecting, offline: W.offline_queued }[status] || "";
  const box = $("connection");
  box.textContent = link && link.pending && status !== "live" && status !== "polling" ? W.offline_queued : text;
  box.dataset.status = status;
  state.sending = Boolean(link && link.pending);
  if (mine()) render();
}

function onRefused(seat, code, message) {
  state.sending = false;
  state.ghost = null;
  if (code === "stale_version") notice(W.stale, "refused");
  else if (code === "not_your_seat") notice(W.not_your_seat, "refused");
  else notice(fmt(W.refused, { why: message || code }), "refused");
  render();
}

function onLeft(seat) {
  state.left.add(seat);
  notice(W.not_your_seat, "refused");
  if (seatToShow() === null) {
    root.dataset.state = "left";
    renderNotices();
    return;
  }
  state.shown = seatToShow();
  if (mine()) render();
}

// -- keys (the desktop table's) ---------------------------------------------------------------
const KEYS = {
  ArrowLeft: () => step(-1),
  ArrowRight: () => step(1),
  ArrowUp: () => chooseEnd("left"),
  ArrowDown: () => chooseEnd("right"),
  "[": () => chooseEnd("left"),
  "]": () => chooseEnd("right"),
  Home: () => chooseEnd("left"),
  End: () => chooseEnd("right"),
  Escape: () => { state.selection = null; render(); },
  Backspace: () => { state.selection = null; render(); },
  a: () => act("accept"),
  c: () => act("claim_redeal"),
  1: () => chooseOpener(true),
  2: () => chooseOpener(false),
  h: () => !mine().table.rated && myTurn() && getHint(),
  u: () => act("undo"),
  y: () => act("redo"),
  r: () => openPanel("rules"),
  l: () => openPanel("log"),
};

function chooseOpener(me) {
  const v = view();
  if (!v) return;
  const choice = legalOf(v, "choose_opener").find((c) => (c.opener === v.seat) === me);
  if (choice) act("choose_opener", { opener: choice.opener });
}

function onKey(event) {
  if (!mine() || event.altKey || event.metaKey) return;
  const target = event.target;
  if (event.key === "Tab" && !event.ctrlKey) return keepTabInDialog(event);
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  const dialogOpen = !$("dialog").hidden;
  if (event.ctrlKey) {
    if (event.key === "z" && !dialogOpen) { act(event.shiftKey ? "redo" : "undo"); event.preventDefault(); }
    return;
  }
  if (dialogOpen) {
    if (event.key === "Escape") {
      if (state.panel) closePanel();
      else if (state.ask) { state.ask = null; render(); }
      else {
        // only where closing loses nothing: a takeback asked of this seat waits for its answer
        const close = $("dialog").querySelector('[data-action="continue"], [data-action="close"]');
        if (close) close.click();
      }
      event.preventDefault();
    }
    return; // Enter and Space press the focused button
  }
  const onTile = target && target.classList && target.classList.contains("tile-button");
  if (onTile && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) {
    moveInHand(target, event.key);
    event.preventDefault();
    return;
  }
  if (event.key === "Enter" || event.key === " ") {
    if (onTile) {
      pick(target.dataset.tile);
      event.preventDefault();
      return;
    }
    if (target && target.closest && target.closest("button, a[href]")) return; // its own click (a link: followed)
    const v = view();
    if (v && v.phase === "accept" && legalOf(v, "accept").length && !state.selection) act("accept");
    else if (state.handoff) showHandoff();
    else confirmPlay();
    event.preventDefault();
    return;
  }
  const command = KEYS[event.key];
  if (command) {
    command();
    event.preventDefault();
  }
}

// The dialogs are modal: Tab and Shift+Tab go round their buttons, not to the page behind.
function keepTabInDialog(event) {
  const box = $("dialog");
  if (box.hidden) return;
  const stops = [...box.querySelectorAll("button:not(:disabled)")];
  event.preventDefault();
  if (!stops.length) return;
  const at = stops.indexOf(document.activeElement);
  const to = event.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at + 1) % stops.length;
  stops[to].focus();
}

function onPref(event) {
  const name = event.target.dataset && event.target.dataset.pref;
  if (!name) return;
  prefs[name] = event.target.checked;
  localStorage.setItem("dekabes-play-prefs", JSON.stringify(prefs));
}

// -- start ---------------------------------------------------------------------------------------
setup.title = document.title;
document.addEventListener("keydown", onKey);
$("tools").addEventListener("change", onPref);
$("hand").addEventListener("focusin", roveHand);
// focus that reaches the page behind an open dialog (a click, a screen reader) goes back in
document.addEventListener("focusin", (event) => {
  const box = $("dialog");
  const first = !box.hidden && !box.contains(event.target) && box.querySelector("button.primary, button");
  if (first) first.focus();
});
window.addEventListener("resize", () => { state.lineWidth = null; if (mine()) render(); });
link = new SeatLink(setup.code, setup.seats, setup.csrf, { onAnswer, onPresence, onStatus, onRefused, onLeft, onSettled });
window.dekabesTable = { state, link }; // for the browser tests' checks
link.start();
