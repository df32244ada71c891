// The watch page follows the table by itself: it asks the page again every few
// seconds and swaps the board in when it changed (a move, a seat come or gone). Without
// JavaScript the "Reload" link does the same by hand. The heading, the news line and the
// links stay: the news line is a live region (a screen reader reads the new move out),
// and a reader's focus or place on the page is not thrown away every few seconds.
(function () {
  "use strict";
  var board = document.getElementById("watch-board");
  var news = document.getElementById("watch-news");
  if (!board || !news || !window.fetch || !window.DOMParser) {
    return;
  }
  var EVERY_MS = 3000;
  var live = document.querySelector("#watch .watch-live");
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
        var page = new DOMParser().parseFromString(text, "text/html");
        var fresh = page.getElementById("watch-board");
        var said = page.getElementById("watch-news");
        if (fresh && fresh.innerHTML !== board.innerHTML) {
          board.replaceWith(fresh);
          board = fresh;
        }
        if (said && said.textContent !== news.textContent) {
          news.textContent = said.textContent;
        }
      })
      .catch(function () {})
      .then(function () {
        window.setTimeout(look, EVERY_MS);
      });
  }
  window.setTimeout(look, EVERY_MS);
})();
