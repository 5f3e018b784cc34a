#pragma once
// Kahn's algorithm with a min-heap: among the ops ready at once the smallest id goes first, so the order
// is stable (by id) and deterministic. One implementation serves a Graph and a rewrite's flat arrays, so
// both give the same order for the same edges.
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

namespace hs {

// `indegree` (per op: edges into it) is used up: ops left with a positive count lie on a cycle, and the
// order is then shorter than the op count. `successors_of(op)` gives the ops its edges lead to (an edge
// listed twice must be counted twice in `indegree`).
template <class Successors>
std::vector<int> stable_topological_order(std::vector<int>& indegree, Successors&& successors_of) {
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < indegree.size(); ++i)
    if (indegree[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  order.reserve(indegree.size());
  while (!ready.empty()) {
    const int o = ready.top();
    ready.pop();
    order.push_back(o);
    for (const int s : successors_of(o))
      if (--indegree[static_cast<std::size_t>(s)] == 0) ready.push(s);
  }
  return order;
}

} // namespace hs
