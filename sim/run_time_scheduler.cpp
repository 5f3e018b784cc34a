#include "sim/run_time_scheduler.hpp"

#include <algorithm>

namespace hs {

double ReplayView::input_transfer_time(OpId op, DeviceId device) const {
  const Graph& g = cost().graph();
  double worst = 0.0;
  for (TensorId t : g.op(op).inputs) {
    if (holds(t, device)) continue;
    const DeviceId from = device_of(g.tensor(t).producer);
    worst = std::max(worst, cost().transfer_time(t, from, device));
  }
  return worst;
}

} // namespace hs
