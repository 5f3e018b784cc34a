#!/usr/bin/env python3
"""Writes the `heterosim calibrate` test fixture (tests/validation_calibrate_test.cpp, tests/calibrate_test.sh):

  tiny-cnn.json       a small CNN as a heterosim-graph (convolutions, batch norms, ReLUs, a residual add,
                      pooling, a linear layer), each op naming its dimensions as the workload builders do
  tiny-cpu.json       a one-device platform: 100 GFLOP/s fp32, 10 GB/s, no launch overhead
  times.csv           per-op times in the heterosim op-times format, by op name, two passes: pass 0 is the
                      known roofline below exactly, pass 1 is 10 % slower
  trace.json          the same run as torch.profiler exports it (Chrome trace: top-level aten ops with their
                      library calls nested, views, a worker thread's events), pass 0 in whole microseconds and
                      a second pass 5 % slower
  trace-times.csv     the trace's top-level ops that do work and their times, as the import must read them
  tiny-gpu.json       the same device as a GPU, gpu0
  gpu-trace.json      the run on that GPU as torch.profiler (Kineto) exports it: each op's host event with
                      its launches inside (cuda_runtime), the kernels and a memset on the device, joined by
                      args.correlation; the host starts an op every 12 us (ISSUE), the device time of each
                      op's kernels adds up to the roofline (pass 0), and one kernel is launched by another
                      thread, as autograd's backward thread would

The times follow a known roofline: t = launch + max(flops / (peak x e[kind]), bytes / (bandwidth x m)) with
e[conv2d] = 0.5, e[gemm] = 0.8, m = 0.6, launch = 20 us, which a fit must recover.
Run from anywhere: python3 tests/data/calibrate/make_fixture.py [OUT_DIR] (deterministic; the files are
committed beside it, and tests/calibrate_test.sh checks that they regenerate byte for byte).
"""
import json
import os
import sys

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
PEAK, BANDWIDTH = 100e9, 10e9
EFFICIENCY = {"conv2d": 0.5, "gemm": 0.8}
MEMORY_EFFICIENCY, LAUNCH = 0.6, 20e-6
ISSUE = 12e-6  # the GPU trace's host time per op
F = 4  # fp32 bytes


def conv(name, cin, cout, h, k, stride):
    oh = (h + 2 * (k // 2) - k) // stride + 1
    dims = {"batch": 1, "cin": cin, "cout": cout, "h": h, "w": h, "kh": k, "kw": k, "stride": stride,
            "groups": 1, "oh": oh, "ow": oh}
    flops = 2 * cout * oh * oh * cin * k * k
    return {"name": name, "kind": "conv2d", "flops": flops, "bytes_read": (cin * h * h + cout * cin * k * k) * F,
            "bytes_written": cout * oh * oh * F, "dims": dims}, (cout, oh)


def pointwise(name, kind, elements, flops_per, inputs=1, dims=None):
    op = {"name": name, "kind": kind, "flops": flops_per * elements, "bytes_read": inputs * elements * F,
          "bytes_written": elements * F}
    if dims:
        op["dims"] = dims
    return op


def build_ops():
    ops, aten = [], []
    c1, (ch, hw) = conv("conv1", 3, 32, 64, 3, 1)
    ops += [c1]; aten += ["aten::conv2d"]
    e = ch * hw * hw
    ops += [pointwise("bn1", "batchnorm", e, 2, dims={"n": 1, "c": ch}),
            pointwise("relu1", "elementwise", e, 1, dims={"n": e, "arity": 1, "transcendental": 0})]
    aten += ["aten::batch_norm", "aten::relu_"]
    c2, _ = conv("conv2", 32, 32, 64, 3, 1)
    c3, _ = conv("conv3", 32, 32, 64, 1, 1)
    ops += [c2, pointwise("bn2", "batchnorm", e, 2, dims={"n": 1, "c": ch}), c3,
            pointwise("add", "add", e, 1, inputs=2, dims={"n": e, "arity": 2, "transcendental": 0}),
            pointwise("relu2", "elementwise", e, 1, dims={"n": e, "arity": 1, "transcendental": 0})]
    aten += ["aten::conv2d", "aten::batch_norm", "aten::conv2d", "aten::add_", "aten::relu_"]
    c4, (ch4, hw4) = conv("conv4", 32, 64, 64, 3, 2)
    c5, _ = conv("conv5", 64, 128, 32, 3, 2)
    e5 = 128 * 16 * 16
    ops += [c4, c5, pointwise("relu5", "elementwise", e5, 1, dims={"n": e5, "arity": 1, "transcendental": 0})]
    aten += ["aten::conv2d", "aten::conv2d", "aten::relu_"]
    pool = {"name": "pool", "kind": "pooling", "flops": e5, "bytes_read": e5 * F, "bytes_written": 128 * F,
            "dims": {"n_in": e5, "n_out": 128, "window": 256, "max": 0}}
    ops += [pool]; aten += ["aten::adaptive_avg_pool2d"]
    for name, (m, n, k) in {"fc1": (64, 512, 128), "fc2": (64, 1000, 512)}.items():
        ops.append({"name": name, "kind": "gemm", "flops": 2 * m * n * k, "bytes_read": (m * k + k * n) * F,
                    "bytes_written": m * n * F, "dims": {"batch": 1, "m": m, "n": n, "k": k}})
        aten.append("aten::linear")
    return ops, aten


def roofline(op):
    compute = op["flops"] / (PEAK * EFFICIENCY.get(op["kind"], 1.0))
    memory = (op["bytes_read"] + op["bytes_written"]) / (BANDWIDTH * MEMORY_EFFICIENCY)
    return LAUNCH + max(compute, memory)


def graph(ops):
    tensors, prev = [], None
    for i, op in enumerate(ops):
        consumers = [ops[i + 1]["name"]] if i + 1 < len(ops) else []
        if op["name"] == "relu1":
            consumers.append("add")  # the residual
        if consumers:
            tensors.append({"name": op["name"] + ".out", "bytes": op["bytes_written"], "producer": op["name"],
                            "consumers": consumers})
    return {"format": "heterosim-graph", "version": 1, "name": "tiny-cnn",
            "description": "A small CNN for the calibrate tests, written by make_fixture.py", "ops": ops,
            "tensors": tensors}


def platform(kind="cpu"):
    return {"format": "heterosim-platform", "version": 1, "name": "tiny-" + kind,
            "description": "One %s with round figures, for the calibrate tests (make_fixture.py)" % kind.upper(),
            "devices": [{"name": kind + "0", "kind": kind, "peak": {"fp32": PEAK},
                         "memory": {"bandwidth": BANDWIDTH, "capacity": "16GiB"},
                         "power": {"busy": "10W", "idle": "1W"},
                         "source": "test fixture: round numbers, no real device"}],
            "links": []}


def trace(ops, aten):
    events, ts = [], 10
    calls = {"aten::conv2d": "aten::mkldnn_convolution", "aten::linear": "aten::addmm"}
    for scale in (1.0, 1.05):
        for op, name in zip(ops, aten):
            dur = round(roofline(op) * 1e6 * scale)
            events.append({"name": name, "ph": "X", "ts": ts, "dur": dur, "tid": 1, "pid": "CPU functions",
                           "args": {}})
            if name in calls:
                events.append({"name": calls[name], "ph": "X", "ts": ts + 1, "dur": dur - 2, "tid": 1,
                               "pid": "CPU functions", "args": {}})
            ts += dur + 3
            if op["name"] == "pool":  # torch flattens before the linear layer: a view
                events.append({"name": "aten::flatten", "ph": "X", "ts": ts, "dur": 2, "tid": 1,
                               "pid": "CPU functions", "args": {}})
                ts += 5
        # an intra-op worker thread records little
        events.append({"name": "aten::add", "ph": "X", "ts": 12, "dur": 3, "tid": 7, "pid": "CPU functions",
                       "args": {}})
        events.append({"name": "ProfilerStep#1", "ph": "i", "ts": ts, "tid": 1, "pid": "CPU functions", "s": "t"})
    return {"schemaVersion": 1, "traceEvents": events}


def gpu_trace(ops, aten):
    events, host, device_free, correlation = [], 10.0, 0.0, 100

    def launch(ts, tid, seconds, kernel, category="kernel"):
        nonlocal device_free, correlation
        events.append({"name": "cudaLaunchKernel" if category == "kernel" else "cudaMemsetAsync", "ph": "X",
                       "cat": "cuda_runtime", "ts": ts, "dur": 1.5, "pid": 1234, "tid": tid,
                       "args": {"correlation": correlation}})
        start = max(device_free, ts + 3.0)
        events.append({"name": kernel, "ph": "X", "cat": category, "ts": start, "dur": seconds * 1e6, "pid": 0,
                       "tid": 7, "args": {"correlation": correlation, "device": 0, "stream": 7}})
        device_free, correlation = start + seconds * 1e6, correlation + 1

    for op, name in zip(ops, aten):
        t = roofline(op)
        events.append({"name": name, "ph": "X", "cat": "cpu_op", "ts": host, "dur": 8.0, "pid": 1234, "tid": 1,
                       "args": {}})
        if name == "aten::conv2d":  # two kernels
            launch(host + 2, 1, 0.75 * t, "implicit_convolve_sgemm")
            launch(host + 5, 1, 0.25 * t, "add_bias_kernel")
        elif name == "aten::linear":  # a memset, then the GEMM
            launch(host + 2, 1, 1e-6, "Memset (Device)", "gpu_memset")
            launch(host + 5, 1, t - 1e-6, "sgemm_128x64_nn")
        else:
            launch(host + 2, 1, t, "elementwise_kernel")
        if op["name"] == "pool":  # the flatten view between pool and fc1: host time, no kernel
            events.append({"name": "aten::flatten", "ph": "X", "cat": "cpu_op", "ts": host + 9, "dur": 1.0,
                           "pid": 1234, "tid": 1, "args": {}})
        host += ISSUE * 1e6
    launch(host, 2, 5e-6, "backward_kernel")  # another thread's: no model op launched it
    return {"schemaVersion": 1, "traceEvents": events}


def main():
    ops, aten = build_ops()
    with open(os.path.join(HERE, "tiny-cnn.json"), "w") as f:
        json.dump(graph(ops), f, indent=1)
        f.write("\n")
    for kind in ("cpu", "gpu"):
        with open(os.path.join(HERE, "tiny-%s.json" % kind), "w") as f:
            json.dump(platform(kind), f, indent=1)
            f.write("\n")
    with open(os.path.join(HERE, "gpu-trace.json"), "w") as f:
        json.dump(gpu_trace(ops, aten), f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "times.csv"), "w") as f:
        f.write("op,kind,seconds,pass\n")
        for p, scale in ((0, 1.0), (1, 1.1)):
            for op in ops:
                f.write("%s,%s,%.17g,%d\n" % (op["name"], op["kind"], roofline(op) * scale, p))
    t = trace(ops, aten)
    with open(os.path.join(HERE, "trace.json"), "w") as f:
        json.dump(t, f, indent=1)
        f.write("\n")
    kinds = {"aten::conv2d": "conv2d", "aten::batch_norm": "batchnorm", "aten::relu_": "elementwise",
             "aten::add_": "elementwise", "aten::adaptive_avg_pool2d": "pooling", "aten::linear": "gemm"}
    with open(os.path.join(HERE, "trace-times.csv"), "w") as f:
        f.write("op,kind,seconds\n")
        for e in t["traceEvents"]:
            if e["tid"] == 1 and e["name"] in kinds and e["ph"] == "X":
                f.write("%s,%s,%.17g\n" % (e["name"], kinds[e["name"]], e["dur"] * 1e-6))


if __name__ == "__main__":
    main()
