#include "sim/host_issue.hpp"

#include <algorithm>

namespace hs {

std::vector<double> host_issue_times(const Plan& plan, const std::vector<double>& issue_overhead,
                                     std::size_t op_count) {
  std::vector<double> issued;
  for (std::size_t d = 0; d < plan.queues.size(); ++d) {
    const double per_op = issue_overhead[d];
    if (per_op <= 0.0) continue;
    if (issued.empty()) issued.assign(op_count, 0.0);
    std::size_t longest = 0;
    for (const auto& queue : plan.queues[d])
      longest = std::max(longest, queue.size());
    std::size_t count = 0;
    for (std::size_t place = 0; place < longest; ++place)
      for (const auto& queue : plan.queues[d])
        if (place < queue.size()) issued[static_cast<std::size_t>(queue[place])] = per_op * double(++count);
  }
  return issued;
}

} // namespace hs
