#pragma once
// What an eager framework's host spends issuing each op of a model graph (issue=eager; OpAttributes::
// host_issue, sim/host_issue.hpp): Python, the modules, the dispatcher and the launch, per op of the graph.
//
// Measured, not assumed: PyTorch 1.13 in eager mode on this project's 2-core AMD EPYC VM, one thread, four
// BERT encoder layers of torch.nn modules at a size whose kernels take next to nothing, so the time is the
// host's (validation/torch/measure_issue_overhead.py; the median of ten runs, 2026-12-07, in
// results/host_issue/eager-host/). Per layer: 121.5 us for an inference forward (115-178 over the runs),
// 230.3 us for a training forward (213-359; autograd records its graph as it goes) and 268.6 us for its
// backward (245-372), which autograd's engine issues from C++. Each is divided by the ops a BERT layer has in
// this project's Hugging Face graph (bert-large:implementation=huggingface: 17 forward ops in inference, 20
// in training with dropout, 34 backward ops), so a model made of such layers costs its host what the layers
// did. Hugging Face's own modules do more Python per layer than these torch.nn ones (argument checks, output
// tuples), so the figures are a floor for it; a GPU's launch replaces the toy kernels' own time.
#include "sim/graph.hpp"

namespace hs {

inline constexpr double kEagerInferenceForwardIssue = 121.46e-6 / 17;
inline constexpr double kEagerTrainingForwardIssue = 230.33e-6 / 20;
inline constexpr double kEagerBackwardIssue = 268.63e-6 / 34;

// Sets every op's host_issue by its pass (workloads/layer_roles.hpp) in a graph that trains or not. The
// optimizer's ops are charged as backward ops, an assumption: a foreach or fused step's launches come from
// C++ as autograd's do, and its host time was not measured on its own (PyTorch's CPU foreach kernels loop
// over tensors, a GPU's do not).
void charge_eager_issue(Graph& g, bool training);

} // namespace hs
