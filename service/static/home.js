/* The home page's "Start training": /train picks an exercise near the learner's rating, which the
 * trainer keeps in this browser (localStorage "chesskb:rating", {"rating": 1500, ...}, rating.js).
 * Without a saved rating the link stays /train and the trainer starts from its default. */
(function () {
  "use strict";
  var link = document.getElementById("start-training");
  if (!link) { return; }
  var saved = null;
  try { saved = JSON.parse(window.localStorage.getItem("chesskb:rating") || "null"); } catch (e) { /* storage off */ }
  var rating = saved && Number(saved.rating);
  if (rating && isFinite(rating) && rating > 0 && rating < 4000) {
    var url = new URL(link.getAttribute("href"), window.location.href);
    url.searchParams.set("rating", String(Math.round(rating)));
    link.setAttribute("href", url.pathname + url.search);
  }
}());
