#include "validation/kernel_shapes.hpp"

#include "sim/error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace hs::validation {

double KernelShape::dim(const std::string& name) const {
  auto it = dims.find(name);
  if (it == dims.end()) throw std::logic_error("kernel shape '" + kind + "' has no dimension '" + name + "'");
  return it->second;
}

double KernelShape::bytes_read() const {
  const double e = kFp32Bytes;
  if (kind == "gemm") return e * (dim("m") * dim("k") + dim("k") * dim("n"));
  if (kind == "conv2d") return e * (dim("hw") * dim("hw") * dim("c") + 9 * dim("c") * dim("k"));
  if (kind == "elementwise") return 2 * e * dim("n");
  if (kind == "reduction") return e * dim("n");
  if (kind == "softmax" || kind == "layernorm") return e * dim("rows") * dim("cols");
  if (kind == "copy") return dim("bytes");
  throw std::logic_error("unknown kernel kind '" + kind + "'");
}

double KernelShape::bytes_written() const {
  const double e = kFp32Bytes;
  if (kind == "gemm") return e * dim("m") * dim("n");
  if (kind == "conv2d") return e * dim("hw") * dim("hw") * dim("k");
  if (kind == "elementwise") return e * dim("n");
  if (kind == "reduction") return e;
  if (kind == "softmax" || kind == "layernorm") return e * dim("rows") * dim("cols");
  if (kind == "copy") return dim("bytes");
  throw std::logic_error("unknown kernel kind '" + kind + "'");
}

bool KernelShape::complete() const {
  const auto has = [&](std::initializer_list<const char*> names) {
    return std::all_of(names.begin(), names.end(), [&](const char* n) { return dims.count(n) > 0; });
  };
  if (kind == "gemm") return has({"m", "n", "k"});
  if (kind == "conv2d") return has({"hw", "c", "k"});
  if (kind == "elementwise" || kind == "reduction") return has({"n"});
  if (kind == "softmax" || kind == "layernorm") return has({"rows", "cols"});
  if (kind == "copy") return has({"bytes"});
  return false;
}

double KernelShape::im2col_bytes() const {
  return kind == "conv2d" ? kFp32Bytes * 9 * dim("c") * dim("hw") * dim("hw") : 0.0;
}

double KernelShape::pack_bytes() const {
  if (kind == "gemm") return kFp32Bytes * (dim("m") * dim("k") + dim("k") * dim("n"));
  if (kind == "conv2d") return im2col_bytes() + kFp32Bytes * 9 * dim("c") * dim("k");
  return 0.0;
}

double KernelShape::bytes() const {
  return bytes_read() + bytes_written();
}

double KernelShape::flops() const {
  if (kind == "gemm") return 2 * dim("m") * dim("n") * dim("k");
  if (kind == "conv2d") return 2 * dim("hw") * dim("hw") * dim("k") * 9 * dim("c");
  if (kind == "elementwise" || kind == "reduction") return dim("n");
  if (kind == "softmax" || kind == "layernorm") return 5 * dim("rows") * dim("cols");
  if (kind == "copy") return 0;
  throw std::logic_error("unknown kernel kind '" + kind + "'");
}

std::string KernelShape::label() const {
  std::ostringstream s;
  s << kind;
  for (const auto& [k, v] : dims)
    s << ' ' << k << '=' << static_cast<long long>(v);
  return s.str();
}

KernelShape gemm_shape(double m, double n, double k) {
  return {"gemm", {{"m", m}, {"n", n}, {"k", k}}};
}
KernelShape conv2d_shape(double hw, double c, double k) {
  return {"conv2d", {{"hw", hw}, {"c", c}, {"k", k}}};
}
KernelShape vector_shape(const std::string& kind, double n) {
  return {kind, {{"n", n}}};
}
KernelShape rows_shape(const std::string& kind, double rows, double cols) {
  return {kind, {{"rows", rows}, {"cols", cols}}};
}
KernelShape copy_shape(double bytes) {
  return {"copy", {{"bytes", bytes}}};
}

namespace {

// Positive roots of x^2 - sum x + product = 0, rounded; the larger first.
std::pair<double, double> two_factors(double sum, double product) {
  const double disc = sum * sum - 4 * product;
  const double root = std::sqrt(std::max(0.0, disc));
  return {std::round((sum + root) / 2), std::round((sum - root) / 2)};
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)) + 1e-9;
}

} // namespace

KernelShape shape_of_op(const Op& op, const std::string& graph_label) {
  const double e = kFp32Bytes;
  const auto fail = [&](const std::string& why) -> KernelShape {
    throw InputError(graph_label, "op '" + op.name + "'", "the real executor cannot run it: " + why);
  };
  if (op.precision != "fp32") return fail("precision " + op.precision + " (only fp32 runs on CPU threads)");
  if (op.has_explicit_times()) return fail("it has explicit times instead of FLOPs and bytes");
  KernelShape s;
  if (op.kind == "gemm") {
    // mnk = F/2, mn = W/e, mk + kn = R/e  =>  k = F/(2mn), m + n = (R/e)/k.
    const double mn = op.bytes_written / e, k = std::round(op.flops / (2 * mn));
    if (!(mn >= 1 && k >= 1)) return fail("FLOPs and bytes do not describe a GEMM");
    auto [a, b] = two_factors(op.bytes_read / e / k, mn);
    s = gemm_shape(a, b, k);
  } else if (op.kind == "conv2d") {
    // out = P*K = W/e, F = 18*P*K*C  =>  C = F/(18 out); R/e = C (P + 9K).
    const double out = op.bytes_written / e, c = std::round(op.flops / (18 * out));
    if (!(out >= 1 && c >= 1)) return fail("FLOPs and bytes do not describe a 3x3 convolution");
    const double sum = op.bytes_read / e / c;  // P + 9K
    auto [p1, p2] = two_factors(sum, 9 * out); // roots are P and 9K
    // Either root may be the pixel count: it is a square (hw x hw) and the other root a multiple of 9.
    const auto fits = [](double pixels, double nine_k) {
      const double side = std::round(std::sqrt(pixels));
      return side * side == pixels && std::fmod(nine_k, 9.0) == 0.0;
    };
    const double p = fits(p1, p2) ? p1 : p2;
    s = conv2d_shape(std::round(std::sqrt(p)), c, std::round(out / p));
  } else if (op.kind == "elementwise" || op.kind == "reduction") {
    s = vector_shape(op.kind, std::round(op.bytes_read / (op.kind == "elementwise" ? 2 * e : e)));
  } else if (op.kind == "softmax" || op.kind == "layernorm") {
    const double n = std::round(op.bytes_read / e);
    // Rows of up to 1024 values, as in the measurement grid; the op's total size is what matters.
    double cols = 1;
    for (double c = 1024; c >= 1; c /= 2)
      if (std::fmod(n, c) == 0) {
        cols = c;
        break;
      }
    s = rows_shape(op.kind, n / cols, cols);
  } else if (op.kind == "copy") {
    s = copy_shape(std::round(op.bytes_read));
  } else {
    return fail("no CPU kernel for op kind '" + op.kind + "'");
  }
  for (const auto& [name, v] : s.dims)
    if (!(v >= 1)) return fail("recovered dimension " + name + " is not positive");
  if (!close(s.flops(), op.flops) || !close(s.bytes_read(), op.bytes_read) ||
      !close(s.bytes_written(), op.bytes_written))
    return fail("its FLOPs and bytes do not match a " + op.kind + " shape exactly (recovered " + s.label() +
                ")");
  return s;
}

void describe_op(Op& op, const KernelShape& s) {
  op.kind = s.kind;
  op.precision = "fp32";
  op.flops = s.flops();
  op.bytes_read = s.bytes_read();
  op.bytes_written = s.bytes_written();
  if (s.kind == "conv2d") // the dimensions workload convolutions carry: 3x3, stride 1, padded, batch 1
    op.dims = {{"batch", 1}, {"cin", s.dim("c")}, {"cout", s.dim("k")}, {"kh", 3},
               {"kw", 3},    {"oh", s.dim("hw")}, {"ow", s.dim("hw")},  {"stride", 1}};
}

} // namespace hs::validation
