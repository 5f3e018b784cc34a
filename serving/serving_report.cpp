#include "serving/serving_report.hpp"

#include "serving/service_table.hpp"
#include "sim/units.hpp"

#include <cstdio>

namespace hs::serving {

double jain_index(const std::vector<double>& x) {
  double sum = 0.0, squares = 0.0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(x.size()) * squares) : 1.0;
}

namespace {

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

nlohmann::ordered_json tenant_json(const TenantSpec& t, const TenantStats& s, double horizon) {
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["workload"] = t.workload;
  j["slo_s"] = t.slo;
  j["priority"] = t.priority;
  j["arrived"] = s.arrived;
  j["served"] = s.served;
  j["dropped"] = s.dropped;
  j["slo_met"] = s.met;
  j["slo_attainment"] = ratio(static_cast<double>(s.met), static_cast<double>(s.arrived));
  j["throughput_rps"] = ratio(static_cast<double>(s.served), horizon);
  j["goodput_rps"] = ratio(static_cast<double>(s.met), horizon);
  j["latency_s"] = {{"mean", s.latency.mean()},
                    {"p50", s.latency.quantile(0.5)},
                    {"p95", s.latency.quantile(0.95)},
                    {"p99", s.latency.quantile(0.99)},
                    {"max", s.latency.max()}};
  j["queueing_s"] = {{"mean", s.queueing.mean()},
                     {"p50", s.queueing.quantile(0.5)},
                     {"p95", s.queueing.quantile(0.95)},
                     {"p99", s.queueing.quantile(0.99)}};
  j["mean_queueing_s"] = ratio(s.queue_sum, static_cast<double>(s.served));
  j["mean_service_s"] = ratio(s.service_sum, static_cast<double>(s.served));
  // The energy its batches drew above idle, per served request; the idle draw is the server's, not a
  // tenant's.
  j["dynamic_energy_per_request_j"] = ratio(s.dynamic_joules, static_cast<double>(s.served));
  j["batches"] = s.batches;
  j["mean_batch"] = ratio(static_cast<double>(s.batched_requests), static_cast<double>(s.batches));
  j["largest_batch"] = s.largest_batch;
  j["late_batches"] = s.late_batches;
  if (t.batching.kv_memory > 0)
    j["kv_cache"] = {{"budget_bytes", t.batching.kv_memory},
                     {"peak_bytes", s.kv_peak},
                     {"iterations_held_back", s.kv_held_back}};
  if (t.batching.kv_paged) {
    j["kv_cache"]["policy"] = "paged";
    j["kv_cache"]["preemptions"] = s.kv_preemptions;
    j["kv_cache"]["recomputed_tokens"] = s.kv_recomputed_tokens;
  }
  if (!t.prefill_devices.empty()) { // the split's phases: each pool's queueing, and the KV cache's transfer
    const double n = static_cast<double>(s.served);
    j["phases"] = {{"prefill_devices", t.prefill_devices},
                   {"decode_devices", t.decode_devices},
                   {"mean_prefill_queueing_s", ratio(s.queue_sum, n)},
                   {"mean_prefill_s", ratio(s.prefill_sum, n)},
                   {"mean_kv_transfer_s", ratio(s.transfer_sum, n)},
                   {"mean_decode_queueing_s", ratio(s.decode_queue_sum, n)},
                   {"decode_queueing_p99_s", s.decode_queueing.quantile(0.99)}};
  }
  return j;
}

} // namespace

nlohmann::ordered_json serving_json(const ServingRunInfo& info, const std::vector<TenantSpec>& tenants,
                                    const ServingResult& r, const ServiceSource& service) {
  nlohmann::ordered_json j;
  j["format"] = "heterosim-serving-report";
  j["version"] = 1;
  j["platform"] = info.platform;
  j["config"] = info.config;
  j["scheduler"] = info.scheduler;
  j["admission_control"] = info.admission;
  j["seed"] = info.seed;
  j["service_times"] = info.service;
  j["quantile_relative_error"] = LatencyHistogram::relative_error();
  j["horizon_s"] = r.horizon;
  j["events"] = r.events;
  std::vector<double> attainment;
  std::uint64_t served = 0, arrived = 0, met = 0;
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    const TenantStats& s = r.tenants[i];
    j["tenants"].push_back(tenant_json(tenants[i], s, r.horizon));
    attainment.push_back(ratio(static_cast<double>(s.met), static_cast<double>(s.arrived)));
    served += s.served;
    arrived += s.arrived;
    met += s.met;
  }
  double energy = service.link_idle_watts() * r.horizon + r.link_dynamic_joules;
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceStats& ds = r.devices[d];
    const double joules = service.idle_watts(d) * r.horizon + ds.dynamic_joules;
    energy += joules;
    j["devices"][service.device_name(d)] = {{"utilisation", ratio(ds.busy, r.horizon)},
                                            {"held_share", ratio(ds.held, r.horizon)},
                                            {"energy_j", joules}};
  }
  j["links_energy_j"] = service.link_idle_watts() * r.horizon + r.link_dynamic_joules;
  j["arrived"] = arrived;
  j["served"] = served;
  j["throughput_rps"] = ratio(static_cast<double>(served), r.horizon);
  j["goodput_rps"] = ratio(static_cast<double>(met), r.horizon);
  j["jain_fairness_slo_attainment"] = jain_index(attainment);
  j["energy_j"] = energy;
  j["energy_per_request_j"] = ratio(energy, static_cast<double>(served));
  return j;
}

nlohmann::ordered_json service_records_json(const EngineServiceTable& table,
                                            const std::vector<TenantSpec>& tenants) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  static const char* parts[] = {"whole", "prefill", "decode-step"};
  for (const auto& [key, r] : table.cached()) {
    double joules = r.link_dynamic_joules;
    for (double j : r.dynamic_joules)
      joules += j;
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (std::size_t d : r.devices)
      devices.push_back(table.device_name(d));
    list.push_back({{"tenant", tenants[std::get<0>(key)].name},
                    {"part", parts[std::get<1>(key)]},
                    {"batch", std::get<2>(key)},
                    {"seq", std::get<3>(key)},
                    {"seconds", r.seconds},
                    {"dynamic_energy_j", joules},
                    {"devices_held", devices}});
    if (r.cache_plan >= 0)
      list.back()["cache"] = {
          {"bucket_seq", r.cache_seq}, {"bucket_batch", r.cache_batch}, {"plan", r.cache_plan}};
  }
  return list;
}

std::string serving_summary(const nlohmann::ordered_json& j) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %9s %9s %8s %10s %10s %10s %8s %9s %10s\n", "tenant", "arrived",
                "served", "dropped", "p50", "p95", "p99", "SLO met", "goodput", "mean batch");
  out.append(line);
  for (const auto& t : j["tenants"]) {
    const auto& l = t["latency_s"];
    std::snprintf(line, sizeof line, "%-14s %9llu %9llu %8llu %10s %10s %10s %7.1f%% %7.1f/s %10.2f\n",
                  t["name"].get<std::string>().c_str(), t["arrived"].get<unsigned long long>(),
                  t["served"].get<unsigned long long>(), t["dropped"].get<unsigned long long>(),
                  units::format_time(l["p50"].get<double>()).c_str(),
                  units::format_time(l["p95"].get<double>()).c_str(),
                  units::format_time(l["p99"].get<double>()).c_str(), 100 * t["slo_attainment"].get<double>(),
                  t["goodput_rps"].get<double>(), t["mean_batch"].get<double>());
    out.append(line);
  }
  std::snprintf(
      line, sizeof line,
      "throughput %.1f req/s, goodput %.1f req/s over %s simulated; Jain fairness (SLO attainment) "
      "%.3f\nenergy %s (%s per request; idle power over the run plus each batch's dynamic energy)\n",
      j["throughput_rps"].get<double>(), j["goodput_rps"].get<double>(),
      units::format_time(j["horizon_s"].get<double>()).c_str(),
      j["jain_fairness_slo_attainment"].get<double>(),
      units::format_energy(j["energy_j"].get<double>()).c_str(),
      units::format_energy(j["energy_per_request_j"].get<double>()).c_str());
  out.append(line);
  for (const auto& [name, d] : j["devices"].items()) {
    std::snprintf(line, sizeof line, "  %-8s utilisation %5.1f%%  held %5.1f%%  energy %s\n", name.c_str(),
                  100 * d["utilisation"].get<double>(), 100 * d["held_share"].get<double>(),
                  units::format_energy(d["energy_j"].get<double>()).c_str());
    out.append(line);
  }
  out.append("service times: ")
      .append(j["service_times"].get<std::string>())
      .append("; power: the platform file\n");
  std::snprintf(line, sizeof line, "quantiles from a log histogram, within %.2f%% (relative)\n",
                100 * j["quantile_relative_error"].get<double>());
  out.append(line);
  return out;
}

} // namespace hs::serving
