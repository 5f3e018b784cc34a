"""Turns the study's report.json files into table.md (printed) and table.csv (written to the run folder).

Per-GPU teraFLOP/s is counted as the paper counts it (Narayanan et al., SC 2021, section 5.1, equation for
F): F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)) FLOPs per iteration, which includes the recomputed
forward pass, divided by the simulated step time and the GPU count.
"""
import csv
import json
import sys

# Table 1 of Narayanan et al., SC 2021 (arXiv:2104.04473): layers, hidden, heads, TP, PP, GPUs, batch,
# achieved teraFLOP/s per GPU.
PUBLISHED = {
    "1.7b": (24, 2304, 24, 1, 1, 32, 512, 137),
    "3.6b": (30, 3072, 32, 2, 1, 64, 512, 138),
    "7.5b": (36, 4096, 32, 4, 1, 128, 512, 142),
    "18.4b": (40, 6144, 48, 8, 1, 256, 1024, 135),
    "39.1b": (48, 8192, 64, 8, 2, 512, 1536, 138),
    "76.1b": (60, 10240, 80, 8, 4, 1024, 1792, 140),
}
SEQ, VOCAB, PEAK = 2048, 51200, 312e12  # the paper's sequence, vocabulary; A100 fp16 tensor peak


def paper_flops(batch, layers, hidden):
    return 96 * batch * SEQ * layers * hidden**2 * (1 + SEQ / (6 * hidden) + VOCAB / (16 * layers * hidden))


def main():
    folder, configs = sys.argv[1], sys.argv[2:]
    rows = []
    for c in configs:
        layers, hidden, heads, tp, pp, gpus, batch, published = PUBLISHED[c]
        with open(f"{folder}/{c}/report.json") as f:
            report = json.load(f)
        par = report["parallel"]
        step = par["step_s"]
        flops = paper_flops(batch, layers, hidden)
        simulated = flops / step / gpus / 1e12
        built = len(par["devices"])  # fewer than the GPUs where replicas were folded
        graph_flops = par["model_flops"] * gpus / built
        graph = graph_flops / step / gpus / 1e12
        rows.append({
            "model": c.upper(), "tp": tp, "pp": pp, "dp": gpus // tp // pp, "gpus": gpus,
            "simulated_gpus": built, "batch": batch,
            "published_tflops": published, "simulated_tflops": round(simulated, 1),
            "error_percent": round(100 * (simulated - published) / published, 1),
            "graph_tflops": round(graph, 1), "step_s": round(step, 4),
            "paper_flops_over_graph": round(flops / graph_flops, 4),
            "exposed_comm_ms": round(1e3 * par["exposed_communication_s"], 1),
            "peak_gb": round(par["fullest_device"]["peak_bytes"] / 1e9, 1),
        })
    with open(f"{folder}/table.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| model | TP | PP | DP | GPUs (simulated) | batch | published TFLOP/s per GPU | simulated | error | "
          "graph's own FLOPs, TFLOP/s | step s | paper F / graph FLOPs | exposed comm ms | peak GB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['tp']} | {r['pp']} | {r['dp']} | {r['gpus']} ({r['simulated_gpus']}) | "
              f"{r['batch']} | {r['published_tflops']} | "
              f"{r['simulated_tflops']} | {r['error_percent']:+.1f}% | {r['graph_tflops']} | {r['step_s']} | "
              f"{r['paper_flops_over_graph']} | {r['exposed_comm_ms']} | {r['peak_gb']} |")


if __name__ == "__main__":
    main()
