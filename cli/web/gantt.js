// A Gantt chart as inline SVG: one row per label, one <rect> per bar, created once; zooming and panning
// only move the rects (x and width), so thousands of bars stay responsive.
//   HS.gantt({rows: ["gpu0 stream 0", ...], bars: [{row, start, end, cls, fill, tip: [[key, value], ...]}],
//             end: makespan})  ->  {node, show(visible: i => bool), highlight(i)}
HS.gantt = (spec) => {
  const { el, svg } = HS;
  const ROW = 16, AXIS = 26, LABELS = 190;
  const width = Math.max(640, Math.min(document.body.clientWidth || 1200, 1800) - 40);
  const plotWidth = width - LABELS - 30; // room for the last tick's label
  const plotHeight = Math.max(1, spec.rows.length) * ROW;
  const end = spec.end > 0 ? spec.end : Math.max(1e-9, ...spec.bars.map((b) => b.end));
  const view = { t0: 0, t1: end };
  const minSpan = end * 1e-6;

  const root = svg("svg", { class: "gantt-svg", width, height: AXIS + plotHeight + 2 });
  const axis = svg("g", { class: "axis", transform: `translate(${LABELS},0)` });
  const plot = svg("svg", { x: LABELS, y: AXIS, width: plotWidth, height: plotHeight, class: "gantt-plot" });
  spec.rows.forEach((label, r) => {
    root.append(svg("text", { x: LABELS - 6, y: AXIS + r * ROW + ROW - 4, class: "row-label" }, label));
    plot.append(svg("rect", { x: 0, y: r * ROW, width: plotWidth, height: ROW, class: r % 2 ? "stripe odd" : "stripe" }));
  });
  const rects = spec.bars.map((b, i) => svg("rect", {
    class: b.cls, "data-i": i, y: b.row * ROW + 2, height: ROW - 4, fill: b.fill || null,
  }));
  const bars = svg("g", {}, rects);
  plot.append(bars);
  root.append(axis, plot);

  const range = el("span", { class: "range" });
  const place = () => {
    const scale = plotWidth / (view.t1 - view.t0);
    // Through the animated-length objects rather than setAttribute: no number-to-text round trip per bar.
    for (let i = 0; i < rects.length; ++i) {
      const b = spec.bars[i];
      rects[i].x.baseVal.value = Math.round((b.start - view.t0) * scale * 100) / 100;
      const w = (b.end - b.start) * scale;
      // A pixel's gap between bars wide enough to spare it, so back-to-back ops of one kind stay apart.
      rects[i].width.baseVal.value = w > 4 ? Math.round((w - 1) * 100) / 100 : Math.max(0.8, w);
    }
    drawAxis(scale);
    range.textContent = `showing ${HS.seconds(view.t0)} – ${HS.seconds(view.t1)} of ${HS.seconds(end)}`;
  };
  const drawAxis = (scale) => {
    const span = view.t1 - view.t0;
    const raw = span / 8, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const ticks = [];
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1 + step * 1e-9; t += step) {
      const x = (t - view.t0) * scale;
      ticks.push(svg("line", { x1: x, x2: x, y1: AXIS - 6, y2: AXIS + plotHeight, class: "tick" }),
        svg("text", { x, y: AXIS - 9, class: "tick-label" }, HS.seconds(+t.toPrecision(12))));
    }
    axis.replaceChildren(...ticks);
  };

  // Drawn at once, not on the next animation frame: moving every bar of the main job (about 3800) takes a
  // few milliseconds, and a headless browser need not run animation frames at all.
  const redraw = place;
  // Zooms by `factor` keeping the time under `at` (a fraction of the plot's width) where it is.
  const zoom = (factor, at) => {
    const span = view.t1 - view.t0;
    const next = Math.min(end, Math.max(minSpan, span * factor));
    const pivot = view.t0 + at * span;
    view.t0 = pivot - at * next;
    clampView(next);
    redraw();
  };
  const clampView = (span) => {
    view.t0 = Math.min(Math.max(0, view.t0), end - span);
    view.t1 = view.t0 + span;
  };
  plot.addEventListener("wheel", (e) => {
    e.preventDefault();
    const box = plot.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 1 / 1.25 : 1.25, (e.clientX - box.left) / box.width);
  }, { passive: false });
  let drag = null;
  plot.addEventListener("mousedown", (e) => { drag = { x: e.clientX, t0: view.t0 }; });
  window.addEventListener("mouseup", () => { drag = null; });
  plot.addEventListener("mousemove", (e) => {
    if (drag) {
      const span = view.t1 - view.t0;
      view.t0 = drag.t0 - ((e.clientX - drag.x) * span) / plotWidth;
      clampView(span);
      redraw();
    }
    const i = e.target.dataset ? e.target.dataset.i : undefined;
    HS.tooltip(i === undefined ? null : spec.bars[+i].tip, e);
  });
  plot.addEventListener("mouseleave", () => HS.tooltip(null));

  const button = (text, title, action) => {
    const b = el("button", { type: "button", title }, text);
    b.addEventListener("click", action);
    return b;
  };
  const tools = el("div", { class: "toolbar" }, [
    button("+", "zoom in", () => zoom(1 / 2, 0.5)),
    button("−", "zoom out", () => zoom(2, 0.5)),
    button("reset", "show the whole run", () => { view.t0 = 0; view.t1 = end; redraw(); }),
    range, el("span", { class: "hint" }, "wheel to zoom, drag to pan, hover a bar for details"),
  ]);
  place();
  return {
    node: el("div", { class: "gantt" }, [tools, root]),
    show: (visible) => rects.forEach((r, i) => r.classList.toggle("hidden", !visible(i))),
    highlight: (i) => rects.forEach((r, k) => r.classList.toggle("current", k === i)),
  };
};
