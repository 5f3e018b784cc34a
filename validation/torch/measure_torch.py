#!/usr/bin/env python3
"""Measures through PyTorch what HeteroSim predicts: the kernel grid, and whole models run for real.

  measure_torch.py kernels --out FILE [--threads 1,2] [--quick]
      Times GEMM, convolution, batch and layer normalisation, softmax, elementwise, pooling, embedding and
      attention matmuls through torch, at each intra-op thread count, and writes a HeteroSim measurement set
      ("heterosim-measurements", version 1; each point's shape has a `threads` dimension).
  measure_torch.py models --out FILE [--threads 1,2] [--models resnet18,...] [--traces DIR] [--quick]
      Runs torchvision ResNet-18/50 and a torch-built BERT-base encoder end to end, and every node of each
      model alone (torch.fx), and writes "heterosim-torch-runs", version 1.

Both record the environment: torch version and build (`torch.__config__.show()`, BLAS, oneDNN), threads,
CPU, clock and load. Exits 77 with a message when torch is not installed (the tests read 77 as skipped).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

try:
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp
except ImportError:
    print("measure_torch: PyTorch is not installed (Debian: apt install python3-torch python3-torchvision); "
          "skipped", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_grid  # noqa: E402
import torch_models  # noqa: E402
import torch_ops  # noqa: E402


def cpu_info():
    model, mhz = "unknown", "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("cpu MHz") and mhz == "unknown":
                    mhz = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return model, mhz


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def environment(threads, timing):
    model, mhz = cpu_info()
    config = torch.__config__.show()
    blas = next((p.split("=", 1)[1] for p in config.replace(",", " ").split() if p.startswith("BLAS_INFO=")),
                "unknown")
    onednn = next((line.strip().lstrip("- ") for line in config.splitlines() if "MKL-DNN" in line or "oneDNN" in line),
                  "none")
    return {
        "framework": "PyTorch " + torch.__version__,
        "torch_config": config.strip(),
        "torch_parallel_info": torch.__config__.parallel_info().strip(),
        "blas": blas,
        "onednn": onednn,
        "intra_op_threads_measured": ",".join(str(t) for t in threads),
        "interop_threads": str(torch.get_num_interop_threads()),
        "cpu_model": model,
        "cpu_mhz": mhz,
        "hardware_threads": str(os.cpu_count()),
        "python": platform.python_version(),
        "os": platform.release(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_at_start": loadavg(),
        "timing": timing,
    }


class CacheFlush:
    """Before a timed call, streams through 64 MiB with a different op, as an op inside a model finds the
    caches (and the library's dispatch path) left by the ops before it, not by its own previous call."""

    def __init__(self):
        self.a, self.b = torch.ones(16 << 20), torch.empty(16 << 20)

    def __call__(self):
        torch.mul(self.a, 1.0001, out=self.b)


class PrecedingOp:
    """Before a timed call, runs a 3x3 convolution on other data (untimed), as an op inside a model follows
    another op: its caches, the library's thread pool and the allocator are left by that op, not by its own
    previous call."""

    def __init__(self):
        self.conv = torch.nn.Conv2d(128, 128, 3, padding=1, bias=False).eval()
        self.x = torch.randn(1, 128, 28, 28)

    def __call__(self):
        self.conv(self.x)


def time_call(fn, min_runs, max_runs, budget_s, before=None):
    """Seconds of each timed run (after two warm-ups), at least min_runs, more while within budget_s;
    `before` runs untimed before each call."""
    fn()
    fn()
    runs, spent = [], 0.0
    while len(runs) < min_runs or (len(runs) < max_runs and spent < budget_s):
        if before:
            before()
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
        spent += runs[-1]
    return runs


def p95(values):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def measure_kernels(args, threads):
    points = []
    flush = {"cold": CacheFlush, "after-op": PrecedingOp}.get(args.cache, lambda: None)()
    for n in threads:
        torch.set_num_threads(n)
        for name, fn, record in torch_grid.grid(args.quick):
            with torch.no_grad():
                runs = time_call(fn, 3 if args.quick else 5, 30, 0.05 if args.quick else 0.3, flush)
            record = dict(record)
            record["shape"] = dict(record["shape"], threads=float(n))
            points.append({"kind": record["kind"], "label": f"{torch_ops.label_of(record)} ({name})",
                           "shape": record["shape"], "flops": record["flops"], "bytes": record["bytes"],
                           "repeats": len(runs), "co_running_threads": 1, "p50_s": statistics.median(runs),
                           "p95_s": p95(runs), "min_s": min(runs)})
            print(f"  {n}t {points[-1]['label']}: {points[-1]['p50_s'] * 1e3:.3f} ms", file=sys.stderr)
    env = environment(threads, "p50_s, p95_s, min_s: wall clock (time.perf_counter) of one call under torch.no_grad(), "
                               "two warm-up calls, then at least 5 timed calls and up to 30 within 0.3 s")
    env["cache_state"] = {
        "cold": "cold: before each timed call an untimed torch.mul streams through 64 MiB",
        "after-op": "after an op: before each timed call an untimed 3x3 convolution (128 channels, 28x28) runs",
        "warm": "warm: timed calls follow each other"}[args.cache]
    env["loadavg_at_end"] = loadavg()
    return {"format": "heterosim-measurements", "version": 1, "device": "torch-cpu", "device_kind": "cpu",
            "environment": env, "peaks": {}, "points": points}


class NodeTimer(torch.fx.Interpreter):
    """Runs a traced model node by node and keeps each node's wall time and description."""

    def __init__(self, module):
        super().__init__(module)
        self.times, self.records = {}, {}

    def run_node(self, n):
        if n.op in ("placeholder", "output", "get_attr"):
            return super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        t0 = time.perf_counter()
        y = getattr(self, n.op)(n.target, args, kwargs)
        self.times.setdefault(n.name, []).append(time.perf_counter() - t0)
        if n.name not in self.records:
            if n.op == "call_module":
                self.records[n.name] = torch_ops.describe_module(self.fetch_attr(n.target), args, y)
            elif n.op == "call_function":
                self.records[n.name] = torch_ops.describe_function(n.target, args, y)
            else:
                self.records[n.name] = torch_ops.describe_method(n.target, args, y)
        return y


def export_trace(model, inputs, path, passes):
    """`passes` more runs under torch.profiler, exported as one Chrome trace (what a user's own profile
    gives); the reader takes each op's median over the passes."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(passes):
            model(*inputs)
    prof.export_chrome_trace(path)


def measure_model(name, n, quick, traces, out):
    network, batch, seq, model, inputs = torch_models.build(name)
    torch.set_num_threads(n)
    runs = 2 if quick else 5
    trace = f"{name}-{n}t.trace.json" if traces else None
    with torch.no_grad():
        end_to_end = time_call(lambda: model(*inputs), runs, runs, 0.0)
        if trace:
            export_trace(model, inputs, os.path.join(traces, trace), runs)
        traced = torch.fx.symbolic_trace(model)
        ShapeProp(traced).propagate(*inputs)
        timer = NodeTimer(traced)
        for _ in range(runs + 1):
            timer.run(*inputs)
    ops = []
    for node, record in timer.records.items():
        per_run = timer.times[node][1:]  # the first pass is a warm-up
        ops.append({"node": node, "kind": record["kind"], "label": torch_ops.label_of(record),
                    "shape": dict(record["shape"], threads=float(n)), "flops": record["flops"],
                    "bytes": record["bytes"], "p50_s": statistics.median(per_run), "min_s": min(per_run)})
    print(f"  {name} {n}t: {statistics.median(end_to_end) * 1e3:.1f} ms end to end, {len(ops)} nodes, "
          f"nodes alone sum to {sum(o['p50_s'] for o in ops) * 1e3:.1f} ms", file=sys.stderr)
    run = {"model": name, "network": network, "batch": batch, "sequence": seq, "threads": n,
           "repeats": runs, "end_to_end_p50_s": statistics.median(end_to_end),
           "end_to_end_p95_s": p95(end_to_end), "end_to_end_min_s": min(end_to_end), "ops": ops}
    if trace:  # relative to the folder of --out, as the reader resolves it
        run["profiler_trace"] = os.path.relpath(os.path.join(traces, trace), os.path.dirname(os.path.abspath(out)))
    return run


def measure_models(args, threads):
    names = args.models.split(",") if args.models else torch_models.MODELS
    if args.traces:
        os.makedirs(args.traces, exist_ok=True)
    runs = [measure_model(name, n, args.quick, args.traces, args.out) for n in threads for name in names]
    env = environment(threads, "end_to_end: wall clock of model(*inputs) under torch.no_grad(), two warm-ups, then "
                               "5 timed runs (P50, P95, fastest); ops: each torch.fx node timed alone while an "
                               "Interpreter runs the traced model, one warm-up pass, then 5 passes, P50 and fastest "
                               "per node; "
                               "profiler_trace: 5 more runs under torch.profiler (CPU activities, no shapes)")
    env["loadavg_at_end"] = loadavg()
    return {"format": "heterosim-torch-runs", "version": 1, "environment": env, "runs": runs}


def write_atomically(path, document, force):
    if os.path.exists(path) and not force:
        sys.exit(f"measure_torch: {path} exists (pass --force to replace it)")
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(document, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["kernels", "models"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", default="1,2", help="intra-op thread counts, comma-separated")
    parser.add_argument("--models", default="", help="comma-separated subset of " + ",".join(torch_models.MODELS))
    parser.add_argument("--cache", choices=["after-op", "warm", "cold"], default="after-op",
                        help="kernels: run another op before each timed call (default), time calls back to back, "
                             "or evict the caches before each one")
    parser.add_argument("--traces", default="",
                        help="models: also export one torch.profiler Chrome trace per run into this folder")
    parser.add_argument("--quick", action="store_true", help="a few small shapes, fewer runs (for tests)")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    args = parser.parse_args()
    try:
        threads = [int(t) for t in args.threads.split(",")]
        if any(t < 1 for t in threads):
            raise ValueError
    except ValueError:
        sys.exit(f"measure_torch: --threads '{args.threads}': expected positive integers, comma-separated")
    torch.set_num_interop_threads(1)
    document = measure_kernels(args, threads) if args.what == "kernels" else measure_models(args, threads)
    write_atomically(args.out, document, args.force)


if __name__ == "__main__":
    main()
