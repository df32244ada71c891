// Times in the reader's own zone (issue #33): each <time class="club-time"> is shown in
// the club's zone by the server; when the reader's zone differs at that instant, add
// their own time beside it. Display only: nothing is decided here.
(function () {
  "use strict";
  var fmt;
  try {
    fmt = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short"
    });
  } catch (e) { return; }
  var label = document.body.getAttribute("data-your-time") || "your time";
  document.querySelectorAll("time.club-time").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (isNaN(when.getTime())) { return; }
    var theirs = fmt.format(when);
    var zone = el.querySelector(".zone");
    if (zone && theirs.indexOf(zone.textContent) !== -1) { return; }  // same zone
    var mine = document.createElement("small");
    mine.className = "your-time";
    mine.textContent = " · " + theirs + " (" + label + ")";
    el.appendChild(mine);
  });
})();
