// The replay viewer: shows the frames the server folded (json_script "replay-frames").
// It draws no tile of its own and knows no rule: it clones the server's tile prototypes,
// puts the frame's numbers on them, and shows or hides the server's log lines.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var frames = JSON.parse(document.getElementById("replay-frames").textContent);
  var protoH = document.getElementById("tile-h").content.firstElementChild;
  var protoV = document.getElementById("tile-v").content.firstElementChild;
  var lineBox = document.getElementById("line");
  var logItems = Array.prototype.slice.call(document.querySelectorAll("#log li"));
  // A seat that changed hands names, at each step, whoever held it then (server's spans).
  var holders = Array.prototype.slice.call(document.querySelectorAll("[data-holder-from]"));
  var results = Array.prototype.slice.call(document.querySelectorAll("[data-result]"));
  var handJump = document.getElementById("hand-jump");
  var analysisData = document.getElementById("replay-analysis");
  var analysis = analysisData ? JSON.parse(analysisData.textContent) : null;
  var mistakeSteps = [];
  if (analysis) {
    Object.keys(analysis).forEach(function (k) {
      var m = analysis[k].mark;
      if (m === "mistake" || m === "blunder") mistakeSteps.push(+k);
    });
    mistakeSteps.sort(function (a, b) { return a - b; });
  }
  var graphs = Array.prototype.slice.call(document.querySelectorAll("[data-graph]"));
  var points = Array.prototype.slice.call(document.querySelectorAll("[data-point]"));
  var mistakeItems = Array.prototype.slice.call(document.querySelectorAll("[data-mistake]"));
  var playButton = document.getElementById("autoplay");
  var speed = document.getElementById("autoplay-speed");
  var timer = null;
  var step = 0;

  function tile(a, b, vertical, seat) {
    var svg = (vertical ? protoV : protoH).cloneNode(true);
    svg.querySelector(".half-a").setAttribute("href", "#pips-" + a);
    svg.querySelector(".half-b").setAttribute("href", "#pips-" + b);
    svg.setAttribute("data-tile", a + "-" + b);
    svg.setAttribute("aria-label", a + "-" + b);
    if (seat) svg.setAttribute("data-by", seat);
    return svg;
  }

  function fill(box, nodes) {
    while (box.firstChild) box.removeChild(box.firstChild);
    nodes.forEach(function (n) { box.appendChild(n); });
  }

  function show(n) {
    step = Math.max(0, Math.min(frames.length - 1, n));
    var f = frames[step];
    // Doubles stand crosswise in the line, as on the desktop table.
    fill(lineBox, f.line.map(function (t) { return tile(t[0], t[1], t[0] === t[1], t[2]); }));
    for (var s = 1; s <= 4; s++) {
      var box = root.querySelector('[data-hand="' + s + '"]');
      fill(box, f.hands[s - 1].map(function (text) {
        var ab = text.split("-");
        return tile(ab[0], ab[1], true);
      }));
      box.setAttribute("data-count", f.hands[s - 1].length);
      root.querySelector('[data-seat="' + s + '"]').classList.toggle("to-act", f.to_act === s);
    }
    // Before the first deal the coming hand is the first one (never "Hand 0").
    document.getElementById("hand-no").textContent = Math.max(1, f.hand_no);
    document.getElementById("score-A").textContent = f.scores[0];
    document.getElementById("score-B").textContent = f.scores[1];
    document.getElementById("base").textContent = f.base;
    document.getElementById("step-no").textContent = step + 1;
    root.setAttribute("data-step", step + 1);
    root.setAttribute("data-phase", f.phase);
    results.forEach(function (p, i) { p.hidden = f.result !== i; });
    holders.forEach(function (h) {
      h.hidden = step < +h.getAttribute("data-holder-from") ||
        step >= +h.getAttribute("data-holder-until");
    });
    logItems.forEach(function (li, i) {
      li.hidden = i > step;
      li.classList.toggle("current", i === step);
    });
    var current = logItems[step];
    if (current) {
      var log = current.parentNode;
      log.scrollTop = current.offsetTop - log.offsetTop - log.clientHeight / 2;
    }
    for (var h = handJump.options.length - 1; h >= 0; h--) {
      if (+handJump.options[h].value <= step) { handJump.selectedIndex = h; break; }
    }
    root.querySelector('[data-go="first"]').disabled = step === 0;
    root.querySelector('[data-go="prev"]').disabled = step === 0;
    root.querySelector('[data-go="next"]').disabled = step === frames.length - 1;
    root.querySelector('[data-go="last"]').disabled = step === frames.length - 1;
    showAnalysis();
    if (step === frames.length - 1) stopAutoplay();
    if (history.replaceState) history.replaceState(null, "", "#step-" + (step + 1));
  }

  function nextMistake() {
    for (var i = 0; i < mistakeSteps.length; i++) {
      if (mistakeSteps[i] > step) return mistakeSteps[i];
    }
    return step;
  }

  function showAnalysis() {
    if (!analysis) return;
    var d = analysis[step];
    var box = document.getElementById("decision");
    document.getElementById("decision-none").hidden = !!d;
    box.hidden = !d;
    if (d) {
      box.querySelector(".dec-seat").textContent = box.getAttribute("data-seat-label").replace("%s", d.seat);
      box.querySelector(".dec-played").textContent = d.played;
      box.querySelector(".dec-best").textContent = d.best;
      box.querySelector(".dec-loss").textContent = d.loss.toFixed(3);
      var mark = box.querySelector(".mark");
      mark.setAttribute("data-mark", d.mark);
      mark.textContent = d.mark_text;
    }
    var hand = -1;
    for (var h = handJump.options.length - 1; h >= 0; h--) {
      if (+handJump.options[h].value <= step) { hand = h; break; }
    }
    graphs.forEach(function (g) { g.hidden = +g.getAttribute("data-graph") !== Math.max(hand, 0); });
    points.forEach(function (p) { p.classList.toggle("current", +p.getAttribute("data-point") === step); });
    mistakeItems.forEach(function (li) { li.classList.toggle("current", +li.getAttribute("data-mistake") === step); });
    var next = root.querySelector('[data-go="next-mistake"]');
    if (next) next.disabled = nextMistake() === step;
  }

  function stopAutoplay() {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = playButton.getAttribute("data-play");
    root.removeAttribute("data-playing");
  }

  function startAutoplay() {
    stopAutoplay();
    if (step === frames.length - 1) show(0);
    timer = setInterval(function () { show(step + 1); }, +speed.value);
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = playButton.getAttribute("data-pause");
    root.setAttribute("data-playing", "true");
  }

  function toggleAutoplay() {
    if (timer === null) startAutoplay(); else stopAutoplay();
  }

  var moves = {
    first: function () { return 0; },
    prev: function () { return step - 1; },
    next: function () { return step + 1; },
    last: function () { return frames.length - 1; },
    "next-mistake": nextMistake
  };
  root.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () {
      stopAutoplay();
      show(moves[button.getAttribute("data-go")]());
    });
  });
  playButton.addEventListener("click", toggleAutoplay);
  speed.addEventListener("change", function () { if (timer !== null) startAutoplay(); });
  root.querySelectorAll("[data-jump]").forEach(function (link) {
    link.addEventListener("click", function (e) {
      e.preventDefault();
      show(+link.getAttribute("data-jump"));
      document.getElementById("board").scrollIntoView({block: "nearest"});
    });
  });
  handJump.addEventListener("change", function () { show(+handJump.value); });
  var keys = {ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last"};
  document.addEventListener("keydown", function (e) {
    var target = e.target.tagName;
    if (target === "INPUT" || target === "SELECT" || target === "TEXTAREA") return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " " && target !== "BUTTON") {
      e.preventDefault();
      toggleAutoplay();
      return;
    }
    if (!keys[e.key]) return;
    e.preventDefault();
    stopAutoplay();
    show(moves[keys[e.key]]());
  });

  function fromHash() {
    var found = /^#step-(\d+)$/.exec(location.hash);
    return found ? +found[1] - 1 : null;
  }
  // Editing #step-N in the address (or following a link to one) moves the viewer.
  window.addEventListener("hashchange", function () {
    var n = fromHash();
    if (n !== null && n !== step) {
      stopAutoplay();
      show(n);
    }
  });
  var first = fromHash();
  show(first !== null ? first : 0);
}());
