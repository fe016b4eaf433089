/* The pick page's small helpers: the pick preview, the steppers, one submission per click,
   copying the receipt, closing a week's forms at its deadline (countdown.js counts down and
   shows the visitor's own time). The page works without them. */
(function () {
  "use strict";

  /* countdown.js counts the deadlines down; once one passes, its week's forms close. */
  document.addEventListener("deadline-passed", function (event) {
    var week = event.target.closest(".week");
    if (!week) return;
    week.querySelectorAll("[data-pick-form] button[type=submit]").forEach(function (button) {
      button.disabled = true;
      button.textContent = button.getAttribute("data-closed");
    });
  });

  /* The pick as the tiles and steppers say it (R10), or as typed. */
  document.querySelectorAll("[data-pick-form]").forEach(function (form) {
    var preview = form.querySelector("[data-preview]");
    var typed = form.querySelector("[data-part=notation]");
    var needsShootout = form.getAttribute("data-shootout") === "1";

    function value(part) {
      var checked = form.querySelector("input[data-part=" + part + "]:checked");
      return checked ? checked.value : "";
    }
    function count(part) {
      var input = form.querySelector("input[data-part=" + part + "]");
      return input ? Math.max(0, parseInt(input.value, 10) || 0) : 0;
    }
    function update() {
      var text = typed && typed.value.trim();
      form.classList.toggle("is-typed", !!text);
      if (text) {
        preview.textContent = text.toUpperCase().replace(/\s+/g, "");
        return;
      }
      var column = value("column");
      var extraTime = value("extra_time");
      var shootout = needsShootout ? value("shootout") : "";
      var pick = (column || "?") + "+".repeat(count("extra_goals")) +
        "#".repeat(count("great_saves")) + "(" + (extraTime || "?") + ")" +
        (needsShootout ? "(" + (shootout || "?") + ")" : "");
      preview.textContent = (column || extraTime) ? pick : "—";
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);

    form.querySelectorAll("[data-stepper]").forEach(function (stepper) {
      var input = stepper.querySelector("input");
      stepper.querySelectorAll("[data-step]").forEach(function (button) {
        button.addEventListener("click", function () {
          var max = parseInt(input.max, 10) || 0;
          var next = (parseInt(input.value, 10) || 0) + parseInt(button.getAttribute("data-step"), 10);
          input.value = Math.min(max, Math.max(0, next));
          update();
        });
      });
    });

    /* One click, one pick: a second click while sending does nothing (R12 would keep both). */
    form.addEventListener("submit", function (event) {
      var button = form.querySelector("button[type=submit]");
      if (form.dataset.sending) {
        event.preventDefault();
        return;
      }
      form.dataset.sending = "1";
      button.setAttribute("aria-disabled", "true");
      button.textContent = button.getAttribute("data-sending");
    });
    update();
  });

  /* The receipt: focus it for screen readers, copy its hash. */
  var receipt = document.querySelector("[data-receipt]");
  if (receipt) receipt.focus();
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      if (!navigator.clipboard) return;
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = button.getAttribute("data-copied");
      });
    });
  });
})();
