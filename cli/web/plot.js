// Axes for the scatter and line plots: a linear scale with round ticks on each side, or evenly spaced
// categories on x when its values are not all numbers.
//   HS.axes({x: {label, values}, y: {label, values}})  ->  {node, layer, sx(v), sy(v)}
HS.axes = (spec) => {
  const {svg} = HS;
  const W = 430, H = 310, M = {left: 70, right: 16, top: 14, bottom: 46};
  const w = W - M.left - M.right, h = H - M.top - M.bottom;
  const node = svg("svg", {class: "plot", width: W, height: H, viewBox: `0 0 ${W} ${H}`});
  const layer = svg("g", {transform: `translate(${M.left},${M.top})`});
  const grid = svg("g", {class: "axis"});
  layer.append(grid);
  node.append(layer);

  const niceTicks = (lo, hi) => {
    if (lo === hi) {
      const pad = Math.abs(lo) * 0.1 || 1;
      lo -= pad;
      hi += pad;
    }
    const raw = (hi - lo) / 5, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const first = Math.floor(lo / step) * step, last = Math.ceil(hi / step) * step;
    const ticks = [];
    for (let t = first; t <= last + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
    return {lo: first, hi: last, ticks};
  };
  const numeric = (values) => values.every((v) => typeof v === "number");
  const scale = (values, length, flip) => {
    if (!numeric(values)) {
      const cats = [...new Set(values.map(String))];
      const at = (v) => ((cats.indexOf(String(v)) + 0.5) * length) / cats.length;
      return {at, ticks: cats.map((c) => ({pos: at(c), text: c}))};
    }
    const n = niceTicks(Math.min(...values), Math.max(...values));
    const at = (v) => {
      const f = (v - n.lo) / (n.hi - n.lo);
      return flip ? length * (1 - f) : length * f;
    };
    return {at, ticks: n.ticks.map((t) => ({pos: at(t), text: HS.number(t)}))};
  };
  const sx = scale(spec.x.values, w, false), sy = scale(spec.y.values, h, true);
  for (const t of sx.ticks)
    grid.append(
        svg("line", {x1: t.pos, x2: t.pos, y1: 0, y2: h, class: "tick"}),
        svg("text", {x: t.pos, y: h + 16, class: "tick-label"}, t.text));
  for (const t of sy.ticks)
    grid.append(
        svg("line", {x1: 0, x2: w, y1: t.pos, y2: t.pos, class: "tick"}),
        svg("text", {x: -6, y: t.pos + 4, class: "tick-label y"}, t.text));
  grid.append(
      svg("rect", {x: 0, y: 0, width: w, height: h, class: "frame"}),
      svg("text", {x: w / 2, y: h + 36, class: "axis-label"}, spec.x.label),
      svg("text", {x: -h / 2, y: -54, class: "axis-label", transform: "rotate(-90)"}, spec.y.label));
  return {node, layer, sx: sx.at, sy: sy.at};
};
