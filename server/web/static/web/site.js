/* Dékabès pages: small enhancements, every page works without them.
 *
 * - <select data-autosubmit> sends its form when changed (the form keeps its own button
 *   inside <noscript>).
 * - <button data-copy="ID" hidden> copies the value of the input ID (a seat's share link);
 *   shown only where the clipboard answers (otherwise the input is there to select).
 * - Live pages: <main data-live="URL" data-live-version="N"> long-polls URL?after=N&wait=25
 *   (a JSON {"version": n} answer, see docs/web.md "Live pages"); when the version moved,
 *   the page is fetched again and its <main> swapped in, unless a form on it is being
 *   filled in (then a notice offers the reload). Refusals and errors back off.
 */
(function () {
  "use strict";

  function autosubmit(root) {
    root.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }

  var main = document.getElementById("main");
  var dirty = false;
  var WAIT = 25;

  function watchForms() {
    dirty = false;
    main.querySelectorAll("form").forEach(function (form) {
      form.addEventListener("input", function () { dirty = true; });
      form.addEventListener("change", function () { dirty = true; });
    });
  }

  function notice() {
    if (document.getElementById("live-notice")) return;
    var p = document.createElement("p");
    p.id = "live-notice";
    p.className = "notice live-notice";
    var a = document.createElement("a");
    a.href = location.href;
    a.textContent = main.dataset.liveNotice || "Reload";
    p.appendChild(a);
    main.insertBefore(p, main.firstChild);
  }

  function refresh() {
    if (dirty) { notice(); return Promise.resolve(false); }
    return fetch(location.href, { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw r; return r.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("main");
        if (!fresh) return false;
        main.innerHTML = fresh.innerHTML;
        main.dataset.liveVersion = fresh.dataset.liveVersion || "";
        autosubmit(main);
        copyButtons(main);
        watchForms();
        main.dataset.liveRefreshed = String(Number(main.dataset.liveRefreshed || 0) + 1);
        return true;
      });
  }

  function poll() {
    var url = main.dataset.live;
    if (!url || dirty && document.getElementById("live-notice")) return;
    var version = main.dataset.liveVersion;
    var sep = url.indexOf("?") < 0 ? "?" : "&";
    main.dataset.livePolling = version;  // a long-poll for this version is out
    fetch(url + sep + "after=" + encodeURIComponent(version) + "&wait=" + WAIT, {
      credentials: "same-origin",
      headers: { Accept: "application/json" }
    })
      .then(function (r) { if (!r.ok) throw r; return r.json(); })
      .then(function (body) {
        if (String(body.version) !== String(version)) return refresh();
        return true;
      })
      .then(function () { setTimeout(poll, 50); },
            function () { setTimeout(poll, 10000); });
  }

  function copyButtons(root) {
    if (!navigator.clipboard) return;
    root.querySelectorAll("button[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.dataset.copy);
        if (!field) return;
        navigator.clipboard.writeText(field.value).then(function () {
          button.textContent = button.dataset.copied || button.textContent;
        }, function () { field.select(); });
      });
    });
  }

  autosubmit(document);
  copyButtons(document);
  if (main && main.dataset.live) {
    watchForms();
    poll();
  }
})();
