#pragma once
// A service source with fixed times, so the request-level simulation can be checked against queueing
// theory without any engine in the way.
#include "serving/arrivals.hpp"
#include "serving/service_source.hpp"
#include "serving/serving_config.hpp"

#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace hs::test {

// One device; a batch of b requests of tenant t takes seconds(t, b).
class FixedService final : public serving::ServiceSource {
public:
  explicit FixedService(std::function<double(std::size_t, int)> seconds) : seconds_(std::move(seconds)) {}
  const serving::ServiceRecord& record(std::size_t tenant, serving::ServicePart part, int batch,
                                       int) override {
    auto& r = cache_[{tenant, static_cast<int>(part), batch}];
    r.seconds = seconds_(tenant, batch);
    r.busy = {r.seconds};
    r.dynamic_joules = {r.seconds * 100.0};
    r.devices = {0};
    return r;
  }
  int default_tokens(std::size_t) const override { return 4; }
  std::size_t device_count() const override { return 1; }
  std::string device_name(std::size_t) const override { return "dev"; }
  double idle_watts(std::size_t) const override { return 10.0; }
  double link_idle_watts() const override { return 0.0; }
  std::string provenance() const override { return "fixed service times (test)"; }

private:
  std::function<double(std::size_t, int)> seconds_;
  std::map<std::tuple<std::size_t, int, int>, serving::ServiceRecord> cache_;
};

// Arrivals given in full, for hand-made cases.
class ListedArrivals final : public serving::ArrivalSource {
public:
  explicit ListedArrivals(std::vector<serving::Arrival> a) : a_(std::move(a)) {}
  std::optional<serving::Arrival> next() override {
    if (i_ == a_.size()) return std::nullopt;
    return a_[i_++];
  }

private:
  std::vector<serving::Arrival> a_;
  std::size_t i_ = 0;
};

// `count` requests of tenant 0, all arriving at time 0.
class AllAtOnce final : public serving::ArrivalSource {
public:
  explicit AllAtOnce(int count) : left_(count) {}
  std::optional<serving::Arrival> next() override {
    return left_-- > 0 ? std::optional(serving::Arrival{}) : std::nullopt;
  }

private:
  int left_;
};

inline serving::TenantSpec poisson_tenant(const std::string& name, double rate, double slo) {
  serving::TenantSpec t;
  t.name = name;
  t.workload = "fixed";
  t.arrival.rate = rate;
  t.slo = slo;
  return t;
}

} // namespace hs::test
