// What tests/browser/test_keyboard.py asks of a page: where the focus is and how it shows, and
// which elements the Tab key should stop at, in the page's order.
window.describe = (element) => {
  const all = [...document.querySelectorAll("*")];
  // What shows of the element (a link's first line): its box cut by the screen and by every
  // box around it that clips (a scroller), then what is drawn at the middle of that.
  const box = element.getClientRects()[0] || element.getBoundingClientRect();
  let [left, right, top, bottom] = [box.left, box.right, box.top, box.bottom];
  const cut = (r) => {
    [left, right] = [Math.max(left, r.left), Math.min(right, r.right)];
    [top, bottom] = [Math.max(top, r.top), Math.min(bottom, r.bottom)];
  };
  for (let around = element.parentElement; around; around = around.parentElement) {
    const style = getComputedStyle(around);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") cut(around.getBoundingClientRect());
  }
  cut({left: 0, right: innerWidth, top: 0, bottom: innerHeight});
  const shows = right - left >= 4 && bottom - top >= 4;
  const hit = shows ? document.elementFromPoint((left + right) / 2, (top + bottom) / 2) : null;
  const label = (element.getAttribute("aria-label") || element.innerText || element.value || "")
    .trim().replace(/\s+/g, " ").slice(0, 50);
  // A control drawn by its label (a radio « tile »): the ring is on the part of the label
  // that covers it.
  let shown = element;
  const own = element.closest("label");
  if (hit && own && hit !== element && own.contains(hit)) {
    shown = hit;
    while (shown.parentElement !== own) shown = shown.parentElement;
  }
  const ring = getComputedStyle(shown);
  return {
    index: all.indexOf(element),
    name: `${element.tagName.toLowerCase()} «${label}»`,
    outline: [ring.outlineStyle, parseFloat(ring.outlineWidth), ring.outlineColor],
    focusVisible: element.matches(":focus-visible"),
    inView: shows,
    covered: hit !== null && !shown.contains(hit),
    coveredBy: hit === null ? null : hit.tagName.toLowerCase() + "." + [...hit.classList].join("."),
  };
};

window.tabbable = () => {
  const selector = "a[href], button, input, select, textarea, summary, iframe, [tabindex]";
  // Shown, and not in a closed <details> (whose content keeps its boxes, unrendered).
  const rendered = (e) => e.checkVisibility({visibilityProperty: true});
  const first = (e) => e.tagName !== "SUMMARY" || e.parentElement.querySelector(":scope > summary") === e;
  // A group of radio buttons is one stop, at its checked button (else its first).
  const radio = (e) => {
    if (e.type !== "radio") return true;
    const group = [...e.form.elements].filter((o) => o.type === "radio" && o.name === e.name);
    return e === (group.find((o) => o.checked) || group[0]);
  };
  const stops = (root) => [...root.querySelectorAll(selector)].filter(
    (e) => !e.disabled && e.type !== "hidden" && e.tabIndex >= 0 && rendered(e) && first(e) && radio(e)
  );
  // Chromium stops too at a box that scrolls sideways and holds no stop of its own.
  const scrolls = (e) => ["auto", "scroll"].includes(getComputedStyle(e).overflowX)
    && e.scrollWidth > e.clientWidth && !e.hasAttribute("tabindex") && stops(e).length === 0;
  const found = new Set([...stops(document), ...[...document.body.querySelectorAll("*")].filter(scrolls)]);
  return [...document.querySelectorAll("*")].filter((e) => found.has(e)).map((e) => window.describe(e));
};
