#pragma once
// The archive search's neighbourhood moves on a genome: move a super-node to another allowed device;
// move a super-node and its neighbours together (a coupled region migrates at once); move a run of
// super-nodes consecutive in topological order (a pipeline-like cut); move a periodic subset of a class
// of kin super-nodes (kin.hpp: the same layers of every decode step); toggle a fusion or set all of them;
// change a split. Shares: policies/pareto/README.md.
#include "policies/pareto/encoding.hpp"
#include "policies/pareto/kin.hpp"
#include "sim/random.hpp"

#include <vector>

namespace hs::pareto {

// How many moves a child takes, here and in the prior guide's proposals: one, two or three (1/2, 1/4, 1/4).
inline int move_count(Rng& rng) {
  return 1 + (rng.uniform() < 0.5 ? 1 + (rng.uniform() < 0.5 ? 1 : 0) : 0);
}

class Mover {
public:
  Mover(const Encoding& enc, KinClasses kin);
  // One move, drawn by the shares above.
  void apply(Genome& g, Rng& rng) const;

private:
  void block_move(Genome& g, Rng& rng) const;
  void segment_move(Genome& g, Rng& rng) const;
  void kin_move(Genome& g, Rng& rng) const;

  const Encoding& enc_;
  KinClasses kin_;
  std::vector<std::size_t> topo_nodes_;
  std::vector<std::vector<int>> neighbours_;
  std::vector<std::size_t> movable_;
};

} // namespace hs::pareto
