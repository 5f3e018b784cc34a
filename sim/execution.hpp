#pragma once
// What an engine returns: when each op and transfer ran, and the energy it measured. Both engines fill
// the same structure, so reports, memory accounting and cross-checks do not care which one ran.
#include "sim/plan.hpp"

#include <string>
#include <vector>

namespace hs {

struct OpRun {
  double start = 0.0;
  double end = 0.0;
};

struct TransferRun {
  TensorId tensor = -1;
  DeviceId from = -1;
  DeviceId to = -1;
  double bytes = 0.0;
  double start = 0.0;
  double end = 0.0;
};

struct Execution {
  std::string engine; // "analytic" or "simgrid"
  double makespan = 0.0;
  std::vector<OpRun> ops;             // per op id
  std::vector<TransferRun> transfers; // sorted by (start, tensor, to)
  std::vector<double> device_energy;  // joules per device, idle power included up to the makespan
  std::vector<double> link_energy;    // joules per link
  // Per op, when its device's host issued it (sim/host_issue.hpp); empty when no device has an issue
  // overhead.
  std::vector<double> issued;
};

// Bytes that crossed each link, both directions together.
std::vector<double> bytes_per_link(const Execution& e, const Platform& p);
// Seconds during which at least one transfer was on each link (either direction): its busy time under
// sharing, as the engine's timeline shows it.
std::vector<double> busy_seconds_per_link(const Execution& e, const Platform& p);
// Seconds each device ran at least one op (streams may overlap; an overlapped instant counts once).
std::vector<double> busy_seconds_per_device(const Execution& e, const Plan& plan, std::size_t devices);

// The canonical order of transfers (start, then tensor, then destination), so both engines print the same
// way.
inline bool canonical_transfer_less(const TransferRun& a, const TransferRun& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.tensor != b.tensor) return a.tensor < b.tensor;
  return a.to < b.to;
}
void sort_transfers(std::vector<TransferRun>& transfers);

// The analytic model of energy for a given timeline: idle power over the makespan plus (busy - idle)
// while busy; links draw (busy - idle) in proportion to their use, split evenly between the two
// directions of a split-duplex link (as the SimGrid replay configures its link energy plugin).
void fill_analytic_energy(Execution& e, const Plan& plan, const CostModel& cost);

// The same model from usage already measured: seconds each device had at least one op running, the extra
// joules of ops at lower p-states ((state busy W - nominal busy W) x duration), and bytes over each link.
void fill_energy_from_usage(Execution& e, const Platform& p, const std::vector<double>& busy_seconds,
                            const std::vector<double>& pstate_extra_joules,
                            const std::vector<double>& link_bytes);

// Joules of every device and link together.
double total_energy(const Execution& e);

} // namespace hs
