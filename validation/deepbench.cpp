#include "validation/deepbench.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "validation/csv_table.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>

namespace hs::validation {

std::map<std::string, GpuDatasheet> load_gpu_datasheets(const std::string& csv_path) {
  const CsvTable t = CsvTable::read(csv_path);
  std::map<std::string, GpuDatasheet> out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    GpuDatasheet d;
    d.gpu = t.text(r, "gpu");
    d.fp32_flops = t.number(r, "fp32_tflops") * 1e12;
    d.fp16_tensor_flops = t.empty(r, "fp16_tensor_tflops") ? 0.0 : t.number(r, "fp16_tensor_tflops") * 1e12;
    d.bandwidth = t.number(r, "memory_gbps") * 1e9;
    d.source = t.text(r, "source");
    d.model = t.text(r, "model");
    d.units.count = static_cast<int>(t.number(r, "compute_units"));
    d.units.boost_clock_mhz = t.number(r, "boost_clock_mhz");
    d.units.power_limit_watts = t.number(r, "power_limit_w");
    d.units.architecture = t.text(r, "architecture");
    d.units.memory_type = t.text(r, "memory_type");
    d.units.source = t.text(r, "units_source");
    if (!(d.units.count > 0 && d.units.boost_clock_mhz > 0))
      throw InputError(csv_path, "gpu " + d.gpu, "compute_units and boost_clock_mhz must be positive");
    if (!(d.fp32_flops > 0 && d.bandwidth > 0))
      throw InputError(csv_path, "gpu " + d.gpu, "peak and bandwidth must be positive");
    out[d.gpu] = d;
  }
  return out;
}

namespace {

// Element size and peak for a DeepBench precision label: fp16_mixed runs on tensor cores; fp16_pseudo
// stores fp16 but computes in fp32 (see the data's README).
bool precision_figures(const GpuDatasheet& d, const std::string& precision, double& element, double& peak) {
  if (precision == "fp32") {
    element = 4;
    peak = d.fp32_flops;
  } else if (precision == "fp16_pseudo") {
    element = 2;
    peak = d.fp32_flops;
  } else if (precision == "fp16_mixed" && d.fp16_tensor_flops > 0) {
    element = 2;
    peak = d.fp16_tensor_flops;
  } else {
    return false;
  }
  return true;
}

// stacks.csv, where the folder has one: the software each GPU's sheet was measured with.
std::map<std::string, std::array<double, 3>> load_stacks(const std::string& dir) {
  std::map<std::string, std::array<double, 3>> out;
  const std::string path = dir + "/stacks.csv";
  if (!path_exists(path)) return out;
  const CsvTable t = CsvTable::read(path);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    std::array<double, 3> v{};
    const char* columns[] = {"driver_version", "runtime_version", "dnn_version"};
    for (std::size_t i = 0; i < 3; ++i)
      v[i] = t.empty(r, columns[i]) ? 0.0 : t.number(r, columns[i]);
    out[t.text(r, "gpu")] = v;
  }
  return out;
}

} // namespace

WaveDevice datasheet_device(const GpuDatasheet& sheet, double peak) {
  WaveDevice d = wave_device(sheet.units, sheet.bandwidth); // a sheet gives no held clock or software stack
  d.peak_flops = peak;
  d.model = sheet.model;
  return d;
}

std::vector<DeepBenchPoint> load_deepbench(const std::string& dir, const std::string& table,
                                           const std::map<std::string, GpuDatasheet>& sheets) {
  if (table != "gemm" && table != "conv" && table != "conv_backward")
    throw std::invalid_argument("no DeepBench table '" + table + "'");
  const std::string path = dir + "/" + (table == "gemm" ? "gemm.csv" : "conv.csv");
  const CsvTable t = CsvTable::read(path);
  std::vector<DeepBenchPoint> out;
  std::map<std::string, int> block_size;
  const auto stacks = load_stacks(dir);
  // The backward table has a point per pass a row times: the data gradient, then the weight gradient.
  const std::vector<int> passes = table == "conv_backward" ? std::vector<int>{1, 2} : std::vector<int>{0};
  for (std::size_t r = 0; r < t.rows(); ++r)
    for (const int pass : passes) {
      const char* column = table == "gemm" ? "time_ms"
                           : pass == 1     ? "bwd_inputs_ms"
                           : pass == 2     ? "bwd_params_ms"
                                           : "fwd_ms";
      if (pass != 0 && t.empty(r, column)) continue; // not every sheet times both gradients of every problem
      DeepBenchPoint p;
      p.gpu = t.text(r, "gpu");
      p.precision = t.text(r, "precision");
      auto sheet = sheets.find(p.gpu);
      double element = 0, peak = 0;
      if (sheet == sheets.end() || !precision_figures(sheet->second, p.precision, element, peak)) continue;
      p.index = block_size[p.gpu + "/" + p.precision + "/" + std::to_string(pass)]++;
      p.point.peak_flops = peak;
      p.point.bandwidth = sheet->second.bandwidth;
      p.device = datasheet_device(sheet->second, peak);
      if (auto st = stacks.find(p.gpu); st != stacks.end()) {
        p.device.driver_version = st->second[0];
        p.device.runtime_version = st->second[1];
        p.device.dnn_version = st->second[2];
      }
      if (table == "gemm") {
        const double m = t.number(r, "m"), n = t.number(r, "n"), k = t.number(r, "k");
        p.point.kind = "gemm";
        p.point.flops = 2 * m * n * k;
        // C = A B + C (beta = 1): A and B read, C read and written.
        p.point.bytes = element * (m * k + k * n + 2 * m * n);
        p.point.seconds = t.number(r, column) * 1e-3;
        p.shape = {m, n, k, 1, element, t.text(r, "a_t") == "T", t.text(r, "b_t") == "T"};
        p.label = "m=" + t.text(r, "m") + " n=" + t.text(r, "n") + " k=" + t.text(r, "k") + " " +
                  t.text(r, "a_t") + t.text(r, "b_t");
      } else {
        const double w = t.number(r, "w"), h = t.number(r, "h"), c = t.number(r, "c"), n = t.number(r, "n"),
                     k = t.number(r, "k"), s = t.number(r, "s"), rr = t.number(r, "r"),
                     pw = t.number(r, "out_w"), ph = t.number(r, "out_h");
        p.point.kind = "conv2d";
        // Direct convolution, as DeepBench counts it (the same for both gradients: its TFLOPS columns say
        // so).
        p.point.flops = 2 * n * k * c * rr * s * pw * ph;
        p.point.bytes = element * (n * c * h * w + k * c * rr * s + n * k * pw * ph);
        p.point.seconds = t.number(r, column) * 1e-3;
        // Implicit GEMM: output pixels x filters x window, or the gradient's (sim/wave_model.hpp).
        p.shape = conv_gemm(n * pw * ph, c, k, rr * s, 1, element,
                            std::max(t.number(r, "wstride"), t.number(r, "hstride")), pass);
        p.label = "w=" + t.text(r, "w") + " h=" + t.text(r, "h") + " c=" + t.text(r, "c") +
                  " n=" + t.text(r, "n") + " k=" + t.text(r, "k") + " " + t.text(r, "s") + "x" +
                  t.text(r, "r") +
                  (pass == 1   ? " dgrad"
                   : pass == 2 ? " wgrad"
                               : "");
      }
      if (!(p.point.seconds > 0))
        throw InputError(path, "row " + std::to_string(r + 2), std::string(column) + " must be positive");
      out.push_back(std::move(p));
    }
  return out;
}

DeepBenchResult evaluate_deepbench(const std::vector<DeepBenchPoint>& points, const std::string& table) {
  DeepBenchResult res;
  res.table = table;
  const std::vector<std::string> compute_kinds = {"gemm", "conv2d"};
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const DeepBenchPoint*>> blocks;
  for (const auto& p : points) {
    auto key = std::make_pair(p.gpu, p.precision);
    if (!blocks.count(key)) order.push_back(key);
    blocks[key].push_back(&p);
  }
  std::vector<double> all_datasheet, all_calibrated;
  for (const auto& key : order) {
    BlockResult b;
    b.gpu = key.first;
    b.precision = key.second;
    std::vector<FitPoint> train;
    for (const auto* p : blocks[key])
      if (!held_out(p->index)) train.push_back(p->point);
    b.fit = fit_roofline(train, compute_kinds);
    std::vector<double> e_sheet, e_cal;
    for (const auto* p : blocks[key]) {
      if (!held_out(p->index)) continue;
      e_sheet.push_back(percent_error(datasheet_prediction(p->point), p->point.seconds));
      e_cal.push_back(percent_error(b.fit.predict(p->point), p->point.seconds));
    }
    b.train = static_cast<int>(train.size());
    b.test = static_cast<int>(e_cal.size());
    b.datasheet = summarize(e_sheet);
    b.calibrated = summarize(e_cal);
    all_datasheet.insert(all_datasheet.end(), e_sheet.begin(), e_sheet.end());
    all_calibrated.insert(all_calibrated.end(), e_cal.begin(), e_cal.end());
    res.blocks.push_back(std::move(b));
  }
  res.datasheet = summarize(all_datasheet);
  res.calibrated = summarize(all_calibrated);

  std::set<std::string> gpus;
  for (const auto& p : points)
    if (p.precision == "fp32") gpus.insert(p.gpu);
  std::vector<double> all_logo;
  for (const auto& left_out : gpus) {
    std::vector<FitPoint> train;
    for (const auto& p : points)
      if (p.precision == "fp32" && p.gpu != left_out) train.push_back(p.point);
    const RooflineFit shared = fit_roofline(train, compute_kinds);
    std::vector<double> errors;
    for (const auto& p : points)
      if (p.precision == "fp32" && p.gpu == left_out)
        errors.push_back(percent_error(shared.predict(p.point), p.point.seconds));
    res.leave_one_gpu_out[left_out] = summarize(errors);
    all_logo.insert(all_logo.end(), errors.begin(), errors.end());
  }
  res.leave_one_gpu_out_all = summarize(all_logo);
  evaluate_deepbench_wave(points, res);
  evaluate_deepbench_twins(points, res);
  return res;
}

std::string deepbench_calibration(const BlockResult& b, const GpuDatasheet& sheet, const WaveParams& wave,
                                  double wave_held_out, const std::string& deepbench_dir,
                                  const std::string& datasheets) {
  CalibrationOut c;
  c.wave = wave;
  c.name = "deepbench-" + b.gpu;
  c.applies_to.models = {sheet.model.empty() ? b.gpu : sheet.model};
  c.measured = "DeepBench fp32 GEMM on " + b.gpu + ": " + std::to_string(b.train) + " published timings (" +
               deepbench_dir + "), efficiencies relative to " + datasheets;
  c.held_out_mape_percent = wave_held_out;
  c.fit = b.fit;
  char roofline[64];
  std::snprintf(roofline, sizeof roofline, "%.1f %%", b.calibrated.mape);
  return calibration_json(
      {c}, "heterosim validate: fit on two thirds of DeepBench's fp32 GEMM problems of " + b.gpu,
      "Applies to a device whose model is " + c.applies_to.models.front() +
          ". GEMMs use wave_model where the device gives compute_units (held_out_mape_percent "
          "is that model's); elsewhere the roofline parameters, whose held-out error is " +
          roofline + ".");
}

} // namespace hs::validation
