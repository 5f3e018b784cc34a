#include "validation/cpu_kernels.hpp"

#include <Eigen/Dense>
#include <vector>

namespace hs::validation {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
using Vector = Eigen::Array<float, Eigen::Dynamic, 1>;

// Keeps results observable so the compiler cannot drop the work.
volatile float g_sink = 0.0f;

Eigen::Index idx(double v) {
  return static_cast<Eigen::Index>(v);
}

class Gemm final : public CpuKernel {
public:
  explicit Gemm(const KernelShape& s)
      : a_(Matrix::Random(idx(s.dim("m")), idx(s.dim("k")))),
        b_(Matrix::Random(idx(s.dim("k")), idx(s.dim("n")))), c_(idx(s.dim("m")), idx(s.dim("n"))) {}
  void run() override {
    c_.noalias() = a_ * b_;
    g_sink = c_(0, 0);
  }

private:
  Matrix a_, b_, c_;
};

// Direct convolution lowered to a GEMM: im2col of the padded input, then weights x columns. Both
// steps are timed, as a framework's CPU convolution would run them.
class Conv2d final : public CpuKernel {
public:
  explicit Conv2d(const KernelShape& s)
      : hw_(idx(s.dim("hw"))), c_(idx(s.dim("c"))), input_(Matrix::Random(c_, hw_ * hw_)),
        weights_(Matrix::Random(idx(s.dim("k")), 9 * c_)), columns_(9 * c_, hw_ * hw_),
        output_(idx(s.dim("k")), hw_ * hw_) {}
  void run() override {
    for (Eigen::Index ch = 0; ch < c_; ++ch)
      for (Eigen::Index dy = -1; dy <= 1; ++dy)
        for (Eigen::Index dx = -1; dx <= 1; ++dx) {
          const Eigen::Index row = ch * 9 + (dy + 1) * 3 + (dx + 1);
          for (Eigen::Index y = 0; y < hw_; ++y)
            for (Eigen::Index x = 0; x < hw_; ++x) {
              const Eigen::Index sy = y + dy, sx = x + dx;
              columns_(row, y * hw_ + x) =
                  (sy < 0 || sy >= hw_ || sx < 0 || sx >= hw_) ? 0.0f : input_(ch, sy * hw_ + sx);
            }
        }
    output_.noalias() = weights_ * columns_;
    g_sink = output_(0, 0);
  }

private:
  Eigen::Index hw_, c_;
  Matrix input_, weights_, columns_, output_;
};

class Elementwise final : public CpuKernel {
public:
  explicit Elementwise(const KernelShape& s)
      : a_(Vector::Random(idx(s.dim("n")))), b_(Vector::Random(idx(s.dim("n")))), c_(idx(s.dim("n"))) {}
  void run() override {
    c_ = a_ + b_;
    g_sink = c_(0);
  }

private:
  Vector a_, b_, c_;
};

class Reduction final : public CpuKernel {
public:
  explicit Reduction(const KernelShape& s) : a_(Vector::Random(idx(s.dim("n")))) {}
  void run() override { g_sink = a_.sum(); }

private:
  Vector a_;
};

// Row-wise softmax; each Eigen column holds one row so that rows are contiguous.
class Softmax final : public CpuKernel {
public:
  explicit Softmax(const KernelShape& s)
      : x_(Matrix::Random(idx(s.dim("cols")), idx(s.dim("rows")))), y_(x_.rows(), x_.cols()) {}
  void run() override {
    for (Eigen::Index r = 0; r < x_.cols(); ++r) {
      const float max = x_.col(r).maxCoeff();
      y_.col(r) = (x_.col(r).array() - max).exp().matrix();
      y_.col(r) /= y_.col(r).sum();
    }
    g_sink = y_(0, 0);
  }

private:
  Matrix x_, y_;
};

class LayerNorm final : public CpuKernel {
public:
  explicit LayerNorm(const KernelShape& s)
      : x_(Matrix::Random(idx(s.dim("cols")), idx(s.dim("rows")))), y_(x_.rows(), x_.cols()) {}
  void run() override {
    const float n = static_cast<float>(x_.rows());
    for (Eigen::Index r = 0; r < x_.cols(); ++r) {
      const float mean = x_.col(r).sum() / n;
      const float var = (x_.col(r).array() - mean).square().sum() / n;
      y_.col(r) = ((x_.col(r).array() - mean) * (1.0f / std::sqrt(var + 1e-5f))).matrix();
    }
    g_sink = y_(0, 0);
  }

private:
  Matrix x_, y_;
};

// A plain vectorised copy (as a framework's tensor copy would run), not glibc's memcpy, whose strategy
// (rep movsb, non-temporal stores) changes with size and machine in ways no roofline describes.
class Copy final : public CpuKernel {
public:
  explicit Copy(const KernelShape& s)
      : from_(Vector::Random(idx(s.dim("bytes") / 4))), to_(Vector::Zero(idx(s.dim("bytes") / 4))) {}
  void run() override {
    to_ = from_;
    g_sink = to_(to_.size() / 2);
  }

private:
  Vector from_, to_;
};

} // namespace

std::unique_ptr<CpuKernel> make_cpu_kernel(const KernelShape& s) {
  if (s.kind == "gemm") return std::make_unique<Gemm>(s);
  if (s.kind == "conv2d") return std::make_unique<Conv2d>(s);
  if (s.kind == "elementwise") return std::make_unique<Elementwise>(s);
  if (s.kind == "reduction") return std::make_unique<Reduction>(s);
  if (s.kind == "softmax") return std::make_unique<Softmax>(s);
  if (s.kind == "layernorm") return std::make_unique<LayerNorm>(s);
  if (s.kind == "copy") return std::make_unique<Copy>(s);
  throw std::logic_error("no CPU kernel for kind '" + s.kind + "'");
}

} // namespace hs::validation
