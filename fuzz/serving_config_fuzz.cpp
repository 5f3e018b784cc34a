// Serving files, then a short request-level run of what was accepted, with a fixed service time (the
// engines would make each execution slow): an accepted file must simulate, every request once.
#include "fuzz_support.hpp"
#include "serving/request_simulation.hpp"
#include "serving/serving_config.hpp"

#include <stdexcept>

namespace {

class FixedService final : public hs::serving::ServiceSource {
public:
  const hs::serving::ServiceRecord& record(std::size_t, hs::serving::ServicePart, int batch, int) override {
    r_.seconds = 1e-3 * (1 + 0.25 * batch);
    return r_;
  }
  int default_tokens(std::size_t) const override { return 3; }
  std::size_t device_count() const override { return 1; }
  std::string device_name(std::size_t) const override { return "d"; }
  double idle_watts(std::size_t) const override { return 1.0; }
  double link_idle_watts() const override { return 0.0; }
  std::string provenance() const override { return "fuzz"; }

private:
  hs::serving::ServiceRecord r_{0.0, {0.0}, {0.0}, 0.0, {0}};
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return hs::fuzz::expect_named_errors([&] {
    const auto config = hs::serving::parse_serving_config(hs::fuzz::text(data, size), "fuzz.json");
    if (!config.trace.empty()) return; // a trace names a file: the trace reader has its own tests
    FixedService service;
    hs::serving::GeneratedArrivals arrivals(config.tenants, 1, 200);
    hs::serving::SimulationOptions o;
    o.discipline = hs::serving::Discipline::LeastSlack;
    o.admission = size % 2 == 0;
    const auto r = hs::serving::simulate_serving(config.tenants, service, arrivals, o);
    std::uint64_t done = 0;
    for (const auto& t : r.tenants)
      done += t.served + t.dropped;
    if (done != 200) throw std::logic_error("requests lost or served twice");
  });
}
