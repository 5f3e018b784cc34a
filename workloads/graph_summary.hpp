#pragma once
// What a workload amounts to: ops, FLOPs, bytes, parameters, arithmetic intensity per op kind, and its
// critical path. Used by `heterosim info` and by the tests that check builders against published counts.
#include "sim/graph.hpp"

#include <map>
#include <string>

namespace hs {

struct KindTotals {
  int ops = 0;
  double flops = 0;
  double bytes = 0;                                                  // read + written
  double intensity() const { return bytes > 0 ? flops / bytes : 0; } // FLOPs per byte moved
};

struct GraphSummary {
  int ops = 0;
  int tensors = 0;
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  double tensor_bytes = 0;
  double param_bytes = 0;           // weights resident on the ops that own them
  double optimizer_state_bytes = 0; // param bytes of optimizer ops (Adam moments, master weights)
  double parameters = 0;            // weight elements: param bytes over each owner's element size
  double host_issue_seconds = 0;    // the ops' own host time to issue them (OpAttributes::host_issue)
  int host_issued_ops = 0;          // ops with some
  std::map<std::string, KindTotals> by_kind;
  int depth = 0;                    // ops on the longest path
  double critical_path_flops = 0;   // FLOPs on the heaviest path
  double critical_path_seconds = 0; // explicit-time graphs: heaviest path by mean op time plus edge times
};

GraphSummary summarize(const Graph& g);

} // namespace hs
