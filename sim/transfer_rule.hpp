#pragma once
// How every engine moves a tensor: once per destination device, however many of its consumers run there,
// in the order of each destination's first consumer; consumers on the producer's device read it in place.
// The evaluator implements the same rule on flat arrays in its inner loop (sim/contention_engine.cpp).
#include "sim/graph.hpp"

#include <cstddef>
#include <vector>

namespace hs {

// Calls `remote(to)` once per destination device `to` other than `producer_device`, in order of first
// consumer, and `local(op)` for each consumer on the producer's device; `device_of[op]` is where each op
// runs. No allocation: the engines call it for every tensor of every run.
template <class Remote, class Local>
void for_each_destination(const std::vector<OpId>& consumers, DeviceId producer_device,
                          const std::vector<DeviceId>& device_of, Remote&& remote, Local&& local) {
  for (std::size_t i = 0; i < consumers.size(); ++i) {
    const DeviceId to = device_of[static_cast<std::size_t>(consumers[i])];
    if (to == producer_device) {
      local(consumers[i]);
      continue;
    }
    bool first = true;
    for (std::size_t j = 0; j < i && first; ++j)
      first = device_of[static_cast<std::size_t>(consumers[j])] != to;
    if (first) remote(to);
  }
}

} // namespace hs
