// The run page: what report.json says, as tables, and its timeline as a Gantt chart.
(() => {
  const {el, section, table, seconds, joules, bytes, percent} = HS;
  const report = HS.data("hs-report");
  const explain = HS.data("hs-explain");
  const ENGINES = {
    simgrid: "SimGrid replay",
    evaluator: "contention-aware evaluator",
    analytic: "contention-free lower bound"
  };

  function overview() {
    return el(
        "p", {class: "facts"},
        `${report.ops} ops of ${report.workload} on ${report.platform}, planned by ` +
            `${report.policy}, replayed by the ${ENGINES[report.engine] || report.engine}, seed ${
                report.seed}`);
  }

  // The main engine's latency first, then what the other engines said about the same plan.
  function latency() {
    const rows = [{
      attrs: {id: "makespan", "data-s": String(report.makespan_s)},
      cells: [
        ENGINES[report.engine] || report.engine, {text: seconds(report.makespan_s), value: report.makespan_s},
        "main figure"
      ]
    }];
    for (const c of report.cross_check || [])
      rows.push({
        attrs: {class: "cross-check", "data-engine": c.engine, "data-s": String(c.makespan_s)},
        cells: [
          c.meaning || c.engine, {text: seconds(c.makespan_s), value: c.makespan_s}, {
            text: `${c.difference_percent >= 0 ? "+" : ""}${c.difference_percent.toFixed(2)}%`,
            value: c.difference_percent
          }
        ]
      });
    return table(["engine", "latency", "difference"], rows, {id: "latency-table"});
  }

  function devices() {
    const energy = report.energy.devices_j;
    const rows = Object.entries(report.devices)
                     .map(([name, d]) => ({
                            attrs: {"data-device": name, class: d.over_capacity ? "over" : null},
                            cells: [
                              name, d.kind, d.ops, {text: seconds(d.busy_s), value: d.busy_s},
                              {text: percent(d.utilization), value: d.utilization},
                              {text: joules(energy[name]), value: energy[name]}, {
                                text: bytes(d.peak_memory_bytes),
                                value: d.peak_memory_bytes,
                                attrs: {"data-bytes": String(d.peak_memory_bytes)}
                              },
                              {text: bytes(d.memory_capacity_bytes), value: d.memory_capacity_bytes}
                            ]
                          }));
    return table(
        ["device", "kind", "ops", "busy", "util", "energy", "peak memory", "capacity"], rows,
        {id: "device-table"});
  }

  function links() {
    const energy = report.energy.links_j;
    const rows =
        Object.entries(report.links)
            .map(([name, l]) => ({
                   attrs: {"data-link": name},
                   cells: [
                     name, {text: bytes(l.bytes), value: l.bytes, attrs: {"data-bytes": String(l.bytes)}},
                     {text: seconds(l.busy_s), value: l.busy_s},
                     {text: joules(energy[name]), value: energy[name]}
                   ]
                 }));
    return table(["link", "bytes", "busy", "energy"], rows, {id: "link-table"});
  }

  // Transfers of one source and destination, packed greedily (by start) into the fewest lanes where none
  // overlaps another: interval partitioning.
  function copyLanes(transfers, deviceOrder) {
    const pos = (d) => deviceOrder.indexOf(d);
    const groups = new Map();
    transfers.map((t, i) => ({t, i})).forEach((x) => {
      const key = `${x.t.from}→${x.t.to}`;
      if (!groups.has(key)) groups.set(key, {from: x.t.from, to: x.t.to, items: []});
      groups.get(key).items.push(x);
    });
    const ordered = [...groups.values()].sort((a, b) => pos(a.from) - pos(b.from) || pos(a.to) - pos(b.to));
    const lanes = [];
    for (const g of ordered) {
      const ends = [];
      g.items.sort((a, b) => a.t.start_s - b.t.start_s || a.t.end_s - b.t.end_s || a.i - b.i);
      for (const x of g.items) {
        let lane = ends.findIndex((e) => e <= x.t.start_s);
        if (lane < 0) {
          lane = ends.length;
          ends.push(0);
        }
        ends[lane] = x.t.end_s;
        x.lane = lane;
      }
      ends.forEach((_, k) => lanes.push({label: `${g.from}→${g.to} copy ${k}`, group: g, lane: k}));
    }
    return lanes;
  }

  function timeline() {
    // Past 100,000 ops report.json leaves the records out (sim/report.hpp) and says so.
    if (!report.timeline.ops) return [el("p", {id: "timeline-counts"}, report.timeline.omitted)];
    const ops = report.timeline.ops, transfers = report.timeline.transfers;
    const deviceOrder = Object.keys(report.devices);
    const streams = new Map(deviceOrder.map((d) => [d, new Set()]));
    for (const o of ops)
      (streams.get(o.device) || streams.set(o.device, new Set()).get(o.device)).add(o.stream);
    const rows = [], rowOf = new Map();
    for (const [d, set] of streams)
      for (const s of [...set].sort((a, b) => a - b)) {
        rowOf.set(`${d}/${s}`, rows.length);
        rows.push(`${d} stream ${s}`);
      }
    const kindColour = HS.colours(ops.map((o) => o.kind || "op"));
    const bars = ops.map(
        (o) => ({
          row: rowOf.get(`${o.device}/${o.stream}`),
          start: o.start_s,
          end: o.end_s,
          cls: "op",
          attrs: {"data-op": o.op},
          fill: kindColour.get(o.kind || "op"),
          tip: [
            ["op", o.op], ["kind", o.kind || "?"],
            ["device", `${o.device} stream ${o.stream} (p-state ${o.pstate})`], ["start", seconds(o.start_s)],
            ["end", seconds(o.end_s)], ["duration", seconds(o.end_s - o.start_s)]
          ]
        }));
    const laneRows = copyLanes(transfers, deviceOrder);
    const laneRow = new Map();
    laneRows.forEach((l, k) => {
      laneRow.set(`${l.group.from}→${l.group.to}#${l.lane}`, rows.length + k);
    });
    laneRows.forEach((l) => rows.push(l.label));
    for (const l of laneRows.filter((x) => x.lane === 0))
      for (const x of l.group.items) {
        const t = x.t;
        bars.push({
          row: laneRow.get(`${t.from}→${t.to}#${x.lane}`),
          start: t.start_s,
          end: t.end_s,
          cls: "xfer",
          attrs: {"data-transfer": x.i, "data-lane": laneRow.get(`${t.from}→${t.to}#${x.lane}`)},
          tip: [
            ["transfer", t.tensor], ["route", `${t.from} → ${t.to}`], ["bytes", bytes(t.bytes)],
            ["start", seconds(t.start_s)], ["end", seconds(t.end_s)],
            ["duration", seconds(t.end_s - t.start_s)]
          ]
        });
      }
    const chart = HS.gantt({rows, bars, end: report.makespan_s});
    const legend = el(
        "div", {class: "legend"},
        [...kindColour]
            .map(([kind,
                   colour]) => el("span", {class: "key"}, [el("i", {style: `background:${colour}`}), kind]))
            .concat([el("span", {class: "key"}, [el("i", {class: "xfer-key"}), "transfer"])]));
    return [
      el("p", {
        id: "timeline-counts",
        "data-ops": ops.length,
        "data-transfers": transfers.length,
        "data-lanes": laneRows.length
      },
         `${ops.length} ops on ${rows.length - laneRows.length} streams, ` +
             `${transfers.length} transfers on ${laneRows.length} copy lanes`),
      legend, chart.node
    ];
  }

  HS.start((app) => {
    app.append(
        overview(),
        el("div", {class: "summary"},
           [
             section("Latency", latency()),
             section(`Devices: ${joules(report.energy.total_j)} in all`, devices()),
             section(`Transfers: ${report.transfers.count} moving ${bytes(report.transfers.bytes)}`, links())
           ]),
        section("Timeline", timeline()));
    if (explain) app.append(HS.explain(explain, report));
  });
})();
