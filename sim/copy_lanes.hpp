#pragma once
// Lanes for drawing transfers, shared by the Chrome trace and the Gantt chart: a timeline viewer cannot
// draw two overlapping slices on one lane (Perfetto nests them, wrongly, or drops them), and the replay
// runs many copies between two devices at once (several copy engines, and links shared fairly).
//
// Rule: transfers are grouped by (source device, destination device); within a group, taken in order of
// start (then end, then their index in Execution::transfers), each goes to the lowest-numbered lane whose
// last transfer has ended by its start, or opens a new lane. This is interval partitioning: a group gets
// exactly as many lanes as the most transfers it has in flight at one instant. A transfer that ends when
// the next starts shares its lane.
#include "sim/execution.hpp"

#include <vector>

namespace hs {

struct CopyLane {
  DeviceId from = -1;
  DeviceId to = -1;
  int index = 0; // 0, 1, ... within its (from, to) pair
};

struct CopyLanes {
  std::vector<CopyLane> lanes; // sorted by (from, to, index)
  std::vector<int> lane_of;    // per transfer of Execution::transfers: its position in `lanes`
};

CopyLanes assign_copy_lanes(const Execution& e);

} // namespace hs
