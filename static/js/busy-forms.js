/* A form marked [data-busy]: once sent, its button says what is under way (its data-busy text,
   « Publication… »), the form is aria-busy and a second click sends nothing; the server's answer
   replaces the page. Without this the form still works, behind the browser's own spinner. */
(function () {
  "use strict";

  document.querySelectorAll("form[data-busy]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (form.getAttribute("aria-busy") === "true") {
        event.preventDefault();
        return;
      }
      form.setAttribute("aria-busy", "true");
      var button = form.querySelector("button[type=submit]");
      if (button) {
        button.setAttribute("aria-disabled", "true");
        button.textContent = form.getAttribute("data-busy");
      }
    });
  });
})();
