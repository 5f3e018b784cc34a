#pragma once
// When an op's inputs can be on a candidate device: the data-ready time every list scheduler needs.
//
// Classic (Topcuoglu et al. 2002): each input arrives its contention-free transfer time after its producer
// ends, however many other transfers share the links.
//
// Contention-aware (Sinnen & Sousa, "Communication contention in task scheduling", IEEE TPDS 16(6), 2005):
// links (each direction of a split-duplex link on its own), and each device's outgoing and incoming copy
// engines, are resources with timetables. A transfer is booked, in the earliest gap at or after its
// producer's end, for its route time on one outgoing engine of the source, one incoming engine of the
// destination and every link of its route at once, so two
// transfers through one PCIe uplink are serialised instead of both running at full speed. Inputs are
// booked in order of their producers' finish times; a tensor already booked to the device is reused (one
// transfer per tensor and destination, as both engines do). Textbook edges with an explicit `comm_time`
// bypass links and copy engines, as in both engines, so textbook answers do not change.
#include "policies/timetable.hpp"

#include <functional>
#include <tuple>
#include <vector>

namespace hs {

class InputArrival {
public:
  InputArrival(const CostModel& cost, bool contention);

  bool contention() const { return contention_; }
  // Whether a ready time of t or later is of no use to the caller (it must stay so for every later t).
  using Hopeless = std::function<bool(double t)>;
  // Earliest time all of `op`'s inputs can be on `device`, given where and when their producers finished.
  // Leaves no bookings behind. Once the inputs booked so far make `hopeless` true, it stops booking and
  // returns that time, a lower bound of the real one: a list scheduler trying a device that cannot win
  // need not book the rest of its transfers.
  double ready_time(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                    const std::vector<double>& finish, const Hopeless& hopeless = {});
  // A lower bound of ready_time(), without booking anything: each input's contention-free arrival (or the
  // arrival already booked for it). Cheap, so a list scheduler can skip devices that cannot win.
  double ready_lower_bound(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                           const std::vector<double>& finish) const;
  // The same, and keeps the transfers' bookings: call it once for the device chosen. After ready_time() for
  // the same op and device, with no commit between, it books what that trial found instead of searching
  // again (the timetables are as they were then).
  double commit(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                const std::vector<double>& finish);

private:
  struct EngineBound {
    double start; // the engine's own earliest start, a lower bound of any pair's common start
    int index;    // in its pool
    int engine;   // the resource
    bool operator<(const EngineBound& o) const { return std::tie(start, index) < std::tie(o.start, o.index); }
  };
  struct Booking {
    int resource;
    double start, end;
  };
  // How a found slot is held: reserved (a commit), tentative (a trial's, dropped when the trial ends) or not
  // at all (a trial's last transfer, which delays nothing after it).
  enum class Hold { reserve, tentative, none };
  struct PendingTransfer {
    double ready; // its producer's end
    TensorId tensor;
    DeviceId from;
    bool operator==(const PendingTransfer& o) const {
      return ready == o.ready && tensor == o.tensor && from == o.from;
    }
  };
  // What ready_time() found for one device since the last commit.
  struct Trial {
    OpId op = -1;
    DeviceId device = -1;
    std::vector<PendingTransfer> transfers;
    std::vector<double> ends; // per transfer
    std::vector<Booking> bookings;
  };
  // The inputs already on `device` or on their way there, into the returned ready time; the others into
  // pending_, in the order they are booked.
  double gather(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                const std::vector<double>& finish);
  const Trial* matching_trial(OpId op, DeviceId device) const;
  double arrive(OpId op, DeviceId device, const std::vector<DeviceId>& placed_on,
                const std::vector<double>& finish, bool keep, const Hopeless* hopeless);
  // Finds t's transfer's earliest slot, notes its bookings in tentative_, holds them as `hold` says, and
  // returns its end.
  double book_transfer(TensorId t, DeviceId from, DeviceId to, double ready, Hold hold);
  // The engines of one pool (base .. base + count - 1) that can matter for a transfer ready at `ready`, each
  // with its own earliest start, by increasing start.
  void engine_bounds(int base, int count, double ready, double duration,
                     std::vector<EngineBound>& bounds) const;
  // `out_engine` and `in_engine`: (resource, its own earliest start for this transfer).
  double earliest_common_start(std::pair<int, double> out_engine, std::pair<int, double> in_engine,
                               const std::vector<int>& links, double ready, double duration) const;

  const CostModel& cost_;
  bool contention_;
  int devices_;
  // Resources: outgoing copy engines (out_base_[d] + k), incoming ones (in_base_[d] + k), then link
  // directions (link_base_ + 2 * link + dir).
  std::vector<int> out_base_, in_base_;
  int link_base_ = 0;
  Timetable table_;
  // A tensor's transfer time from one device to another, as CostModel::transfer_time gives it, without
  // asking the platform for the route each time (its lookups were a tenth of a list schedule's time).
  double transfer_time(TensorId t, DeviceId from, DeviceId to) const;

  std::vector<std::vector<int>> route_resources_;                 // [from * n + to]: link resources only
  std::vector<const Route*> routes_;                              // [from * n + to]; nullptr: none
  std::vector<std::vector<std::pair<DeviceId, double>>> arrival_; // per tensor: committed (device, time)
  std::vector<Booking> tentative_;
  std::vector<Trial> trials_; // the first trial_count_ are valid
  std::size_t trial_count_ = 0;
  std::vector<std::pair<double, TensorId>> inputs_; // scratch
  std::vector<PendingTransfer> pending_;            // scratch
  std::vector<EngineBound> out_bounds_, in_bounds_; // scratch
  std::vector<double> link_starts_;                 // scratch: each route link's own earliest start
};

} // namespace hs
