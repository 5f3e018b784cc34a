#include "validation/published_kernels.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "validation/csv_table.hpp"

#include <cmath>

namespace hs::validation {

namespace {

// The software NeuSight's timings were taken with (SOURCE.md): CUDA 12.1, cuDNN 8.9.2.
constexpr double kRuntimeVersion = 12.1, kDnnVersion = 8.9;

DeepBenchPoint published_point(const CsvTable& t, std::size_t r, const GpuDatasheet& sheet) {
  const std::string& op = t.text(r, "op");
  if (op != "linear" && op != "bmm")
    throw InputError(t.file(), "line " + std::to_string(t.line(r)) + ", column op",
                     "must be linear or bmm, not '" + op + "'");
  const double b = t.positive(r, "b"), m = t.positive(r, "m"), n = t.positive(r, "n"), k = t.positive(r, "k");
  DeepBenchPoint p;
  p.gpu = sheet.gpu;
  p.precision = "fp32";
  const bool linear = op == "linear";
  // NeuSight's collector (neusight/Dataset/collect.py) runs Linear(n, k) on a (b, m, n) input and bmm on
  // (b, m, n) and (b, n, k): n is the reduction and k the output's columns. nn.Linear stores its weight
  // k x n and multiplies by its transpose; bmm's operands are both as stored.
  p.shape = blas_gemm(linear ? b * m : m, k, n, linear ? 1.0 : b, 4, false, linear);
  p.label =
      op + " b=" + t.text(r, "b") + " m=" + t.text(r, "m") + " n=" + t.text(r, "n") + " k=" + t.text(r, "k");
  p.point.kind = "gemm";
  p.point.flops = 2 * b * m * n * k;
  p.point.bytes = 4 * p.shape.batch * (p.shape.m * p.shape.k + p.shape.k * p.shape.n + p.shape.m * p.shape.n);
  p.point.seconds = t.positive(r, "latency_ms") * 1e-3;
  p.point.peak_flops = sheet.fp32_flops;
  p.point.bandwidth = sheet.bandwidth;
  p.device = datasheet_device(sheet, sheet.fp32_flops);
  p.device.runtime_version = kRuntimeVersion;
  p.device.dnn_version = kDnnVersion;
  return p;
}

// A GPU's points as a measurement set, as hs_measure_cuda would have written them.
MeasurementSet as_measurement_set(const std::vector<const DeepBenchPoint*>& points) {
  MeasurementSet m;
  m.device = "gpu0";
  m.device_kind = "gpu";
  for (const DeepBenchPoint* p : points) {
    KernelPoint k;
    k.kind = "gemm";
    k.label = p->label;
    k.shape = row_major_dims(p->shape); // as a workload names the op
    k.flops = p->point.flops;
    k.bytes = p->point.bytes;
    k.repeats = 1;
    k.p50 = k.p95 = p->point.seconds;
    m.points.push_back(std::move(k));
  }
  return m;
}

} // namespace

const GpuDatasheet& sheet_of_row(const std::map<std::string, GpuDatasheet>& sheets, const CsvTable& t,
                                 std::size_t r) {
  const std::string& model = t.text(r, "gpu_model");
  for (const auto& [key, sheet] : sheets)
    if (sheet.model == model) return sheet;
  throw InputError(t.file(), "line " + std::to_string(t.line(r)) + ", column gpu_model",
                   "'" + model + "' is not the model of any GPU in gpus.csv");
}

std::vector<DeepBenchPoint> load_published_gemms(const std::string& dir) {
  const auto sheets = load_gpu_datasheets(dir + "/gpus.csv");
  const CsvTable t = CsvTable::read(dir + "/gemm.csv");
  std::vector<DeepBenchPoint> out;
  std::map<std::string, int> block_size;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    DeepBenchPoint p = published_point(t, r, sheet_of_row(sheets, t, r));
    p.index = block_size[p.gpu]++;
    out.push_back(std::move(p));
  }
  if (out.empty()) throw InputError(t.file(), "", "no GEMM rows");
  return out;
}

std::string datasheet_platform_json(const GpuDatasheet& sheet) {
  Json units = {{"count", sheet.units.count},
                {"boost_clock_mhz", sheet.units.boost_clock_mhz},
                {"power_limit", std::to_string(sheet.units.power_limit_watts) + "W"},
                {"architecture", sheet.units.architecture},
                {"memory_type", sheet.units.memory_type},
                {"runtime_version", kRuntimeVersion},
                {"dnn_version", kDnnVersion},
                {"source", sheet.units.source}};
  Json d = {
      {"name", "gpu0"},
      {"kind", "gpu"},
      {"model", sheet.model},
      {"peak", {{"fp32", sheet.fp32_flops}}},
      {"memory", {{"bandwidth", sheet.bandwidth}, {"capacity", "16GiB"}}},
      {"power", {{"idle", "0W"}, {"busy", "1W"}}},
      {"compute_units", std::move(units)},
      {"source", sheet.source + ". Capacity and power are placeholders: validation compares time only."}};
  Json j = {{"format", "heterosim-platform"},
            {"version", 1},
            {"name", sheet.gpu},
            {"description", "One " + sheet.model + " alone, from its datasheet."},
            {"devices", Json::array({std::move(d)})},
            {"links", Json::array()}};
  return j.dump(1) + "\n";
}

PublishedKernelCheck check_published_kernels(const std::string& dir,
                                             const std::vector<DeepBenchPoint>& points,
                                             const Calibration* shipped) {
  const auto sheets = load_gpu_datasheets(dir + "/gpus.csv");
  std::map<std::string, std::vector<const DeepBenchPoint*>> by_gpu;
  for (const auto& p : points)
    by_gpu[p.gpu].push_back(&p);
  PublishedKernelCheck check;
  check.dir = check.shown_dir = dir;
  for (const auto& [gpu, sheet] : sheets)
    check.models[gpu] = sheet.model;
  if (const auto memory_bound = load_published_memory_bound(dir); !memory_bound.empty())
    check.memory_bound = evaluate_published_memory_bound(memory_bound, sheets);
  std::vector<double> all;
  if (!shipped) return check;
  for (const auto& [gpu, gpu_points] : by_gpu) {
    const Platform platform =
        parse_platform(datasheet_platform_json(sheets.at(gpu)), dir + "/gpus.csv " + gpu);
    const MeasurementSet set = as_measurement_set(gpu_points);
    auto c = check_shipped_gpu_model(set, platform, *shipped);
    if (!c) continue;
    all.insert(all.end(), c->signed_errors.begin(), c->signed_errors.end());
    check.by_gpu[gpu] = std::move(*c);
  }
  check.all = summarize(all);
  return check;
}

} // namespace hs::validation
