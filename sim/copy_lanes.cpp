#include "sim/copy_lanes.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace hs {

CopyLanes assign_copy_lanes(const Execution& e) {
  const auto& t = e.transfers;
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&t](std::size_t a, std::size_t b) {
    if (t[a].from != t[b].from) return t[a].from < t[b].from;
    if (t[a].to != t[b].to) return t[a].to < t[b].to;
    if (t[a].start != t[b].start) return t[a].start < t[b].start;
    return t[a].end < t[b].end;
  });
  // Lane index within the pair for every transfer; the pair's lane ends, scanned from lane 0.
  std::vector<int> index_in_pair(t.size(), 0);
  std::map<std::pair<DeviceId, DeviceId>, int> lanes_per_pair;
  std::vector<double> lane_end;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const TransferRun& run = t[order[k]];
    if (k == 0 || t[order[k - 1]].from != run.from || t[order[k - 1]].to != run.to) lane_end.clear();
    std::size_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] > run.start)
      ++lane;
    if (lane == lane_end.size()) lane_end.push_back(run.end);
    lane_end[lane] = run.end;
    index_in_pair[order[k]] = static_cast<int>(lane);
    lanes_per_pair[{run.from, run.to}] = static_cast<int>(lane_end.size());
  }
  CopyLanes out;
  std::map<std::pair<DeviceId, DeviceId>, int> first_lane;
  for (const auto& entry : lanes_per_pair) {
    first_lane[entry.first] = static_cast<int>(out.lanes.size());
    for (int i = 0; i < entry.second; ++i)
      out.lanes.push_back({entry.first.first, entry.first.second, i});
  }
  out.lane_of.resize(t.size());
  for (std::size_t i = 0; i < t.size(); ++i)
    out.lane_of[i] = first_lane[{t[i].from, t[i].to}] + index_in_pair[i];
  return out;
}

} // namespace hs
