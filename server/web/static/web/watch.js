// The watch page follows the table by itself: it asks the page again every few
// seconds and swaps the board in when it changed (a move, a seat come or gone). Without
// JavaScript the "Reload" link does the same by hand.
(function () {
  "use strict";
  var board = document.getElementById("watch");
  if (!board || !window.fetch || !window.DOMParser) {
    return;
  }
  var EVERY_MS = 3000;
  var live = board.querySelector(".watch-live");
  if (live) {
    live.hidden = false;
  }
  function look() {
    fetch(window.location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (answer) {
        return answer.ok ? answer.text() : null;
      })
      .then(function (text) {
        if (text === null) {
          return;
        }
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("watch");
        if (fresh && fresh.innerHTML !== board.innerHTML) {
          board.replaceWith(fresh);
          board = fresh;
          var note = board.querySelector(".watch-live");
          if (note) {
            note.hidden = false;
          }
        }
      })
      .catch(function () {})
      .then(function () {
        window.setTimeout(look, EVERY_MS);
      });
  }
  window.setTimeout(look, EVERY_MS);
})();
