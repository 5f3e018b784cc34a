#pragma once
// Real fp32 kernels on one CPU thread (Eigen, no internal threading), each owning its buffers so that
// timing covers the computation only.
#include "validation/kernel_shapes.hpp"

#include <memory>

namespace hs::validation {

class CpuKernel {
public:
  virtual ~CpuKernel() = default;
  virtual void run() = 0;
};

// Allocates and fills the kernel's buffers; throws std::logic_error for an unknown kind.
std::unique_ptr<CpuKernel> make_cpu_kernel(const KernelShape& s);

} // namespace hs::validation
