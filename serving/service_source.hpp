#pragma once
// What one batch costs, asked of a source the request-level simulation does not look inside: the engines
// (service_table.hpp) in a real run, a fixed service time in the queueing tests.
#include <string>
#include <vector>

namespace hs::serving {

// One batch of one model at one shape, as an engine ran it on an idle machine.
struct ServiceRecord {
  double seconds = 0.0;               // the batch's latency (the plan's makespan)
  std::vector<double> busy;           // per device: seconds with at least one op running
  std::vector<double> dynamic_joules; // per device: joules above idle power during the batch
  double link_dynamic_joules = 0.0;   // every link's joules above idle power
  std::vector<std::size_t> devices;   // the devices the batch holds while it runs (those its plan uses)
  // Per device, relative to the batch's start: its first op's start and its last op's end. Empty: the
  // batch occupies its devices for all of `seconds` (device_occupancy.hpp says how they are used).
  std::vector<double> first_start, last_end;
  // A plan from a Pareto cache: the bucket it was looked up in and its index in that front (-1: none).
  int cache_seq = 0, cache_batch = 0, cache_plan = -1;
};

// Whole: a request's full graph (for a decoder, prefill and every decode step). Prefill and DecodeStep
// split a decoder's request for continuous batching: the prompt pass alone, and one token step averaged
// over the workload's decode steps.
enum class ServicePart { Whole, Prefill, DecodeStep };

class ServiceSource {
public:
  virtual ~ServiceSource() = default;
  // The record of `batch` requests of `tenant` at sequence length `seq` (0: the workload's own).
  virtual const ServiceRecord& record(std::size_t tenant, ServicePart part, int batch, int seq) = 0;
  // Tokens a request of `tenant` generates when its arrival does not say (the workload's decode=).
  virtual int default_tokens(std::size_t tenant) const = 0;
  // A decoder's KV cache per token of context (keys and values of every layer), and the sequence length of
  // a request that gives none; 0 when unknown (no KV-cache limit can apply).
  virtual double kv_bytes_per_token(std::size_t /*tenant*/) const { return 0.0; }
  virtual int default_seq(std::size_t /*tenant*/) const { return 0; }
  // A tenant whose prefill and decode run on different devices: seconds to move `bytes` of KV cache from
  // its prefill devices to its decode devices on an idle route (the engines' latency + bytes / bandwidth).
  virtual double kv_transfer_seconds(std::size_t /*tenant*/, double /*bytes*/) const { return 0.0; }
  virtual std::size_t device_count() const = 0;
  virtual std::string device_name(std::size_t device) const = 0;
  virtual double idle_watts(std::size_t device) const = 0;
  virtual double link_idle_watts() const = 0; // every link together
  // How the records were obtained, for the report ("contention-aware evaluator, 12 records").
  virtual std::string provenance() const = 0;
};

} // namespace hs::serving
