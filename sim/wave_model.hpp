#pragma once
// A size-aware GPU kernel model: a GEMM (or a convolution as an implicit GEMM) is cut into output tiles,
// the tiles run in waves over the device's SMs, and a kernel lasts as many waves as it needs, the last
// one as long as a full one (wave quantisation, as in Habitat, USENIX ATC 2021, and NeuSight, ASPLOS
// 2025). Small tiles keep more SMs busy but reach less of the peak; a kernel with fewer tiles than SMs
// splits K; the whole kernel cannot beat the memory roofline; a board whose power limit cannot feed its
// SMs at the boost clock runs at a lower sustained clock. The library's choice of tile is modelled as the
// fastest candidate, as a tuned library would pick.
#include "sim/graph.hpp"
#include "sim/platform.hpp"

#include <map>
#include <optional>
#include <string>

namespace hs {

// The GEMM as the BLAS is called: column-major C (m x n) = op(A) op(B), as DeepBench lists its problems.
// A row-major framework's product is the transposed call (blas_gemm).
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;
  double element_bytes = 4; // of A, B and C
  // A stored transposed (BLAS "T" for the first operand): its tiles load with a stride, which the
  // libraries DeepBench measured handle less well on some GPUs.
  bool transposed_a = false;
  bool transposed_b = false; // B stored transposed (BLAS "T" for the second operand)
  // A convolution's filter window (kh x kw) and stride, 0 for a GEMM or where not known: the DNN
  // library's choice of algorithm (Winograd for 3x3, implicit GEMM, FFT) follows them.
  double window = 0, stride = 0;
  // Which pass of a convolution the implicit GEMM is: 0 the forward pass (or not a convolution), 1 the data
  // gradient (dX from dY and the filters: output pixels x input channels x filters x window, as DeepBench
  // counts its FLOPs), 2 the weight gradient (dW from dY and X: filters x input channels x window, over the
  // output pixels). The wave model costs each as the GEMM it is; the learned model tells the passes apart.
  int conv_pass = 0;
};

// The BLAS call a row-major product C [m, n] = op(A) [m, k] op(B) [k, n] makes (PyTorch's, and every
// workload builder's, view): the column-major C^T = op(B)^T op(A)^T, so B is the BLAS's first operand.
// nn.Linear's Y = X W^T is the BLAS's "TN" call with m the output features and n the rows.
GemmShape blas_gemm(double m, double n, double k, double batch, double element_bytes, bool a_transposed,
                    bool b_transposed);
// The same of a product named by dims as a graph op names them (OpAttributes::dims: batch, m, n, k and the
// layout flags; a missing batch is 1, a missing flag 0, a missing size 0).
GemmShape blas_gemm(const std::map<std::string, double>& dims, double element_bytes);
// blas_gemm's inverse: the dims, both flags included, of the row-major product a BLAS call computes.
std::map<std::string, double> row_major_dims(const GemmShape& call);

// The device as the model sees it.
struct WaveDevice {
  double peak_flops = 0; // for the op's precision and unit (tensor or CUDA cores), flop/s
  double bandwidth = 0;  // bytes/s
  int units = 0;         // SMs or compute units
  double boost_clock_mhz = 0;
  double sustained_clock_mhz = 0; // from a datasheet or measurement; 0: derive from the power limit
  double power_limit_watts = 0;   // 0: not limited
  std::string architecture;       // from the datasheet (ComputeUnits::architecture); may be empty
  std::string model;              // the product, as a driver reports it (Device::model); may be empty
  std::string memory_type;
  // The software the kernels ran under (as in ComputeUnits), 0 where not known: the driver's version
  // (NVIDIA's, e.g. 418.67), the runtime's (CUDA or ROCm, e.g. 10.1) and the DNN library's (cuDNN or
  // MIOpen, e.g. 7.6). The host and driver's cost per call, and the library's kernels, come with them.
  double driver_version = 0, runtime_version = 0, dnn_version = 0;
  // The fp32 CUDA-core peak, which the power law (WaveParams::watts_per_tflops) was fitted on; 0: the
  // peak_flops. The clock a board sustains is the board's, whatever the precision: a tensor-core peak
  // sixteen times the fp32 one does not draw sixteen times the power.
  double clock_peak_flops = 0;
};

// Parameters shared by every GPU (fitted on some, applied to others), so they must describe the
// mechanism, not a device.
struct WaveParams {
  double peak_efficiency = 0.85;   // of the peak, for the largest tile
  double tile_intensity_knee = 20; // flop/byte of a tile's operand reuse at which efficiency halves
  double memory_efficiency = 0.8;  // of the bandwidth, for the whole kernel's traffic
  double launch_seconds = 5e-6;
  // Board watts per peak TFLOP/s needed to hold the boost clock: a board whose power limit gives less
  // runs at a lower clock, power ~ clock^2.5 (dynamic power ~ f V^2, V falling with f above the voltage
  // floor; the exponent HeteroSim's platform p-states assume). 0: no power limit modelled.
  double watts_per_tflops = 0;
  double transposed_a_efficiency = 1; // multiplies the tile efficiency when A is transposed
  // Steps of K a tile pays beyond its own (filling the load pipeline, writing C): what makes a short K slow.
  double tile_k_overhead = 0;
};

struct Tile {
  double m = 128, n = 128;
};

struct WaveTime {
  double seconds = 0;
  Tile tile;
  double tiles = 0; // per K split
  double split_k = 1;
  double waves = 0;
  double clock_share = 1; // sustained / boost clock
};

// Share of the boost clock the device sustains on a dense kernel.
double sustained_clock_share(const WaveDevice& d, const WaveParams& p);

// Seconds with one tile shape and K split (the known-answer cases check this).
WaveTime gemm_time_with_tile(const GemmShape& s, const WaveDevice& d, const WaveParams& p, Tile tile,
                             double split_k);
// The fastest candidate tile and K split.
WaveTime gemm_wave_time(const GemmShape& s, const WaveDevice& d, const WaveParams& p);

// The GEMM a graph op stands for: the dims it names (batch, m, n, k) where its FLOPs are 2 batch mnk, else
// from its FLOPs and bytes in the workload builders' convention (2mnk FLOPs, A and B read, C written);
// nullopt when they describe no GEMM (extra bytes and no dims, explicit times). Attention's batched
// products (kind "attention": a transformer's scores and context) count by their dims only.
std::optional<GemmShape> gemm_shape_of(const Op& op);

// The implicit GEMM a convolution stands for (output pixels x filters per group x window, one GEMM per
// group), as DeepBench's convolutions are costed in validation/deepbench.cpp; from the dims the workload
// builders name (batch, cin, cout, kh, kw, oh, ow, groups, and "pass" on a gradient: 1 data, 2 weights, as
// GemmShape::conv_pass); nullopt for other ops and convolutions without them.
std::optional<GemmShape> conv_shape_of(const Op& op);

// A convolution's implicit GEMM for `pass` (GemmShape::conv_pass), per group: `pixels` output pixels over
// the batch, `cin` and `cout` channels per group, a `window` of kh x kw.
GemmShape conv_gemm(double pixels, double cin, double cout, double window, double groups,
                    double element_bytes, double stride, int pass);

// The smallest m or n of the measured GEMMs the model is fitted on (DeepBench's 8; hs_measure_cuda's grid
// starts at 256). Below it libraries run matrix-vector kernels, which stream A at the memory's pace rather
// than cutting C into tiles: the tiles here would pad the one row to 32 and count that as work.
inline constexpr double kSmallestTiledDimension = 8;

// A product with fewer rows or columns than any fitted GEMM (a decode step's projections at batch 1): the
// cost model leaves it to the device's roofline.
bool matrix_vector(const GemmShape& s);

// The device's figures for a precision: peak (precision must be in its peaks), bandwidth, units, clocks.
WaveDevice wave_device(const Device& d, const std::string& precision);
// The same but the peak (left 0): what says which device it is (architecture, software stack), for a
// question that does not depend on the precision.
WaveDevice wave_device(const Device& d);
// The same from compute units and a bandwidth alone (a datasheet's, where there is no platform device).
WaveDevice wave_device(const ComputeUnits& units, double bandwidth);

} // namespace hs
