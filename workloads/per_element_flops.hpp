#pragma once
// Per-element FLOP conventions of the layers, counted from each formula (documented in workloads/README.md).

namespace hs::layers::per_element {
inline constexpr double batchnorm_forward =
    5; // (x - mean) * rsqrt(var + eps) * gamma + beta, plus statistics
inline constexpr double batchnorm_data_grad = 8; // dx from dy, x-hat and the two batch sums
inline constexpr double norm_weight_grad = 3;    // dgamma += dy * x-hat, dbeta += dy
inline constexpr double layernorm_forward = 8;   // mean, centre, square-sum, normalise, scale, shift
inline constexpr double layernorm_data_grad = 10;
inline constexpr double softmax_forward = 5;       // max, subtract, exp, sum, divide
inline constexpr double softmax_data_grad = 4;     // y * (dy - sum(dy * y))
inline constexpr double loss_forward = 6;          // log-softmax and the picked log-probability
inline constexpr double loss_grad = 2;             // softmax - one_hot, scaled by 1/rows
inline constexpr double log_softmax_forward = 5;   // max, subtract, exp, sum, subtract the log
inline constexpr double log_softmax_data_grad = 4; // dy - exp(y) * sum(dy)
} // namespace hs::layers::per_element
