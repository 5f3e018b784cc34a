#include "validation/workload_report.hpp"

#include "sim/json_input.hpp"

#include <cstdio>
#include <sstream>

namespace hs::validation {

namespace {

std::string number_text(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string ms(double seconds) {
  return number_text("%.3f ms", seconds * 1e3);
}

std::string signed_percent(double v) {
  return number_text("%+.1f %%", v);
}

std::string per_op_line(const std::string& name, const ErrorsOver& e) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  %-46s %5d ops  MAPE %6.1f %%  P50 %6.1f %%  P95 %6.1f %%  bias %+6.1f %%\n", name.c_str(),
                e.per_op.count, e.per_op.mape, e.per_op.p50, e.per_op.p95, e.per_op.mean_signed);
  return buf;
}

Json errors_json(const ErrorsOver& e) {
  return {{"ops", e.per_op.count},
          {"mape_percent", e.per_op.mape},
          {"p50_abs_percent", e.per_op.p50},
          {"p95_abs_percent", e.per_op.p95},
          {"max_abs_percent", e.per_op.max},
          {"mean_signed_percent", e.per_op.mean_signed},
          {"measured_sum_s", e.measured},
          {"predicted_sum_s", e.predicted},
          {"sum_error_percent", e.error_percent()}};
}

// A CSV cell, quoted (RFC 4180) where it holds a comma or a quote.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s)
    q.append(c == '"' ? "\"\"" : std::string(1, c));
  return q.append("\"");
}

std::string held_out_name(const WorkloadReportInputs& in) {
  return "every " + std::to_string(in.hold_out_every) + (in.hold_out_every == 3 ? "rd" : "th") +
         " op of each kind held out";
}

// On a GPU trace, what the op times are and what the host's issue time was measured on.
std::string device_text(const WorkloadReportInputs& in) {
  if (!in.device_times) return "";
  return "; op times are the device time of the kernels, copies and fills each op launched (" +
         std::to_string(in.device_events - in.unattributed_device_events) + " of the trace's " +
         std::to_string(in.device_events) +
         " device activities; the rest were launched outside the model thread's ops); the host issued an op "
         "every " +
         number_text("%.3g", in.issue_seconds * 1e6) +
         " us (median gap between the starts of consecutive ops that do work): the entry's issue_overhead";
}

} // namespace

std::string workload_measured_text(const WorkloadReportInputs& in) {
  return "per-op times of " + in.workload + " on " + in.device + ": " + std::to_string(in.rows) +
         " measured ops of the " + in.noun + " " + in.measurements + ", matched " + in.matched_how +
         "; pass " + std::to_string(in.pass_used) + " of " + std::to_string(in.passes) +
         " (the fastest) fitted; the held-out error is per op, " + held_out_name(in) + device_text(in);
}

std::string workload_report_text(const WorkloadReportInputs& in, const WorkloadCalibration& c) {
  std::ostringstream s;
  s << "calibrate " << in.workload << " on " << in.device << " (" << in.platform << ")\n";
  s << "measured: " << workload_measured_text(in) << "\n";
  s << "fitted: roofline per kind on " << c.ops.size() << " ops";
  if (c.has_framework)
    s << "; framework model trees on the " << c.framework_ops << " that name their dimensions";
  s << "\n\nper op, measured against predicted:\n";
  s << per_op_line("in sample (fit on every op)", c.in_sample);
  s << per_op_line("held out (" + held_out_name(in) + ")", c.held_out);
  if (c.has_framework) {
    s << per_op_line("roofline alone, in sample", c.roofline_in_sample);
    s << per_op_line("roofline alone, held out", c.roofline_held_out);
  }
  s << "\nend to end (the ops one after another, as one device runs them):\n";
  s << "  measured                         " << ms(c.in_sample.measured) << "\n";
  s << "  in sample                        " << ms(c.in_sample.predicted) << " ("
    << signed_percent(c.in_sample.error_percent()) << ")\n";
  s << "  fit without the held-out ops     " << ms(c.split_total) << " ("
    << signed_percent(percent_error(c.split_total, c.in_sample.measured)) << ")\n";
  s << "  held-out ops alone               " << ms(c.held_out.predicted) << " against "
    << ms(c.held_out.measured) << " (" << signed_percent(c.held_out.error_percent()) << ")\n";
  s << "\nroofline: launch " << number_text("%.3g", c.roofline.launch_overhead * 1e6)
    << " us, memory efficiency " << number_text("%.3g", c.roofline.memory_efficiency)
    << ", compute efficiency";
  for (const auto& [kind, e] : c.roofline.efficiency)
    s << " " << kind << " " << number_text("%.3g", e);
  s << "\n";
  return s.str();
}

std::string workload_report_json(const WorkloadReportInputs& in, const WorkloadCalibration& c) {
  nlohmann::ordered_json j;
  j["format"] = "heterosim-calibrate-report";
  j["version"] = 1;
  j["workload"] = in.workload;
  j["platform"] = in.platform;
  j["device"] = in.device;
  j["measurements"] = {{"file", in.measurements},   {"is", in.noun},       {"rows", in.rows},
                       {"matched", in.matched_how}, {"passes", in.passes}, {"pass_fitted", in.pass_used}};
  if (in.device_times)
    j["gpu_trace"] = {{"op_times", "device time of the kernels each op launched"},
                      {"device_activities", in.device_events},
                      {"unattributed", in.unattributed_device_events},
                      {"issue_overhead_s", in.issue_seconds}};
  j["held_out"] = held_out_name(in) + ", predicted by a fit on the rest";
  j["ops_fitted"] = c.ops.size();
  j["framework_model_ops"] = c.framework_ops;
  j["per_op"] = {{"in_sample", errors_json(c.in_sample)}, {"held_out", errors_json(c.held_out)}};
  if (c.has_framework)
    j["per_op_roofline_alone"] = {{"in_sample", errors_json(c.roofline_in_sample)},
                                  {"held_out", errors_json(c.roofline_held_out)}};
  j["end_to_end"] = {{"measured_s", c.in_sample.measured},
                     {"in_sample_s", c.in_sample.predicted},
                     {"in_sample_error_percent", c.in_sample.error_percent()},
                     {"split_fit_s", c.split_total},
                     {"split_fit_error_percent", percent_error(c.split_total, c.in_sample.measured)},
                     {"held_out_ops_measured_s", c.held_out.measured},
                     {"held_out_ops_predicted_s", c.held_out.predicted},
                     {"held_out_ops_error_percent", c.held_out.error_percent()}};
  return j.dump(1) + "\n";
}

std::string workload_predictions_csv(const Graph& g, const WorkloadCalibration& c) {
  std::string out =
      "op,kind,held_out,measured_s,in_sample_s,split_fit_s,roofline_in_sample_s,roofline_split_s\n";
  for (const auto& o : c.ops) {
    const Op& op = g.op(o.op);
    // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on a chain of string additions here.
    out.append(csv_cell(op.name)).append(",").append(op.kind).append(o.held_out ? ",1" : ",0");
    for (double v : {o.measured, o.in_sample, o.split, o.roofline_in_sample, o.roofline_split})
      out.append(",").append(number_text("%.6g", v));
    out.append("\n");
  }
  return out;
}

} // namespace hs::validation
