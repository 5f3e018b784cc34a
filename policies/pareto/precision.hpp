#pragma once
// Precision demotion: a device without an op's precision may still run it in a lower one (an NPU that
// only has fp16 and int8 running an fp32 GEMM). That costs accuracy, counted as a penalty: the op's
// numeric sensitivity times the fraction of mantissa-and-exponent bits lost (fp32 -> fp16: 0.5).
// A plan whose penalties add up to more than the error budget is infeasible.
#include "sim/cost_model.hpp"

#include <optional>
#include <string>

namespace hs::pareto {

// Bits of a precision name (fp32: 32, tf32: 19, bf16/fp16: 16, fp8/int8: 8, int4: 4); 0 when unknown.
int precision_bits(const std::string& precision);

// The precision `dev` runs `op` in: the op's own when the device is feasible for it; otherwise, when
// `allow_demotion`, the widest lower precision the device has, if that is the only obstacle; else nothing.
std::optional<std::string> run_precision(const CostModel& cost, OpId op, DeviceId dev, bool allow_demotion);

// sensitivity x (1 - bits(to) / bits(from)).
double demotion_penalty(const Op& op, const std::string& to);

} // namespace hs::pareto
