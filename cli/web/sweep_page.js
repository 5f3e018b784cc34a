// The sweep page: every run as a row of a sortable table, and one line plot per requested (x, y), a line
// per value of its series parameter.
(() => {
  const {el, svg, section, table, number} = HS;
  const sweep = HS.data("hs-sweep");
  const columns = sweep.parameters.concat(sweep.metrics);
  const PALETTE = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac"
  ];

  function runTable() {
    const rows = sweep.rows.map(
        (r, i) => ({
          attrs: {"data-row": i},
          cells:
              columns.map((c) => ({
                            text: r[c] === null || r[c] === undefined ? "–" : number(r[c]),
                            value: r[c] === undefined ? null : r[c],
                            attrs: typeof r[c] === "number" || sweep.metrics.includes(c) ? {class: "num"} : {}
                          }))
        }));
    return table(columns, rows, {id: "sweep-table"});
  }

  // Rows with a value for both axes, grouped by series value in order of first appearance.
  function seriesOf(plot) {
    const groups = new Map();
    const where = plot.where || {};
    for (const r of sweep.rows) {
      if (Object.keys(where).some(k => String(r[k]) !== String(where[k]))) continue;
      if (r[plot.x] === null || r[plot.x] === undefined || typeof r[plot.y] !== "number") continue;
      const key = plot.series ? String(r[plot.series]) : plot.y;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    return groups;
  }

  function linePlot(plot, index) {
    const groups = seriesOf(plot);
    const points = [...groups.values()].flat();
    if (!points.length)
      return el(
          "figure", {"data-plot": index, "data-lines": 0}, `${plot.y} against ${plot.x}: no run measured it`);
    const axes = HS.axes({
      x: {label: plot.x, values: points.map((r) => r[plot.x])},
      y: {label: plot.y, values: points.map((r) => r[plot.y])}
    });
    const numericX = points.every((r) => typeof r[plot.x] === "number");
    const order = [...new Set(points.map((r) => String(r[plot.x])))];
    const legend = [];
    let shared = false;
    [...groups].forEach(([name, rows], k) => {
      const colour = PALETTE[k % PALETTE.length];
      const sorted = rows.slice().sort(
          (a, b) =>
              (numericX ? a[plot.x] - b[plot.x] :
                          order.indexOf(String(a[plot.x])) - order.indexOf(String(b[plot.x]))));
      // Runs of one series that share an x (another parameter varies) are all drawn; the line joins their
      // mean.
      const atX = new Map();
      for (const r of sorted)
        (atX.get(String(r[plot.x])) || atX.set(String(r[plot.x]), []).get(String(r[plot.x]))).push(r);
      shared = shared || atX.size < sorted.length;
      const line = [...atX.values()].map(
          (same) =>
              [axes.sx(same[0][plot.x]), axes.sy(same.reduce((t, r) => t + r[plot.y], 0) / same.length)]);
      axes.layer.append(svg("polyline", {
        class: "series",
        "data-series": name,
        stroke: colour,
        points: line.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(" ")
      }));
      for (const r of sorted) {
        const dot = svg(
            "circle", {class: "point", r: 4, fill: colour, cx: axes.sx(r[plot.x]), cy: axes.sy(r[plot.y])});
        dot.addEventListener(
            "mousemove",
            (e) => HS.tooltip(
                columns.map((c) => [c, r[c] === null || r[c] === undefined ? "–" : number(r[c])]), e));
        dot.addEventListener("mouseleave", () => HS.tooltip(null));
        axes.layer.append(dot);
      }
      legend.push(
          el("span", {class: "key"},
             [el("i", {style: `background:${colour}`}), plot.series ? `${plot.series} = ${name}` : name]));
    });
    return el("figure", {"data-plot": index, "data-lines": groups.size}, [
      axes.node,
      el("figcaption", {},
         `${plot.y} against ${plot.x}${plot.series ? `, a line per ${plot.series}` : ""}` +
             Object.entries(plot.where || {}).map(([k, v]) => `, ${k} = ${v}`).join("") +
             (shared ? "; where runs share an x, the line joins their mean" : "")),
      el("div", {class: "legend"}, legend)
    ]);
  }

  HS.start((app) => {
    app.append(
        el("p", {id: "sweep-summary", "data-rows": sweep.rows.length},
           `${sweep.rows.length} runs over ${
               sweep.parameters.join(", ") || "no parameter"}; click a header to sort`));
    if (sweep.plots.length)
      app.append(section("Plots", el("div", {class: "plots"}, sweep.plots.map(linePlot))));
    app.append(section("Runs", runTable()));
  });
})();
