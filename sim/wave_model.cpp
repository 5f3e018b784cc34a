#include "sim/wave_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hs {

namespace {

// Output tiles of tuned GEMM libraries (CUTLASS's threadblock shapes; cuBLAS and rocBLAS choose among
// similar ones). Smaller tiles give more tiles to spread over the SMs but reuse each operand less.
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128},
                           {64, 64},   {64, 32},   {32, 64},   {32, 32}};

// Tiles resident on one SM at once: a 128x128 tile fills an SM's registers; smaller ones share it, up
// to four (occupancy limits keep more from helping).
double tiles_per_unit(Tile t) {
  return std::clamp(std::floor(128.0 * 128.0 / (t.m * t.n)), 1.0, 4.0);
}

} // namespace

double sustained_clock_share(const WaveDevice& d, const WaveParams& p) {
  if (d.sustained_clock_mhz > 0 && d.boost_clock_mhz > 0)
    return std::min(1.0, d.sustained_clock_mhz / d.boost_clock_mhz);
  if (p.watts_per_tflops > 0 && d.power_limit_watts > 0) {
    const double peak = d.clock_peak_flops > 0 ? d.clock_peak_flops : d.peak_flops;
    const double needed = p.watts_per_tflops * peak / 1e12;
    return std::min(1.0, std::pow(d.power_limit_watts / needed, 1.0 / 2.5));
  }
  return 1.0;
}

WaveTime gemm_time_with_tile(const GemmShape& s, const WaveDevice& d, const WaveParams& p, Tile tile,
                             double split_k) {
  WaveTime w;
  w.tile = tile;
  w.split_k = split_k;
  w.clock_share = sustained_clock_share(d, p);
  w.tiles = std::ceil(s.m / tile.m) * std::ceil(s.n / tile.n) * s.batch;
  const double slots = std::max(1, d.units) * tiles_per_unit(tile);
  w.waves = std::ceil(w.tiles * split_k / slots);
  // Operand reuse of one tile: 2 tm tn flops per (tm + tn) elements loaded at each step along K.
  const double intensity = 2 * tile.m * tile.n / ((tile.m + tile.n) * s.element_bytes);
  const double efficiency = p.peak_efficiency * intensity / (intensity + p.tile_intensity_knee) *
                            (s.transposed_a ? p.transposed_a_efficiency : 1.0);
  const double slot_rate = d.peak_flops * w.clock_share * efficiency / slots;
  const double tile_seconds =
      2 * tile.m * tile.n * (std::ceil(s.k / split_k) + p.tile_k_overhead) / slot_rate;
  // A, B read and C read and written once (caches absorb re-reads across tiles); a K split writes and
  // reads back one fp32 partial C per split.
  double bytes = s.element_bytes * s.batch * (s.m * s.k + s.k * s.n + 2 * s.m * s.n);
  if (split_k > 1) bytes += 2 * 4 * s.batch * s.m * s.n * split_k;
  const double memory_seconds = bytes / (d.bandwidth * p.memory_efficiency);
  w.seconds = p.launch_seconds + std::max(w.waves * tile_seconds, memory_seconds);
  return w;
}

WaveTime gemm_wave_time(const GemmShape& s, const WaveDevice& d, const WaveParams& p) {
  WaveTime best;
  best.seconds = std::numeric_limits<double>::infinity();
  for (const Tile& t : kTiles) {
    const double tiles = std::ceil(s.m / t.m) * std::ceil(s.n / t.n) * s.batch;
    const double slots = std::max(1, d.units) * tiles_per_unit(t);
    // Split K only while the tiles alone leave SMs idle, and never below 128 of K per split.
    for (double split = 1; split == 1 || (tiles * split <= 2 * slots && s.k / split >= 128); split *= 2) {
      const WaveTime w = gemm_time_with_tile(s, d, p, t, split);
      if (w.seconds < best.seconds) best = w;
    }
  }
  return best;
}

namespace {

double wave_element_bytes(const std::string& precision) {
  return precision == "fp64"                          ? 8
         : precision == "int8"                        ? 1
         : precision == "fp32" || precision == "tf32" ? 4
                                                      : 2;
}

// The op's named dimension, or `fallback` where it names none.
double dim_or(const Op& op, const char* name, double fallback) {
  const auto it = op.dims.find(name);
  return it == op.dims.end() ? fallback : it->second;
}

// The shape the op names (dims m, n, k and batch, as the workload builders write them), where its FLOPs
// agree: a GEMM with a bias reads more than A and B, so its bytes alone do not give its shape.
std::optional<GemmShape> named_gemm_shape(const Op& op, double element_bytes) {
  // The dims name the row-major product with its layout (sim/graph.hpp); the measured kernels the models
  // were fitted on are BLAS calls, and a transposed operand is a different kernel.
  const GemmShape call = blas_gemm(op.dims, element_bytes);
  const double m = call.m, n = call.n, k = call.k, batch = call.batch;
  for (double v : {m, n, k, batch})
    if (!(v >= 1)) return std::nullopt;
  // 2mnk, and at most one elementwise pass over the result or an operand beside it: a bias add (one per
  // output element), a bias gradient (a sum over K for each column of the result) or summed gradients.
  const double products = 2 * batch * m * n * k;
  const double one_pass = batch * std::max({m * n, m * k, k * n});
  if (!(op.flops >= products * (1 - 1e-9) && op.flops <= (products + one_pass) * (1 + 1e-9)))
    return std::nullopt;
  return call;
}

} // namespace

GemmShape blas_gemm(double m, double n, double k, double batch, double element_bytes, bool a_transposed,
                    bool b_transposed) {
  return GemmShape{n, m, k, batch, element_bytes, b_transposed, a_transposed};
}

GemmShape blas_gemm(const std::map<std::string, double>& dims, double element_bytes) {
  const auto dim = [&](const char* name, double fallback) {
    const auto it = dims.find(name);
    return it == dims.end() ? fallback : it->second;
  };
  return blas_gemm(dim("m", 0), dim("n", 0), dim("k", 0), dim("batch", 1), element_bytes,
                   dim(kTransposedA, 0) == 1, dim(kTransposedB, 0) == 1);
}

std::map<std::string, double> row_major_dims(const GemmShape& call) {
  return {{"batch", call.batch},
          {"m", call.n},
          {"n", call.m},
          {"k", call.k},
          {kTransposedA, call.transposed_b ? 1.0 : 0.0},
          {kTransposedB, call.transposed_a ? 1.0 : 0.0}};
}

bool matrix_vector(const GemmShape& s) {
  return std::min(s.m, s.n) < kSmallestTiledDimension;
}

GemmShape conv_gemm(double pixels, double cin, double cout, double window, double groups,
                    double element_bytes, double stride, int pass) {
  GemmShape s{pixels, cout, cin * window, groups, element_bytes, false, false, window, stride};
  if (pass == 1) { // dX = dY W: per output pixel, the input channels from every filter's window
    s.n = cin;
    s.k = cout * window;
  } else if (pass == 2) { // dW = dY^T X: per filter, each input channel's window, summed over the pixels
    s.m = cout;
    s.n = cin * window;
    s.k = pixels;
  }
  s.conv_pass = pass;
  return s;
}

std::optional<GemmShape> conv_shape_of(const Op& op) {
  if (op.kind != "conv2d" || op.has_explicit_times() || !(op.flops > 0)) return std::nullopt;
  const auto dim = [&](const char* name, double fallback) { return dim_or(op, name, fallback); };
  const double batch = dim("batch", 0), cin = dim("cin", 0), cout = dim("cout", 0), kh = dim("kh", 0),
               kw = dim("kw", 0), oh = dim("oh", 0), ow = dim("ow", 0), groups = dim("groups", 1),
               pass = dim("pass", 0);
  for (double v : {batch, cin, cout, kh, kw, oh, ow, groups})
    if (!(v >= 1)) return std::nullopt;
  if (pass != 0 && pass != 1 && pass != 2) return std::nullopt;
  return conv_gemm(batch * oh * ow, cin / groups, cout / groups, kh * kw, groups,
                   wave_element_bytes(op.precision), dim("stride", 0), static_cast<int>(pass));
}

std::optional<GemmShape> gemm_shape_of(const Op& op) {
  const bool batched_product = op.kind == "attention"; // scores and context: one batched GEMM each
  if ((op.kind != "gemm" && !batched_product) || op.has_explicit_times() || !(op.flops > 0))
    return std::nullopt;
  const double e = wave_element_bytes(op.precision);
  if (const auto named = named_gemm_shape(op, e)) return named;
  if (batched_product) return std::nullopt; // its bytes are batch x (A, B, C): no single GEMM's
  // mnk = F/2, mn = W/e, mk + kn = R/e: k = F/(2mn), and m, n are the roots of x^2 - (R/(e k)) x + mn.
  const double mn = op.bytes_written / e;
  if (!(mn >= 1)) return std::nullopt;
  const double k = op.flops / (2 * mn), sum = op.bytes_read / e / k;
  const double disc = sum * sum - 4 * mn;
  if (!(k >= 1) || !(disc >= 0)) return std::nullopt;
  const double m = (sum + std::sqrt(disc)) / 2, n = mn / m;
  if (!(n >= 1)) return std::nullopt;
  return GemmShape{m, n, k, 1, e, false, false};
}

WaveDevice wave_device(const Device& d, const std::string& precision) {
  WaveDevice w = wave_device(d);
  w.peak_flops = d.peak_flops.at(precision);
  if (const auto fp32 = d.peak_flops.find("fp32"); fp32 != d.peak_flops.end())
    w.clock_peak_flops = fp32->second;
  return w;
}

WaveDevice wave_device(const Device& d) {
  WaveDevice w = wave_device(d.units, d.memory_bandwidth);
  w.model = d.model;
  return w;
}

WaveDevice wave_device(const ComputeUnits& units, double bandwidth) {
  WaveDevice w;
  w.bandwidth = bandwidth;
  w.units = units.count;
  w.boost_clock_mhz = units.boost_clock_mhz;
  w.sustained_clock_mhz = units.sustained_clock_mhz;
  w.power_limit_watts = units.power_limit_watts;
  w.architecture = units.architecture;
  w.memory_type = units.memory_type;
  w.driver_version = units.driver_version;
  w.runtime_version = units.runtime_version;
  w.dnn_version = units.dnn_version;
  return w;
}

} // namespace hs
