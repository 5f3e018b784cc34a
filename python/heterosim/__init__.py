"""HeteroSim from Python: load platforms and workloads, run a policy's plan in any engine, search a Pareto
front, and read the reports as plain dicts (the same JSON `heterosim run` and `heterosim pareto` write).

    import heterosim as hs
    server = hs.load_platform("hetero-server")
    bert = hs.load_workload("bert-base")
    report = hs.run(server, bert, policy="heft")          # SimGrid replay; engine="evaluator" or "analytic"
    report["makespan_s"], report["energy"]
    front = hs.pareto(server, bert, budget=300)           # the archive search, replayed in SimGrid
    graph = hs.from_torch(torch_model, (example_input,))  # through torch.onnx.export, when torch is present
"""
import json
import os
import tempfile

# In the build tree the presets live in build/share/heterosim, two folders up from this package.
_SHARE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "share", "heterosim"))
if "HETEROSIM_DATA" not in os.environ and os.path.isdir(_SHARE):
    os.environ["HETEROSIM_DATA"] = _SHARE

from . import _native  # noqa: E402
from ._native import Graph, InputError, Platform, PlanError  # noqa: E402,F401

ENGINES = ("simgrid", "evaluator", "analytic")


def platforms():
    """The preset platform names."""
    return _native.platform_names()


def policies():
    """Every policy name, static and run-time, sorted."""
    return _native.policy_names()


def workloads():
    """The workload builder names (each takes parameters: "random:ops=200,seed=3")."""
    return _native.workload_builders()


def load_platform(name_or_path):
    return _native.load_platform(os.fspath(name_or_path))


def load_workload(spec_or_path, seed=0):
    return _native.load_workload(os.fspath(spec_or_path), seed)


def _platform(p):
    return p if isinstance(p, Platform) else load_platform(p)


def _graph(g, seed):
    return g if isinstance(g, Graph) else load_workload(g, seed)


def run(platform, workload, policy="heft", engine="simgrid", seed=1):
    """The policy's plan run on `engine`; returns the report as a dict (makespan, energy, per-op and
    per-transfer timeline, memory per device, and the other engines' figures on the same plan).
    `platform` and `workload` may be objects or names/specs."""
    if engine not in ENGINES:
        raise ValueError(f"engine '{engine}': expected one of {', '.join(ENGINES)}")
    return json.loads(_native.run_json(_platform(platform), _graph(workload, seed), policy, engine, seed))


def pareto(platform, workload, budget=500, seed=1, objectives="latency,energy,memory", replay=True):
    """The archive search's Pareto front (front.json as a dict), each member replayed in SimGrid unless
    replay is False."""
    return json.loads(_native.pareto_json(_platform(platform), _graph(workload, seed), budget, seed, objectives,
                                          replay))


def from_torch(model, example_inputs, path=None):
    """A HeteroSim graph of a PyTorch module, exported with torch.onnx.export at the example inputs'
    shapes and imported by HeteroSim's ONNX reader. Keeps the .onnx file at `path` if given."""
    try:
        import torch
    except ImportError as e:
        raise ImportError("heterosim.from_torch needs PyTorch (Debian: apt install python3-torch)") from e
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    with tempfile.TemporaryDirectory() as scratch:
        target = os.fspath(path) if path else os.path.join(scratch, "model.onnx")
        model.eval()
        with torch.no_grad():
            torch.onnx.export(model, example_inputs, target, opset_version=13, do_constant_folding=True)
        return load_workload(target)
