#pragma once
// What `heterosim calibrate` reports: per op and end to end, measured against predicted, held out and in
// sample (validation/workload_calibration.hpp), with what was measured and how it was matched.
#include "validation/workload_calibration.hpp"

#include <string>

namespace hs::validation {

struct WorkloadReportInputs {
  std::string workload, platform, device;
  std::string measurements, noun; // the file and what it is ("times file", "trace")
  std::string matched_how;
  std::size_t rows = 0, passes = 0, pass_used = 0;
  int hold_out_every = 3;
  // A trace of a GPU run (OpTimes): ops timed by their kernels, and the host's time per issued op.
  bool device_times = false;
  double issue_seconds = 0.0;
  std::size_t device_events = 0, unattributed_device_events = 0;
};

std::string workload_report_text(const WorkloadReportInputs& in, const WorkloadCalibration& c);
std::string workload_report_json(const WorkloadReportInputs& in, const WorkloadCalibration& c);
// One row per measured op: op, kind, measured and predicted seconds (in sample, split, roofline alone).
std::string workload_predictions_csv(const Graph& g, const WorkloadCalibration& c);
// What the calibration entry says was measured.
std::string workload_measured_text(const WorkloadReportInputs& in);

} // namespace hs::validation
