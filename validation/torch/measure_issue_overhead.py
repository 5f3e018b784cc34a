"""The host time PyTorch's eager mode spends per op: a device's `issue_overhead` (platforms/README.md).

Runs four BERT encoder layers of torch.nn modules (validation/torch/torch_models.py) at a toy size (hidden 16,
2 heads, FFN 64, batch 1, sequence 4), whose kernels take next to nothing, so the forward's wall time is the
host's: Python, the modules, the dispatcher and, on a GPU, the launches. The profiler counts the top-level aten
ops; views (which launch no kernel) are not counted as ops doing work, so their host time is charged to the ops
that do, as HeteroSim's graphs have no view ops. On the CPU the figure includes the tiny kernels' own time,
where a GPU would have its launch instead; with CUDA present the same is measured on the GPU too, synchronised
once per timed round.

Usage: /usr/bin/python3 validation/torch/measure_issue_overhead.py  (prints one line per device and the
environment as JSON)
"""
import json
import os
import platform
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_models import EncoderLayer  # noqa: E402

VIEWS = {"aten::view", "aten::permute", "aten::transpose", "aten::reshape", "aten::t", "aten::expand",
         "aten::as_strided", "aten::_unsafe_view", "aten::contiguous", "aten::detach", "aten::dropout",
         "aten::alias", "aten::slice", "aten::select", "aten::resolve_conj"}
LAYERS, ROUNDS, PASSES = 4, 7, 200


def forward(layer, x):
    with torch.no_grad():
        for _ in range(LAYERS):
            x = layer(x, 1, 4)
    return x


def top_level_ops(layer, x):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        forward(layer, x)
    events = sorted((e for e in prof.events() if e.name.startswith("aten::")),
                    key=lambda e: (e.time_range.start, -e.time_range.end))
    top, end = [], -1
    for e in events:
        if e.time_range.start >= end:
            top.append(e.name)
            end = e.time_range.end
    return top


def measure(device):
    torch.manual_seed(0)
    layer = EncoderLayer(16, 2, 64).eval().to(device)
    x = torch.randn(1, 4, 16, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(50):
        forward(layer, x)
    sync()
    ops = top_level_ops(layer, x)
    working = [name for name in ops if name not in VIEWS]
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(PASSES):
            forward(layer, x)
        sync()
        rounds.append((time.perf_counter() - start) / PASSES)
    p50 = statistics.median(rounds)
    return {"device": device, "forward_p50_us": p50 * 1e6, "top_level_ops": len(ops),
            "working_ops": len(working), "host_us_per_working_op": p50 * 1e6 / len(working)}


def main():
    torch.set_num_threads(1)
    results = [measure("cpu")] + ([measure("cuda")] if torch.cuda.is_available() else [])
    for r in results:
        print(f"{r['device']}: {r['host_us_per_working_op']:.1f} us of host time per op doing work "
              f"({r['working_ops']} of {r['top_level_ops']} top-level aten ops; forward P50 "
              f"{r['forward_p50_us']:.0f} us over {ROUNDS} rounds of {PASSES})")
    environment = {"framework": f"PyTorch {torch.__version__}", "python": platform.python_version(),
                   "cpu": platform.processor() or platform.machine(), "threads": 1,
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    print(json.dumps({"environment": environment, "results": results}, indent=1))


if __name__ == "__main__":
    main()
