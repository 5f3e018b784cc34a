#pragma once
// Kernel shapes and their cost figures (FLOPs, bytes), in the conventions of the workload builders
// (workloads/random_dag.cpp): the measurement programs, the calibration fit and the real executor all
// count work the same way, so a fitted efficiency transfers to graph ops of the same kind.
#include "sim/graph.hpp"

#include <map>
#include <string>

namespace hs::validation {

// kind plus named integer dimensions:
//   gemm m n k | conv2d hw c k (3x3, pad 1, stride 1, batch 1) | elementwise n | reduction n |
//   softmax rows cols | layernorm rows cols | copy bytes
struct KernelShape {
  std::string kind;
  std::map<std::string, double> dims;

  double dim(const std::string& name) const;
  double flops() const;
  double bytes() const; // read + written
  double bytes_read() const;
  double bytes_written() const;
  // Bytes a CPU BLAS packs (A and B; 0 for kernels that are not GEMMs) and, for a convolution, the column
  // matrix its im2col writes before the GEMM (0 otherwise).
  double pack_bytes() const;
  double im2col_bytes() const;
  // Whether every dimension its kind needs is named (a measurement set may record a kernel without them).
  bool complete() const;
  std::string label() const;
};

constexpr double kFp32Bytes = 4.0;

KernelShape gemm_shape(double m, double n, double k);
KernelShape conv2d_shape(double hw, double c, double k);
KernelShape vector_shape(const std::string& kind, double n);               // elementwise, reduction
KernelShape rows_shape(const std::string& kind, double rows, double cols); // softmax, layernorm
KernelShape copy_shape(double bytes);

// Recovers a runnable shape from a graph op's FLOPs and bytes (inverting the conventions above), so the
// real executor can run any fp32 graph whose ops use them. Throws InputError naming the op otherwise.
KernelShape shape_of_op(const Op& op, const std::string& graph_label);

// Sets an op's kind and costs from a shape (for graphs built to be executed).
void describe_op(Op& op, const KernelShape& s);

} // namespace hs::validation
