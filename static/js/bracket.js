// The KDH bracket opens at the current round: CSS does it where `scroll-initial-target` is
// known (static/css/bracket.css); elsewhere this scrolls the bracket there once, unless the
// address names a place on the page. Without a script, the rounds' links above still jump.
(function () {
  "use strict";
  if (window.CSS && CSS.supports && CSS.supports("scroll-initial-target", "nearest")) return;
  if (window.location.hash) return;
  var scroller = document.querySelector(".bracket-scroller");
  var current = scroller && scroller.querySelector(".bracket-round.is-current");
  if (!current) return;
  scroller.scrollLeft += current.getBoundingClientRect().left - scroller.getBoundingClientRect().left;
})();
