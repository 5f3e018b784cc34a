// Appended to a copy of a run page by pages_test.sh: zooms the timeline with the + button and the mouse
// wheel, resets it, and writes how far apart the first and the last op bar moved (the zoom factor times
// their distance at first) and what hovering a bar showed into document.body.dataset.zoom.
(() => {
  const chart = document.querySelector(".gantt");
  const rects = [...chart.querySelectorAll("rect.op")];
  const x = (r) => +r.getAttribute("x");
  const first = rects.reduce((a, b) => (x(b) < x(a) ? b : a));
  const last = rects.reduce((a, b) => (x(b) > x(a) ? b : a));
  const spread = () => x(last) - x(first);
  const before = spread();
  const seen = [];
  const plot = chart.querySelector(".gantt-plot");
  const box = plot.getBoundingClientRect();
  const started = performance.now();
  chart.querySelector("button[title=\"zoom in\"]").click();
  const took = performance.now() - started;
  seen.push(spread() / before);
  plot.dispatchEvent(new WheelEvent("wheel", {
    deltaY: -100,
    clientX: box.left + box.width / 2,
    clientY: box.top + 5,
    bubbles: true,
    cancelable: true
  }));
  seen.push(spread() / before);
  chart.querySelector("button[title=\"show the whole run\"]").click();
  seen.push(spread() / before);
  const want = [2, 2.5, 1];
  // Hovering a bar shows its op's details.
  const bar = last.getBoundingClientRect();
  last.dispatchEvent(
      new MouseEvent("mousemove", {clientX: bar.left + 1, clientY: bar.top + 1, bubbles: true}));
  const tip = document.getElementById("tooltip");
  const details = tip ? [...tip.children].map((line) => line.firstChild.textContent.trim()) : [];
  const hovered = details.join() === "op,kind,device,start,end,duration" && tip.style.display === "block";
  const ok = hovered && seen.every((v, i) => Math.abs(v - want[i]) < 0.01 * want[i]);
  document.body.dataset.zoom =
      `${ok ? "ok" : "wrong"}: spread ratios ${seen.map((v) => v.toFixed(3)).join(", ")} (want 2, 2.5, 1); ` +
      `tooltip ${hovered ? "shows" : "lacks"} the op's details (${tip ? tip.textContent : "none"}); ` +
      `moving ${chart.querySelectorAll("rect[data-i]").length} bars took ${took.toFixed(1)} ms`;
})();
