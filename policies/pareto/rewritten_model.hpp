#pragma once
// A rewrite decision applied to the base graph, in the two forms its users need. The search evaluates
// thousands of decisions and reads only flat arrays: the layout (which original ops each new op stands
// for), the flat graph and each new op's seconds per device, made without names or a Graph. Reports,
// replays and stored plans need the Graph with names and its cost model: built on first use, once.
#include "policies/pareto/rewrite.hpp"
#include "sim/flat_graph.hpp"

#include <memory>
#include <mutex>

namespace hs::pareto {

class RewrittenModel {
public:
  RewrittenModel(const CostModel& base, std::shared_ptr<const RewriteCandidates> candidates,
                 RewriteDecision decision);
  RewrittenModel(const RewrittenModel&) = delete;
  RewrittenModel& operator=(const RewrittenModel&) = delete;

  const std::vector<RewrittenOp>& ops() const { return layout_.ops; } // per new op
  const FlatGraph& flat() const { return flat_; }
  // Seconds per new op and device at the nominal p-state, [op][device]; the ops the rewrite left alone
  // keep the base model's costs, the others are costed anew by the base model's rules.
  const std::vector<double>& op_times() const { return op_times_; }
  const Platform& platform() const { return base_->platform(); }

  // The rewritten graph with names, and its cost model (equal to op_times()).
  const Rewritten& rewritten() const { return materialised().rewritten; }
  const CostModel& cost() const { return materialised().cost; }

private:
  struct Materialised {
    Materialised(const CostModel& base, const RewriteCandidates& c, const RewriteDecision& d,
                 const RewriteLayout& layout);
    Rewritten rewritten;
    CostModel cost; // points into `rewritten`, so the pair never moves
  };
  const Materialised& materialised() const;

  const CostModel* base_;
  std::shared_ptr<const RewriteCandidates> candidates_;
  RewriteDecision decision_;
  RewriteLayout layout_;
  FlatGraph flat_;
  std::vector<double> op_times_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<const Materialised> materialised_;
};

} // namespace hs::pareto
