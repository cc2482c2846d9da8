/* "Next exercise" in the static site, where no server reads the list from the URL.
 *
 * On a listing (a class page, a course), a click on an exercise keeps the listing's exercise links
 * in order in sessionStorage ("chesskb:context"), with the listing's own address to go back to.
 * On an exercise page that has no server-made "Next exercise" link, solve.js reads that list and
 * offers the exercise after this one. The service itself carries the list in the URL instead
 * (service/context.py); this script is only included in the static site.
 */
(function () {
  "use strict";
  var KEY = "chesskb:context";

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.position-link, a.exercise-link") : null;
    if (!link) { return; }
    var scope = link.closest("section.chapter") || document;
    var links = Array.prototype.map.call(scope.querySelectorAll("a.position-link, a.exercise-link"),
                                         function (a) { return a.href; });
    try {
      window.sessionStorage.setItem(KEY, JSON.stringify({ items: links, back: window.location.href }));
    } catch (e) { /* storage off: no "Next" then */ }
  });

  window.ChessKB = window.ChessKB || {};
  /* The stored context around this page: {next, back} (next may be null), or null. */
  window.ChessKB.storedContext = function () {
    try {
      var saved = JSON.parse(window.sessionStorage.getItem(KEY) || "null");
      if (!saved || !saved.items) { return null; }
      var here = window.location.href.split("#")[0];
      var at = saved.items.indexOf(here);
      if (at < 0) { return null; }
      return { next: saved.items[at + 1] || null, back: saved.back };
    } catch (e) {
      return null;
    }
  };
}());
