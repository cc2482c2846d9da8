/* The learner's rating and streak, kept in the browser (no accounts on the server).
 *
 * The rating is Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013), the system lichess
 * rates puzzles and players with: each exercise is one rating period with one game against the
 * exercise, whose rating is its difficulty (cp:difficulty, on the lichess scale) and whose deviation
 * is the source's (lichess RatingDeviation) or EXERCISE_DEVIATION. Solving it at the first try
 * without help is a win; a wrong move, a hint or the shown solution is a loss. Each exercise is rated
 * once (its first outcome), as lichess does.
 *
 * Stored under localStorage key "chesskb:rating" as JSON
 *   {"rating": 1500, "deviation": 350, "volatility": 0.06, "streak": 0, "best": 0, "rated": 0}
 * ("rating" is what /train?rating=N needs: pages that link to "Start training" read it from there).
 * The course page's "Save my progress" exports it with the per-exercise entries.
 */
(function () {
  "use strict";
  var ChessKB = window.ChessKB = window.ChessKB || {};

  var KEY = "chesskb:rating";
  var SCALE = 173.7178;          // Glicko-2's conversion from the Glicko scale (step 2)
  var START = { rating: 1500, deviation: 350, volatility: 0.06 };
  var TAU = 0.75;                // constrains the volatility's change (Glickman suggests 0.3 to 1.2)
  var EPSILON = 0.000001;        // convergence tolerance of the volatility iteration (step 5)
  var EXERCISE_DEVIATION = 80;   // an exercise's deviation when its source gives none
  var MAX_DEVIATION = 350;

  function g(phi) { return 1 / Math.sqrt(1 + 3 * phi * phi / (Math.PI * Math.PI)); }
  function expected(mu, muj, phij) { return 1 / (1 + Math.exp(-g(phij) * (mu - muj))); }

  // The new volatility (step 5, the Illinois algorithm Glickman gives).
  function newVolatility(phi, sigma, delta, v, tau) {
    var a = Math.log(sigma * sigma);
    function f(x) {
      var ex = Math.exp(x);
      var d = phi * phi + v + ex;
      return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
    }
    var A = a;
    var B;
    if (delta * delta > phi * phi + v) {
      B = Math.log(delta * delta - phi * phi - v);
    } else {
      var k = 1;
      while (f(a - k * tau) < 0) { k += 1; }
      B = a - k * tau;
    }
    var fA = f(A);
    var fB = f(B);
    while (Math.abs(B - A) > EPSILON) {
      var C = A + (A - B) * fA / (fB - fA);
      var fC = f(C);
      if (fC * fB <= 0) { A = B; fA = fB; } else { fA = fA / 2; }
      B = C;
      fB = fC;
    }
    return Math.exp(A / 2);
  }

  /* One rating period: player {rating, deviation, volatility} against games
   * [{rating, deviation, score}] (score 1 win, 0.5 draw, 0 loss); returns the new
   * {rating, deviation, volatility}. Without games only the deviation grows (step 6). */
  function update(player, games, tau) {
    tau = tau || TAU;
    var mu = (player.rating - 1500) / SCALE;
    var phi = player.deviation / SCALE;
    var sigma = player.volatility;
    if (!games.length) {
      return { rating: player.rating, deviation: Math.sqrt(phi * phi + sigma * sigma) * SCALE, volatility: sigma };
    }
    var vInverse = 0;
    var sum = 0;
    games.forEach(function (game) {
      var muj = (game.rating - 1500) / SCALE;
      var phij = game.deviation / SCALE;
      var e = expected(mu, muj, phij);
      vInverse += g(phij) * g(phij) * e * (1 - e);
      sum += g(phij) * (game.score - e);
    });
    var v = 1 / vInverse;
    var delta = v * sum;
    var sigmaNew = newVolatility(phi, sigma, delta, v, tau);
    var phiStar = Math.sqrt(phi * phi + sigmaNew * sigmaNew);
    var phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
    var muNew = mu + phiNew * phiNew * sum;
    return { rating: muNew * SCALE + 1500, deviation: phiNew * SCALE, volatility: sigmaNew };
  }

  function load() {
    var saved = null;
    try { saved = JSON.parse(window.localStorage.getItem(KEY) || "null"); } catch (e) { /* storage off */ }
    if (!saved || typeof saved.rating !== "number" || !isFinite(saved.rating)) {
      return { rating: START.rating, deviation: START.deviation, volatility: START.volatility,
               streak: 0, best: 0, rated: 0 };
    }
    return { rating: saved.rating, deviation: Number(saved.deviation) || START.deviation,
             volatility: Number(saved.volatility) || START.volatility, streak: Number(saved.streak) || 0,
             best: Number(saved.best) || 0, rated: Number(saved.rated) || 0 };
  }

  function save(learner) {
    try { window.localStorage.setItem(KEY, JSON.stringify(learner)); } catch (e) { /* storage off */ }
  }

  /* The learner's result against one exercise ({difficulty, deviation}); solved: a clean solve.
   * Returns the learner after it, saved. */
  function record(exercise, solved) {
    var learner = load();
    var after = update(learner, [{ rating: exercise.difficulty, deviation: exercise.deviation || EXERCISE_DEVIATION,
                                   score: solved ? 1 : 0 }]);
    learner.rating = after.rating;
    learner.deviation = Math.min(after.deviation, MAX_DEVIATION);
    learner.volatility = after.volatility;
    learner.streak = solved ? learner.streak + 1 : 0;
    learner.best = Math.max(learner.best, learner.streak);
    learner.rated += 1;
    save(learner);
    return learner;
  }

  /* The /train link for this learner: the rating rounded to a whole number. */
  function trainUrl(base) {
    return base + (base.indexOf("?") < 0 ? "?" : "&") + "rating=" + Math.round(load().rating);
  }

  ChessKB.rating = { KEY: KEY, update: update, load: load, save: save, record: record, trainUrl: trainUrl };
}());
