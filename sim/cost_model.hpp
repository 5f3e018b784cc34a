#pragma once
// The one place that says how long an op takes on a device and a tensor takes on a route. Every policy
// and both engines ask it, so a calibration changes all of them at once.
#include "sim/calibration.hpp"
#include "sim/graph.hpp"
#include "sim/issue_costs.hpp"
#include "sim/platform.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs {

constexpr double kInfeasible = std::numeric_limits<double>::infinity();

// Seconds to move `bytes` from one device to another without contention: 0 on the same device, an explicit
// `comm_time` when it is not negative (textbook edges carry their own cost, no route needed), else the
// route's latency plus bytes over its bandwidth, kInfeasible without a route.
double transfer_seconds(const Platform& p, DeviceId from, DeviceId to, double bytes, double comm_time);
// The same between two different devices whose route the caller has already looked up (nullptr: none), as a
// planner that keeps a table of routes does.
double transfer_seconds(const Route* route, double bytes, double comm_time);

// Why `o` may not run on `d` by the op's own restrictions (device kinds, pinned devices); empty when it may.
std::string placement_restriction(const Op& o, const Device& d);

class CostModel {
public:
  // Costed as the platform says: by its own calibration (Platform::calibration) where it names one.
  CostModel(const Graph& g, const Platform& p);
  // Costed by `c` in place of the platform's own calibration (an empty one: the devices' figures alone).
  CostModel(const Graph& g, const Platform& p, Calibration c);
  // The cost model of `g`, a rewrite of `like`'s graph on the same platform and calibration, where op o is
  // costed as `like`'s op same_as[o] when that is not -1 (an op the rewrite left as it was): only the
  // changed ops are costed anew.
  CostModel(const Graph& g, const CostModel& like, const std::vector<OpId>& same_as);

  const Graph& graph() const { return *graph_; }
  const Platform& platform() const { return *platform_; }

  // Seconds at the nominal p-state; kInfeasible when the device cannot run the op.
  double op_time(OpId op, DeviceId dev) const {
    const std::int64_t row = row_[static_cast<std::size_t>(op)];
    if (row >= 0) return op_time_[static_cast<std::size_t>(row) + static_cast<std::size_t>(dev)];
    const Pin& pin = pins_[static_cast<std::size_t>(-1 - row)];
    return dev == pin.device ? pin.seconds : kInfeasible;
  }
  // Whether every op has a row of times (no op is pinned to one device): then op_time_table() costs nothing.
  bool dense() const { return pins_.empty(); }
  // All of them, [op][device]: what an evaluator reads. Built on first use when ops are pinned.
  const std::vector<double>& op_time_table() const;
  // Seconds of `op`, which need not be in this graph (a rewrite's new op), on each device at the nominal
  // p-state, by the same rules: `row` gets one entry per device.
  void op_times(const Op& op, double* row) const;
  // Seconds at p-state `pstate` (execution stretches by nominal speed / state speed).
  double op_time(OpId op, DeviceId dev, int pstate) const;
  bool feasible(OpId op, DeviceId dev) const { return op_time(op, dev) < kInfeasible; }
  // Per device, the host's own time to issue one op (sim/host_issue.hpp): the calibration's where an entry
  // gives one, else the device's; 0 where neither does.
  std::vector<double> issue_overheads() const;
  // The host's time to issue each op: its device's own (issue_overheads) where not 0, else the op's.
  IssueCosts issue_costs() const;
  // Why `dev` cannot run `op` (empty when it can).
  std::string infeasibility_reason(OpId op, DeviceId dev) const;

  // Seconds to move tensor `t` from one device to another without contention; 0 on the same device,
  // kInfeasible without a route.
  double transfer_time(TensorId t, DeviceId from, DeviceId to) const;

  // Means used by list schedulers (HEFT's w-bar and c-bar): over feasible devices, over distinct routed
  // pairs.
  double mean_op_time(OpId op) const;
  double mean_transfer_time(TensorId t) const;

private:
  // An op pinned to one device keeps one time, not a row: a graph spread over a thousand devices pins
  // every op, and a row each would be ops x devices.
  struct Pin {
    DeviceId device = -1; // -1: pinned to no device of the platform
    double seconds = kInfeasible;
  };
  double roofline(const Op& o, const Device& d) const;
  void cost_op(OpId o);
  void copy_op(OpId o, const CostModel& like, OpId same);
  // The one device a pinned op may run on, when it is a pin this model keeps as one time.
  std::optional<DeviceId> pinned_device(const Op& o) const;
  void summarise_routes() const;
  // Why `dev` cannot run `op` by kind, precision or listed times (not by how long it would take).
  std::string structural_reason(OpId op, DeviceId dev) const {
    return structural_reason(graph_->op(op), dev);
  }
  std::string structural_reason(const Op& o, DeviceId dev) const;

  const Graph* graph_;
  const Platform* platform_;
  Calibration calibration_;
  int devices_;
  std::vector<double> op_time_;   // the rows, one per op that has one, of devices_ times each
  std::vector<std::int64_t> row_; // per op: its row's offset in op_time_, or -1 - its index in pins_
  std::vector<Pin> pins_;
  mutable std::vector<double> table_; // op_time_table() of a model with pins
  // HEFT's c-bar terms over every routed pair, computed when first asked: a cluster's million routes are
  // not worth finding for a policy that never asks.
  mutable bool routes_summarised_ = false;
  mutable double mean_route_latency_ = 0.0;
  mutable double mean_inverse_bandwidth_ = 0.0;
};

} // namespace hs
