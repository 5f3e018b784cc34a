#pragma once
// The request-level discrete-event simulation: requests arrive, wait in their tenant's queue, are
// batched, and hold their batch's devices for the batch's service time, read from a ServiceSource.
// An in-process event queue, not SimGrid actors: docs/serving.md gives the measured reason.
//
// Modelled: a whole-graph batch occupies each device its plan uses from its first op there to its last
// (device_occupancy.hpp), so consecutive batches of a plan spread over devices pipeline through them and
// tenants sharing a device wait for each other (batches enter a device in start order, no preemption); a
// continuous-batching iteration holds its devices for all of its time, one iteration per tenant at a
// time; the scheduler picks, whenever a tenant's batch is ready and fits its devices, among such tenants by
// FIFO, priority, EDF or least slack; a tenant's own queue is in arrival order (its SLO is one, so its
// deadlines are in that order too).
#include "serving/arrivals.hpp"
#include "serving/request_trace.hpp"
#include "serving/service_source.hpp"
#include "serving/serving_config.hpp"
#include "serving/serving_stats.hpp"

#include <functional>
#include <iosfwd>
#include <string>

namespace hs::serving {

enum class Discipline { Fifo, Priority, Edf, LeastSlack };
Discipline discipline_named(const std::string& name); // throws std::invalid_argument

struct SimulationOptions {
  Discipline discipline = Discipline::Fifo;
  // Drops a request at the head of its queue when even alone, started now, it would miss its SLO.
  bool admission = false;
  std::uint64_t seed = 0;           // the exponential service noise
  std::ostream* requests = nullptr; // one CSV line per finished or dropped request (see csv_header)
  std::ostream* progress = nullptr; // a line every 2^17 finished requests
  std::uint64_t expected = 0;       // arrivals expected, for the progress lines
  std::string config_file;          // the serving file the tenants came from, named in errors found mid-run
  // Told of each finished request (tenant, arrival, start of its first batch, end), in completion order.
  std::function<void(std::size_t, double, double, double)> on_finish = nullptr;
  // Told of each finished or dropped request with its id and phases, and of each span a batch holds a
  // device (the timeline, serving_timeline.hpp).
  std::function<void(const RequestTrace&)> on_request = nullptr;
  std::function<void(const DeviceSpan&)> on_span = nullptr;
};

std::string requests_csv_header();

ServingResult simulate_serving(const std::vector<TenantSpec>& tenants, ServiceSource& service,
                               ArrivalSource& arrivals, const SimulationOptions& options);

} // namespace hs::serving
