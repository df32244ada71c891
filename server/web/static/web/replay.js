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
  var results = Array.prototype.slice.call(document.querySelectorAll("[data-result]"));
  var handJump = document.getElementById("hand-jump");
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
    document.getElementById("hand-no").textContent = f.hand_no;
    document.getElementById("score-A").textContent = f.scores[0];
    document.getElementById("score-B").textContent = f.scores[1];
    document.getElementById("base").textContent = f.base;
    document.getElementById("step-no").textContent = step + 1;
    root.setAttribute("data-step", step + 1);
    root.setAttribute("data-phase", f.phase);
    results.forEach(function (p, i) { p.hidden = f.result !== i; });
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
    if (history.replaceState) history.replaceState(null, "", "#step-" + (step + 1));
  }

  var moves = {
    first: function () { return 0; },
    prev: function () { return step - 1; },
    next: function () { return step + 1; },
    last: function () { return frames.length - 1; }
  };
  root.querySelectorAll("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () { show(moves[button.getAttribute("data-go")]()); });
  });
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
    if (e.altKey || e.ctrlKey || e.metaKey || !keys[e.key]) return;
    e.preventDefault();
    show(moves[keys[e.key]]());
  });
  var fromHash = /^#step-(\d+)$/.exec(location.hash);
  show(fromHash ? +fromHash[1] - 1 : 0);
}());
