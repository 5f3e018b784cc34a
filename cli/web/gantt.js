// A Gantt chart as inline SVG: one row per label, one <rect> per bar, created once; zooming and panning
// only move the rects (x and width), so thousands of bars stay responsive.
//   HS.gantt({rows: ["gpu0 stream 0", ...], end: makespan,
//             bars: [{row, start, end, cls, fill, attrs, tip: [[key, value], ...]}]})
//   ->  {node, show(visible: i => bool), highlight(i)}
HS.gantt = (() => {
  const {el, svg} = HS;
  const ROW = 16, AXIS = 26, LABELS = 190;

  // The SVG: row labels and stripes, the time axis, and the bars (placed later).
  function frame(spec) {
    const width = Math.max(640, Math.min(document.body.clientWidth || 1200, 1800) - 40);
    const plotWidth = width - LABELS - 30;  // room for the last tick's label
    const plotHeight = Math.max(1, spec.rows.length) * ROW;
    const root = svg("svg", {class: "gantt-svg", width, height: AXIS + plotHeight + 2});
    const axis = svg("g", {class: "axis", transform: `translate(${LABELS},0)`});
    const plot = svg("svg", {x: LABELS, y: AXIS, width: plotWidth, height: plotHeight, class: "gantt-plot"});
    spec.rows.forEach((label, r) => {
      root.append(svg("text", {x: LABELS - 6, y: AXIS + r * ROW + ROW - 4, class: "row-label"}, label));
      plot.append(svg(
          "rect", {x: 0, y: r * ROW, width: plotWidth, height: ROW, class: r % 2 ? "stripe odd" : "stripe"}));
    });
    const rects = spec.bars.map(
        (b, i) =>
            svg("rect",
                Object.assign(
                    {class: b.cls, "data-i": i, y: b.row * ROW + 2, height: ROW - 4, fill: b.fill || null},
                    b.attrs || {})));
    plot.append(svg("g", {}, rects));
    root.append(axis, plot);
    return {root, axis, plot, rects, plotWidth, plotHeight};
  }

  function drawAxis(f, view, scale) {
    const span = view.t1 - view.t0;
    const raw = span / 8, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const ticks = [];
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1 + step * 1e-9; t += step) {
      const x = (t - view.t0) * scale;
      ticks.push(
          svg("line", {x1: x, x2: x, y1: AXIS - 6, y2: AXIS + f.plotHeight, class: "tick"}),
          svg("text", {x, y: AXIS - 9, class: "tick-label"}, HS.seconds(+t.toPrecision(12))));
    }
    f.axis.replaceChildren(...ticks);
  }

  // The visible time window [t0, t1] and what changes it. Drawn at once, not on the next animation frame:
  // moving every bar of the main job (about 3800) takes a few milliseconds, and a headless browser need not
  // run animation frames at all.
  function timeWindow(spec, f, range) {
    const end = spec.end > 0 ? spec.end : Math.max(1e-9, ...spec.bars.map((b) => b.end));
    const view = {t0: 0, t1: end};
    const place = () => {
      const scale = f.plotWidth / (view.t1 - view.t0);
      // Through the animated-length objects rather than setAttribute: no number-to-text round trip per bar.
      for (let i = 0; i < f.rects.length; ++i) {
        const b = spec.bars[i];
        f.rects[i].x.baseVal.value = Math.round((b.start - view.t0) * scale * 100) / 100;
        const w = (b.end - b.start) * scale;
        // A pixel's gap between bars wide enough to spare it, so back-to-back ops of one kind stay apart.
        f.rects[i].width.baseVal.value = w > 4 ? Math.round((w - 1) * 100) / 100 : Math.max(0.8, w);
      }
      drawAxis(f, view, scale);
      range.textContent = `showing ${HS.seconds(view.t0)} – ${HS.seconds(view.t1)} of ${HS.seconds(end)}`;
    };
    const moveTo = (t0, span) => {
      view.t0 = Math.min(Math.max(0, t0), end - span);
      view.t1 = view.t0 + span;
      place();
    };
    return {
      place,
      span: () => view.t1 - view.t0,
      t0: () => view.t0,
      pan: (t0) => moveTo(t0, view.t1 - view.t0),
      // Zooms by `factor` keeping the time under `at` (a fraction of the plot's width) where it is.
      zoom: (factor, at) => {
        const span = view.t1 - view.t0;
        const next = Math.min(end, Math.max(end * 1e-6, span * factor));
        moveTo(view.t0 + at * span - at * next, next);
      },
      reset: () => moveTo(0, end)
    };
  }

  // Wheel to zoom around the pointer, drag to pan, hover for a bar's details.
  function listen(spec, f, w) {
    f.plot.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = f.plot.getBoundingClientRect();
      w.zoom(e.deltaY < 0 ? 1 / 1.25 : 1.25, (e.clientX - box.left) / box.width);
    }, {passive: false});
    let drag = null;
    f.plot.addEventListener("mousedown", (e) => {
      drag = {x: e.clientX, t0: w.t0()};
    });
    window.addEventListener("mouseup", () => {
      drag = null;
    });
    f.plot.addEventListener("mousemove", (e) => {
      if (drag) w.pan(drag.t0 - ((e.clientX - drag.x) * w.span()) / f.plotWidth);
      const i = e.target.dataset ? e.target.dataset.i : undefined;
      HS.tooltip(i === undefined ? null : spec.bars[+i].tip, e);
    });
    f.plot.addEventListener("mouseleave", () => HS.tooltip(null));
  }

  const button = (text, title, action) => {
    const b = el("button", {type: "button", title}, text);
    b.addEventListener("click", action);
    return b;
  };

  return (spec) => {
    const f = frame(spec);
    const range = el("span", {class: "range"});
    const w = timeWindow(spec, f, range);
    listen(spec, f, w);
    const tools = el("div", {class: "toolbar"}, [
      button("+", "zoom in", () => w.zoom(1 / 2, 0.5)), button("−", "zoom out", () => w.zoom(2, 0.5)),
      button("reset", "show the whole run", w.reset), range,
      el("span", {class: "hint"}, "wheel to zoom, drag to pan, hover a bar for details")
    ]);
    w.place();
    return {
      node: el("div", {class: "gantt"}, [tools, f.root]),
      show: (visible) => f.rects.forEach((r, i) => r.classList.toggle("hidden", !visible(i))),
      highlight: (i) => f.rects.forEach((r, k) => r.classList.toggle("current", k === i))
    };
  };
})();
