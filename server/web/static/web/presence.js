// The round page's presence marks (issue #33): who is at each table now, followed every
// 15 seconds for the organizer (GET …/rounds/<n>/presence). Display only.
(function () {
  "use strict";
  var box = document.getElementById("round-actions");
  if (!box || !box.dataset.presenceUrl || !window.fetch) { return; }
  function refresh() {
    fetch(box.dataset.presenceUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        Object.keys(data.seats).forEach(function (key) {
          var mark = box.querySelector('[data-presence="' + key + '"]');
          if (!mark) { return; }
          var here = data.seats[key];
          if (mark.classList.contains("here") === here) { return; }
          mark.classList.toggle("here", here);
          mark.classList.toggle("away", !here);
          mark.textContent = here ? box.dataset.here : box.dataset.away;
        });
      })
      .catch(function () {});
  }
  window.setInterval(refresh, 15000);
})();
