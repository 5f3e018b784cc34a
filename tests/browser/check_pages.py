"""Checks what the pages' scripts drew, read from `chromium --dump-dom` output, against the JSON they embed.
    check_pages.py run DOM REPORT.json | explain DOM EXPLAIN.json STEP | front DOM FRONT.json
                   | sweep DOM SWEEP.json | zoom|sorted|clicked|stepped DOM (a probe's verdict) | png FILE WIDTH HEIGHT
Exits non-zero with a message on the first difference."""
import json
import struct
import sys
import zlib

import dom

SCALE = {"": 1, "m": 1e-3, "µ": 1e-6, "n": 1e-9}


def fail(message):
    print(f"check_pages: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def ready(root):
    body = root.find_all("body")[0]
    expect(body.attrs.get("data-ready") == "1",
           f"the page's script did not finish (data-ready={body.attrs.get('data-ready')!r}): "
           + " ".join(e.text() for e in root.find_all("pre", cls="error")))
    return body


def seconds(text):
    number, unit = text.split()
    return float(number) * SCALE[unit[:-1]]


def visible(elements):
    return [e for e in elements if "hidden" not in e.classes]


def max_overlap(items):
    """Most transfers in flight at once (an end before a start at the same instant): the fewest lanes."""
    events = sorted([(t["start_s"], 1) for t in items] + [(t["end_s"], -1) for t in items])
    count = best = 0
    for _, step in events:
        count += step
        best = max(best, count)
    return best


def check_run(root, report):
    ready(root)
    ops, transfers = report["timeline"]["ops"], report["timeline"]["transfers"]
    chart = root.find_all("div", cls="gantt")[0]  # the run's timeline; an explain replay comes after it
    op_rects = chart.find_all("rect", cls="op")
    expect(len(op_rects) == len(ops), f"{len(op_rects)} op bars for {len(ops)} ops")
    expect(sorted(r.attrs["data-op"] for r in op_rects) == sorted(o["op"] for o in ops), "one bar per op, by name")
    xfer_rects = chart.find_all("rect", cls="xfer")
    expect(len(xfer_rects) == len(transfers), f"{len(xfer_rects)} transfer bars for {len(transfers)} transfers")
    expect(sorted(int(r.attrs["data-transfer"]) for r in xfer_rects) == list(range(len(transfers))),
           "one bar per transfer")
    lanes_of = {}
    for r in xfer_rects:
        lanes_of.setdefault(r.attrs["data-lane"], []).append(transfers[int(r.attrs["data-transfer"])])
    for lane, items in lanes_of.items():
        expect(len({(t["from"], t["to"]) for t in items}) == 1, f"lane {lane} mixes routes")
        items.sort(key=lambda t: t["start_s"])
        for a, b in zip(items, items[1:]):
            expect(a["end_s"] <= b["start_s"], f"lane {lane}: {a['tensor']} and {b['tensor']} overlap")
    row = root.by_id("makespan")
    expect(float(row.attrs["data-s"]) == report["makespan_s"], "the makespan row holds another value")
    printed = seconds(row.find_all("td")[1].text())
    expect(abs(printed - report["makespan_s"]) <= 5e-4 * report["makespan_s"],
           f"makespan printed as {row.find_all('td')[1].text()!r}, report.json says {report['makespan_s']}")
    checks = root.find_all("tr", cls="cross-check")
    expect(len(checks) == len(report.get("cross_check", [])), "one latency row per cross-checking engine")
    for name, d in report["devices"].items():
        cells = root.by_id("device-table").find_all("tr", data_device=name)
        expect(len(cells) == 1, f"one row for device {name}")
        peak = [c for c in cells[0].find_all("td") if "data-bytes" in c.attrs][0]
        expect(float(peak.attrs["data-bytes"]) == d["peak_memory_bytes"], f"peak memory of {name}")
    for name, link in report["links"].items():
        cells = root.by_id("link-table").find_all("tr", data_link=name)
        expect(len(cells) == 1, f"one row for link {name}")
        moved = [c for c in cells[0].find_all("td") if "data-bytes" in c.attrs][0]
        expect(float(moved.attrs["data-bytes"]) == link["bytes"], f"bytes on link {name}")
    counts = root.by_id("timeline-counts")
    lanes = int(counts.attrs["data-lanes"])
    expect(lanes == sum(max_overlap(g) for g in groups(transfers)),
           f"{lanes} copy lanes, but interval partitioning needs exactly the most transfers in flight at once")
    streams = {(o["device"], o["stream"]) for o in ops}
    labels = chart.find_all("text", cls="row-label")
    expect(len(labels) == len(streams) + lanes, f"{len(labels)} rows for {len(streams)} streams and {lanes} lanes")
    print(f"run page: {len(ops)} ops, {len(transfers)} transfers on {lanes} lanes, {len(streams)} streams")


def groups(transfers):
    by_route = {}
    for t in transfers:
        by_route.setdefault((t["from"], t["to"]), []).append(t)
    return by_route.values()


def check_explain(root, explain, step):
    ready(root)
    decisions = explain["decisions"]
    label = root.by_id("step-label")
    expect(int(label.attrs["data-step"]) == step, f"opened at step {label.attrs['data-step']}, asked {step}")
    shown = visible(root.find_all("rect", cls="planned"))
    expect(len(shown) == step, f"{len(shown)} planned ops shown at step {step}")
    rank_rows = [r for r in root.by_id("rank-table").find_all("tr") if "data-op" in r.attrs]
    expect([r.attrs["data-op"] for r in rank_rows] == [r["op"] for r in explain["ranks"]], "rank table order")
    expect([float(r.attrs["data-rank"]) for r in rank_rows] == [r["rank"] for r in explain["ranks"]], "rank values")
    expect(float(root.by_id("explain-makespan").attrs["data-value"]) == explain["makespan"], "planned length")
    if step > 0:
        d = decisions[step - 1]
        box = root.by_id("candidates")
        expect(box.attrs.get("data-op") == d["op"], f"candidates of {box.attrs.get('data-op')}, step {step} is {d['op']}")
        chosen = box.find_all("tr", cls="chosen")
        expect(len(chosen) == 1 and chosen[0].attrs["data-device"] == d["chosen"], "the chosen device is marked")
        expect(len([r for r in box.find_all("tr") if "data-device" in r.attrs]) == len(d["candidates"]),
               "one row per candidate")
    print(f"explain page at step {step}: {len(shown)} ops placed, {len(rank_rows)} ranks")


def check_front(root, front):
    ready(root)
    plans, baselines = front["plans"], front.get("baselines", [])
    pairs = len(front["objectives"]) * (len(front["objectives"]) - 1) // 2
    figures = [f for f in root.find_all("figure") if "data-pair" in f.attrs]
    expect(len(figures) == pairs, f"{len(figures)} scatters for {pairs} objective pairs")
    for f in figures:
        expect(len(f.find_all("circle", cls="plan")) == len(plans), f"one point per plan in {f.attrs['data-pair']}")
        expect(len(f.find_all("path", cls="baseline")) == len(baselines), "one mark per baseline")
    rows = [r for r in root.by_id("plan-table").find_all("tr") if "data-id" in r.attrs]
    expect(len(rows) == len(plans), "one table row per plan")
    expect(root.by_id("plan-details").attrs.get("data-id") == str(plans[0]["id"]), "the first plan's details shown")
    expect(root.by_id("front-summary").attrs["data-plans"] == str(len(plans)), "plan count")
    print(f"front page: {len(plans)} plans, {len(baselines)} baselines, {pairs} scatters")


def check_sweep(root, sweep):
    ready(root)
    title = root.find_all("h1")[0].text()
    expect(title == "HeteroSim sweep: " + sweep["title"], f"title {title!r}")
    rows = [r for r in root.by_id("sweep-table").find_all("tr") if "data-row" in r.attrs]
    expect(len(rows) == len(sweep["rows"]), f"{len(rows)} table rows for {len(sweep['rows'])} runs")
    columns = sweep["parameters"] + sweep["metrics"]
    for r, want in zip(rows, sweep["rows"]):
        cells = [c.text() for c in r.find_all("td")]
        expect(cells[columns.index("platform")] == want["platform"], "row order and cells")
        expect((cells[-1] == "–") == (want["energy_j"] is None), "a missing metric prints as a dash")
    for i, plot in enumerate(sweep["plots"]):
        figure = root.find_all("figure", data_plot=str(i))[0]
        lines = figure.find_all("polyline", cls="series")
        values = {str(r[plot["series"]]) for r in sweep["rows"]} if plot["series"] else {plot["y"]}
        expect(sorted(l.attrs["data-series"] for l in lines) == sorted(values), f"plot {i}: one line per series value")
        points = [r for r in sweep["rows"] if r[plot["y"]] is not None]
        expect(len(figure.find_all("circle", cls="point")) == len(points), f"plot {i}: one point per measured run")
    print(f"sweep page: {len(rows)} rows, {len(sweep['plots'])} plots")


def check_png(path, width, height):
    data = open(path, "rb").read()
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    expect((w, h) == (width, height), f"{path} is {w}x{h}, asked {width}x{height}")
    idat, at = b"", 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    pixels = zlib.decompress(idat)
    distinct = len(set(pixels))
    # A blank page decodes to a few byte values (white, filter bytes); a drawn chart to most of the 256.
    expect(distinct > 64, f"{path} looks blank ({distinct} distinct bytes)")
    print(f"screenshot: {w}x{h}, {len(data)} bytes, {distinct} distinct pixel bytes")


def main(argv):
    kind, path = argv[1], argv[2]
    if kind == "png":
        return check_png(path, int(argv[3]), int(argv[4]))
    root = dom.parse(path)
    if kind in ("zoom", "sorted", "clicked", "stepped"):
        body = ready(root)
        value = body.attrs.get("data-" + kind)
        expect(value is not None, f"the {kind} probe did not run")
        return print(f"{kind} probe: {value}") if value.startswith("ok") else fail(f"{kind} probe: {value}")
    document = json.load(open(argv[3], encoding="utf-8"))
    if kind == "run":
        return check_run(root, document)
    if kind == "explain":
        return check_explain(root, document, int(argv[4]))
    if kind == "front":
        return check_front(root, document)
    if kind == "sweep":
        return check_sweep(root, document)
    fail(f"unknown check {kind}")


if __name__ == "__main__":
    main(sys.argv)
