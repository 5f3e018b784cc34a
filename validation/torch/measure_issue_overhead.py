"""The host time PyTorch's eager mode spends per op: what an eager graph's ops charge their host
(`issue=eager`, workloads/README.md) and a device's `issue_overhead` (platforms/README.md).

Runs four BERT encoder layers of torch.nn modules (validation/torch/torch_models.py) at a toy size (hidden 16,
2 heads, FFN 64, batch 1, sequence 4), whose kernels take next to nothing, so the wall time is the host's:
Python, the modules, the dispatcher and, on a GPU, the launches. Two passes are timed: the forward in
inference (no_grad, eval mode), which Python issues op by op, and a training step's backward, which autograd's
engine issues from C++ (the step's time less its forward's, over the ops the backward added; the gradients are
set to None first, as a training loop's zero_grad does). The profiler counts the top-level aten ops; views
(which launch no kernel) are not counted as ops doing work, so their host time is charged to the ops that do,
as HeteroSim's graphs have no view ops. On the CPU the figure includes the tiny kernels' own time, where a GPU
would have its launch instead; with CUDA present the same is measured on the GPU too, synchronised once per
timed round.

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


def layers_forward(layers, x):
    for layer in layers:
        x = layer(x, 1, 4)
    return x


def inference(layers, x):
    with torch.no_grad():
        return layers_forward(layers, x)


def training_forward(layers, x):
    layers.zero_grad(set_to_none=True)
    return layers_forward(layers, x).sum()


def training_step(layers, x):
    training_forward(layers, x).backward()


def top_level_ops(step, *args):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step(*args)
    events = sorted((e for e in prof.events() if e.name.startswith("aten::")),
                    key=lambda e: (e.time_range.start, -e.time_range.end))
    top, end = [], -1
    for e in events:
        if e.time_range.start >= end:
            top.append(e.name)
            end = e.time_range.end
    return top


def working_ops(step, *args):
    return [name for name in top_level_ops(step, *args) if name not in VIEWS]


def p50_us(sync, step, *args):
    for _ in range(50):
        step(*args)
    sync()
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(PASSES):
            step(*args)
        sync()
        rounds.append((time.perf_counter() - start) / PASSES)
    return statistics.median(rounds) * 1e6


def measure(device):
    torch.manual_seed(0)
    layers = torch.nn.ModuleList(EncoderLayer(16, 2, 64) for _ in range(LAYERS)).to(device)
    x = torch.randn(1, 4, 16, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    layers.eval()
    ops = top_level_ops(inference, layers, x)
    working = [name for name in ops if name not in VIEWS]
    forward_us = p50_us(sync, inference, layers, x)
    layers.train()
    train_forward_us = p50_us(sync, training_forward, layers, x)
    step_us = p50_us(sync, training_step, layers, x)
    backward_ops = len(working_ops(training_step, layers, x)) - len(working_ops(training_forward, layers, x))
    return {"device": device, "forward_p50_us": forward_us, "top_level_ops": len(ops),
            "working_ops": len(working), "host_us_per_working_op": forward_us / len(working),
            "training_step_p50_us": step_us, "training_forward_p50_us": train_forward_us,
            "backward_working_ops": backward_ops,
            "backward_host_us_per_working_op": (step_us - train_forward_us) / backward_ops,
            "forward_host_us_per_layer": forward_us / LAYERS,
            "training_forward_host_us_per_layer": train_forward_us / LAYERS,
            "backward_host_us_per_layer": (step_us - train_forward_us) / LAYERS}


def main():
    torch.set_num_threads(1)
    results = [measure("cpu")] + ([measure("cuda")] if torch.cuda.is_available() else [])
    for r in results:
        print(f"{r['device']}: {r['host_us_per_working_op']:.1f} us of host time per op doing work "
              f"({r['working_ops']} of {r['top_level_ops']} top-level aten ops; forward P50 "
              f"{r['forward_p50_us']:.0f} us over {ROUNDS} rounds of {PASSES}); backward "
              f"{r['backward_host_us_per_working_op']:.1f} us per op ({r['backward_working_ops']} ops); per layer: "
              f"forward {r['forward_host_us_per_layer']:.1f} us, training forward "
              f"{r['training_forward_host_us_per_layer']:.1f} us, backward {r['backward_host_us_per_layer']:.1f} us")
    environment = {"framework": f"PyTorch {torch.__version__}", "python": platform.python_version(),
                   "cpu": platform.processor() or platform.machine(), "threads": 1,
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    print(json.dumps({"environment": environment, "results": results}, indent=1))


if __name__ == "__main__":
    main()
