// Appended to a copy of a run page by pages_test.sh: zooms the timeline with the + button and the mouse
// wheel, resets it, and writes what the widest op bar did into document.body.dataset.zoom.
(() => {
  const chart = document.querySelector(".gantt");
  const rects = [...chart.querySelectorAll("rect.op")];
  const width = (r) => +r.getAttribute("width");
  const widest = rects.reduce((a, b) => (width(b) > width(a) ? b : a));
  const before = width(widest);
  const seen = [];
  const plot = chart.querySelector(".gantt-plot");
  const box = plot.getBoundingClientRect();
  const started = performance.now();
  chart.querySelector('button[title="zoom in"]').click();
  const took = performance.now() - started;
  seen.push(width(widest) / before);
  plot.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: box.left + box.width / 2, clientY: box.top + 5, bubbles: true, cancelable: true }));
  seen.push(width(widest) / before);
  chart.querySelector('button[title="show the whole run"]').click();
  seen.push(width(widest) / before);
  const want = [2, 2.5, 1];
  const ok = seen.every((v, i) => Math.abs(v - want[i]) < 0.01 * want[i]);
  document.body.dataset.zoom = `${ok ? "ok" : "wrong"}: width ratios ${seen.map((v) => v.toFixed(3)).join(", ")} (want 2, 2.5, 1); ` +
    `moving ${chart.querySelectorAll("rect[data-i]").length} bars took ${took.toFixed(1)} ms`;
})();
