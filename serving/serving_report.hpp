#pragma once
// A serving run's figures: per tenant (latency quantiles, SLO attainment, goodput, throughput), across
// tenants (Jain's fairness index), per device (utilisation, energy), as JSON and as text.
#include "serving/service_source.hpp"
#include "serving/serving_config.hpp"
#include "serving/serving_stats.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace hs::serving {

struct ServingRunInfo {
  std::string platform;
  std::string config;
  std::string scheduler;
  bool admission = false;
  std::uint64_t seed = 0;
  std::string service; // the ServiceSource's provenance
};

// Jain, Chiu & Hawe (DEC-TR-301, 1984): (sum x)^2 / (n sum x^2), 1 when all equal, 1/n at worst; 1 for
// an empty or all-zero list.
double jain_index(const std::vector<double>& x);

nlohmann::ordered_json serving_json(const ServingRunInfo& info, const std::vector<TenantSpec>& tenants,
                                    const ServingResult& r, const ServiceSource& service);
class EngineServiceTable;
// The service records a run used (tenant, part, batch, seq, seconds, devices held, energy): what batching
// buys per batch size, as the engine measured it.
nlohmann::ordered_json service_records_json(const EngineServiceTable& table,
                                            const std::vector<TenantSpec>& tenants);
std::string serving_summary(const nlohmann::ordered_json& report);

} // namespace hs::serving
