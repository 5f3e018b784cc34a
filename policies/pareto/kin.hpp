#pragma once
// Kin super-nodes: those whose ops match one for one (kind, FLOPs, bytes read and written) and that may run
// on the same devices, which is what the repeated blocks of a model are (a transformer's layers, its
// decode steps, a CNN's identical residual blocks). Good plans tend to treat such blocks alike: the same
// layers of every decode step on the CPU, every other block on a second accelerator. A kin move sets a
// periodic subset of one class to one device at once, a change single-node moves would need many steps
// (each of them alone often worse) to reach.
#include "policies/pareto/encoding.hpp"
#include "sim/random.hpp"

#include <vector>

namespace hs::pareto {

struct KinClasses {
  // Each class in the topological order of its members' first ops; only classes of two or more movable
  // super-nodes.
  std::vector<std::vector<std::size_t>> classes;
  double coverage = 0.0; // the share of the movable super-nodes that are in some class
};

KinClasses find_kin(const Encoding& enc);

// A periodic subset of `members`: a period p dividing their count (the repeats of a unit, say layers
// within decode steps), a range of positions within it and every first or second of those; so "layers 5,
// 7 and 9 of every step" is one draw.
std::vector<std::size_t> kin_subset(const std::vector<std::size_t>& members, Rng& rng);

} // namespace hs::pareto
