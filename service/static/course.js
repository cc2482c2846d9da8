/* Course progress in the browser (seed 001: chapters unlock in order; no server accounts).
 *
 * Reads the counters solve.js keeps per exercise in localStorage ("chesskb:" + exercise IRI,
 * {attempts, solved, helped, rated}), marks solved exercises (one solved only with a hint or the
 * shown solution is marked "helped" and does not count), and locks a chapter until the one before
 * it has at least its pass percentage solved. "Save my progress" downloads every chesskb: entry as
 * a JSON file, the learner's rating and streak ("chesskb:rating") included; "Load my progress" puts
 * such a file back. Without JavaScript nothing is locked.
 */
(function () {
  "use strict";
  var PREFIX = "chesskb:";
  var LEARNER = "chesskb:rating";  // the learner's rating and streak (rating.js), exported with the rest

  function counts(iri) {
    try {
      var saved = JSON.parse(window.localStorage.getItem(PREFIX + iri) || "null");
      if (saved && typeof saved.solved === "number") { return saved; }
    } catch (e) { /* storage off */ }
    return { attempts: 0, solved: 0 };
  }

  function refresh() {
    var unlocked = true;
    var chapters = document.querySelectorAll("section.chapter");
    for (var i = 0; i < chapters.length; i++) {
      var chapter = chapters[i];
      var items = chapter.querySelectorAll("li[data-iri]");
      var solved = 0;
      for (var j = 0; j < items.length; j++) {
        var entry = counts(items[j].getAttribute("data-iri"));
        var done = entry.solved > 0;
        items[j].classList.toggle("solved", done);
        items[j].classList.toggle("helped", !done && entry.helped > 0);
        if (done) { solved++; }
      }
      var percent = items.length ? (100 * solved) / items.length : 100;
      var passed = percent >= Number(chapter.getAttribute("data-pass"));
      chapter.querySelector(".progress").textContent = String(solved);
      chapter.classList.toggle("locked", !unlocked);
      chapter.classList.toggle("passed", unlocked && passed);
      chapter.querySelector(".lock-note").hidden = unlocked;
      // A padlock drawn by CSS (.status.padlock), not the emoji: without an emoji font it was an empty box.
      var status = chapter.querySelector(".status");
      status.textContent = unlocked && passed ? "✓" : "";
      status.classList.toggle("padlock", !unlocked);
      var links = chapter.querySelectorAll("a.exercise-link");
      for (var k = 0; k < links.length; k++) {
        if (!unlocked) {
          links[k].setAttribute("aria-disabled", "true");
          links[k].setAttribute("tabindex", "-1");
        } else {
          links[k].removeAttribute("aria-disabled");
          links[k].removeAttribute("tabindex");
        }
      }
      unlocked = unlocked && passed;
    }
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.exercise-link") : null;
    if (link && link.getAttribute("aria-disabled") === "true") { event.preventDefault(); }
  });

  var exportButton = document.getElementById("export-progress");
  var importLabel = document.getElementById("import-label");
  var importInput = document.getElementById("import-progress");
  if (exportButton) {
    exportButton.hidden = false;
    exportButton.addEventListener("click", function () {
      var progress = {};
      for (var i = 0; i < window.localStorage.length; i++) {
        var key = window.localStorage.key(i);
        if (key.indexOf(PREFIX) === 0) { progress[key] = JSON.parse(window.localStorage.getItem(key)); }
      }
      var blob = new Blob([JSON.stringify({ chesskbProgress: 1, entries: progress }, null, 1)],
                          { type: "application/json" });
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "chesskb-progress.json";
      document.body.appendChild(link);
      link.click();
      link.remove();
    });
  }
  if (importInput && importLabel) {
    importLabel.hidden = false;
    importInput.addEventListener("change", function () {
      var file = importInput.files && importInput.files[0];
      if (!file) { return; }
      file.text().then(function (text) {
        var data = JSON.parse(text);
        var entries = (data && data.entries) || {};
        Object.keys(entries).forEach(function (key) {
          var value = entries[key];
          if (key.indexOf(PREFIX) === 0 && value && typeof value.solved === "number") {
            window.localStorage.setItem(key, JSON.stringify({ attempts: Number(value.attempts) || 0,
                                                             solved: Number(value.solved) || 0,
                                                             helped: Number(value.helped) || 0,
                                                             rated: Boolean(value.rated) }));
          } else if (key === LEARNER && value && typeof value.rating === "number") {
            window.localStorage.setItem(key, JSON.stringify(value));  // rating.js reads it back checked
          }
        });
        refresh();
      });
    });
  }
  window.addEventListener("storage", refresh);
  window.addEventListener("pageshow", refresh);
  refresh();
}());
