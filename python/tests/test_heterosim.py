"""The Python module against known answers and against the CLI: the same inputs give the same report."""
import json
import os
import subprocess
import tempfile

import pytest

import heterosim as hs


def test_lists_name_what_the_cli_knows():
    assert "hetero-server" in hs.platforms()
    assert {"heft", "peft", "fastest-device"} <= set(hs.policies())
    assert "bert-base" in hs.workloads()


def test_topcuoglu_textbook_heft_makespan_is_80():
    # Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002, Fig. 2 and 4: HEFT's schedule length is 80.
    example = os.path.join(os.path.dirname(__file__), "..", "..", "workloads", "examples", "topcuoglu2002.json")
    report = hs.run("textbook-3p", example, policy="heft-classic", engine="analytic")
    assert report["makespan_s"] == pytest.approx(80.0)


def test_objects_describe_themselves():
    server = hs.load_platform("hetero-server")
    assert server.name == "hetero-server" and "gpu0" in server.devices
    graph = hs.load_workload("random:ops=30", seed=4)
    assert graph.op_count == 30 and "30 ops" in repr(graph)


def test_a_run_is_the_report_the_cli_writes():
    report = hs.run("hetero-server", "random:ops=120,precision=fp16", policy="heft", engine="simgrid", seed=3)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([os.environ["HS_CLI"], "run", "--platform", "hetero-server", "--workload",
                        "random:ops=120,precision=fp16", "--policy", "heft", "--seed", "3", "--out", out, "--force",
                        "--quiet"], check=True, capture_output=True)
        with open(os.path.join(out, "report.json")) as f:
            cli = json.load(f)
    assert report["makespan_s"] == cli["makespan_s"]
    assert report["timeline"] == cli["timeline"]
    assert report["energy"] == cli["energy"]


def test_engines_agree_on_one_plan():
    replay = hs.run("hetero-server", "random:ops=80", policy="heft", engine="simgrid", seed=2)
    evaluator = hs.run("hetero-server", "random:ops=80", policy="heft", engine="evaluator", seed=2)
    assert evaluator["makespan_s"] == pytest.approx(replay["makespan_s"], rel=0.01)
    # The contention-free figure is a lower bound of the replay.
    bound = {c["engine"]: c["makespan_s"] for c in replay["cross_check"]}["analytic"]
    assert bound <= replay["makespan_s"] * (1 + 1e-9)


def test_bad_input_is_a_value_error_with_the_reason():
    with pytest.raises(ValueError, match="hetero-server"):
        hs.load_platform("hetero-servr")
    with pytest.raises(ValueError, match="engine 'gpu'"):
        hs.run("hetero-server", "random:ops=10", engine="gpu")
    with pytest.raises(ValueError):
        hs.run("hetero-server", "random:ops=10", policy="no-such-policy")


def test_a_small_front_is_replayed_and_non_dominated():
    front = hs.pareto("hetero-server", "random:ops=40", budget=60, seed=1)
    plans = front["plans"]
    assert plans and all("simgrid" in p for p in plans)  # every member replayed
    points = [p["normalised"] for p in plans]
    for a in points:
        for b in points:
            dominates = all(x <= y for x, y in zip(b, a)) and any(x < y for x, y in zip(b, a))
            assert not dominates, (a, b)


def test_from_torch_imports_a_module_through_onnx():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    graph = hs.from_torch(model, torch.randn(4, 64))
    assert graph.op_count >= 3
    report = hs.run("workstation", graph, policy="fastest-device", engine="analytic")
    assert report["makespan_s"] > 0
