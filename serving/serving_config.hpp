#pragma once
// What a serving run is given: tenants, each a model with a request stream, an SLO, a priority, a batching
// rule and a placement. Read from a `heterosim-serving` JSON file (docs/serving.md has the format).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hs::serving {

enum class ArrivalKind { Poisson, Gamma, Trace };
struct ArrivalSpec {
  ArrivalKind kind = ArrivalKind::Poisson;
  double rate = 0.0; // requests per second (Poisson, Gamma)
  double cv = 1.0;   // coefficient of variation of the inter-arrival time (Gamma; 1 is Poisson)
};

enum class BatchingMode { None, Dynamic, Continuous };
struct BatchingSpec {
  BatchingMode mode = BatchingMode::None;
  int max_batch = 1;
  double max_delay = 0.0; // seconds the oldest request may wait for a batch to fill (dynamic)
  double kv_memory = 0.0; // continuous: bytes the running set's KV cache may take; 0: no limit
  // With kv_memory: false reserves each request's whole cache when it joins (Orca); true pages it (vLLM): a
  // request holds its context's cache, and a step that would exceed the budget preempts the newest.
  bool kv_paged = false;
};

struct TenantSpec {
  std::string name;
  std::string workload; // a builder spec without batch= (added per batch size) and, with buckets, seq=
  ArrivalSpec arrival;
  double slo = 0.0; // seconds from arrival to completion
  int priority = 0; // larger is served first by the priority scheduler
  BatchingSpec batching;
  std::string policy = "heft";       // a static policy (policies/policy.hpp) that places each batch's graph
  std::string stored_plan;           // instead: a stored plan (front.json or `select --out`), batch 1 only
  std::optional<int> stored_plan_id; // which plan of a front
  // Instead: a Pareto cache file (`heterosim serve-cache`); each batch's plan is looked up by its shape and
  // size, least latency or least energy within the latency limit (the SLO unless given).
  std::string cache;
  bool cache_least_latency = false;
  double cache_latency_limit = 0.0; // seconds; 0: the SLO
  bool re_search = false;           // search a shape above every bucket, or every front on another platform
  std::vector<std::string> devices; // the devices its plans may use; empty: every device
  // Continuous batching only: prefill on these devices and decode steps on those (DistServe), each
  // request's KV cache sent between them; both empty: prefill and decode share `devices`.
  std::vector<std::string> prefill_devices, decode_devices;
  std::vector<int> seq_buckets; // sequence lengths a request's shape is padded up to; empty: none
  // With buckets: false runs a batch at its bucket's shape (padded); true plans it at the bucket's shape and
  // runs that plan at the batch's own (the two-level plan of issue 11: placement per bucket, op times at
  // the real shape).
  bool two_level_shapes = false;
  bool exponential_service = false; // each batch's service time x Exp(1): the M/M/1 known answer
};

struct ServingConfig {
  std::string file;
  std::vector<TenantSpec> tenants;
  std::string trace; // a CSV of arrivals (time, tenant[, seq][, tokens]); empty: the tenants' processes
};

// Reads and checks a serving file; every error names the file and the JSON path.
ServingConfig load_serving_config(const std::string& path);
ServingConfig parse_serving_config(const std::string& json_text, const std::string& file);

} // namespace hs::serving
