#!/usr/bin/env python3
"""Tabulates results/calibrate_torch/run.sh: per trace and fit, the held-out and in-sample per-op errors and
the end-to-end figures of `heterosim calibrate`, and `heterosim run`'s latency with the calibration."""
import json
import sys

here, rows = sys.argv[1], sys.argv[2:]
csv = ["trace,workload,threads,fit,ops,held_out_ops,held_out_mape,held_out_p50,held_out_p95,in_sample_mape,"
       "in_sample_p50,in_sample_p95,measured_ms,in_sample_ms,split_fit_ms,held_out_sum_error,run_ms,run_error"]
md = ["| trace | fit | ops | held out: ops, MAPE, P50, P95 | in sample: MAPE, P50, P95 | measured | in sample "
      "| split fit | held-out sum | `run` |",
      "|---|---|---:|---|---|---:|---:|---:|---:|---:|"]
for row in rows:
    trace, workload, threads, fit, folder = row.split(",")
    r = json.load(open(folder + "/report.json"))
    run = json.load(open(folder + "/run/report.json"))["makespan_s"]
    h, s, e = r["per_op"]["held_out"], r["per_op"]["in_sample"], r["end_to_end"]
    m = e["measured_s"]
    run_error = 100 * (run - m) / m
    csv.append(",".join(str(x) for x in [
        trace, workload, threads, fit, r["ops_fitted"], h["ops"], "%.1f" % h["mape_percent"],
        "%.1f" % h["p50_abs_percent"], "%.1f" % h["p95_abs_percent"], "%.1f" % s["mape_percent"],
        "%.1f" % s["p50_abs_percent"], "%.1f" % s["p95_abs_percent"], "%.3f" % (m * 1e3),
        "%.3f" % (e["in_sample_s"] * 1e3), "%.3f" % (e["split_fit_s"] * 1e3),
        "%.1f" % e["held_out_ops_error_percent"], "%.3f" % (run * 1e3), "%.1f" % run_error]))
    md.append("| %s | %s | %d | %d, %.1f %%, %.1f %%, %.1f %% | %.1f %%, %.1f %%, %.1f %% | %.2f ms | %+.1f %% | %+.1f %% "
              "| %+.1f %% | %.2f ms (%+.1f %%) |" % (
                  trace, fit, r["ops_fitted"], h["ops"], h["mape_percent"], h["p50_abs_percent"],
                  h["p95_abs_percent"], s["mape_percent"], s["p50_abs_percent"], s["p95_abs_percent"], m * 1e3,
                  e["in_sample_error_percent"], e["split_fit_error_percent"], e["held_out_ops_error_percent"],
                  run * 1e3, run_error))
open(here + "/calibrate.csv", "w").write("\n".join(csv) + "\n")
open(here + "/table.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
