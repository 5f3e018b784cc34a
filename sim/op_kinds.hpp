#pragma once
// The op kinds HeteroSim knows: the keys of the cost model's efficiencies, of supported-op lists and of
// placement tables. Every input that names a kind (graph JSON, DOT, platforms, calibrations, policy
// tables) is checked against this list, so a typo such as "convv2d" is an error naming its place instead
// of a silent fall-back to "default".
#include <string>
#include <vector>

namespace hs {

const std::vector<std::string>& known_op_kinds();
bool is_known_op_kind(const std::string& kind);
// "unknown op kind 'x' (known: attention, batchnorm, ...)".
std::string unknown_op_kind_message(const std::string& kind);
// Kinds that launch no kernel: a collective's steps (one persistent kernel that waits on flags, as
// NCCL's do) and a schedule's barriers (an order between passes, no work). They cost only the bytes
// they touch, and every device runs them.
bool is_synchronisation_kind(const std::string& kind);
// The kind of an optimizer step's updates. A training step frees what its updates read (the gradients)
// and their workspaces when the device's last update ends, as `optimizer.step()` then `zero_grad()` do.
inline constexpr const char* optimizer_kind = "optimizer";

} // namespace hs
