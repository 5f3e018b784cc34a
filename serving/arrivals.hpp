#pragma once
// Where requests come from, one at a time in time order, so a million-request run holds none of them in
// advance: each tenant's Poisson or Gamma process (drawn lazily), or a trace file read line by line.
#include "serving/serving_config.hpp"
#include "sim/random.hpp"

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

namespace hs::serving {

struct Arrival {
  double time = 0.0;
  std::size_t tenant = 0;
  int seq = 0;    // the request's sequence length; 0: the tenant's workload's own
  int tokens = 0; // tokens to generate (continuous batching); 0: the tenant's workload's decode=
};

class ArrivalSource {
public:
  virtual ~ArrivalSource() = default;
  virtual std::optional<Arrival> next() = 0;
};

// The tenants' processes merged, `limit` arrivals in all. Each tenant draws from its own generator,
// seeded from `seed` and its index, so adding a tenant does not change another's stream.
class GeneratedArrivals final : public ArrivalSource {
public:
  GeneratedArrivals(const std::vector<TenantSpec>& tenants, std::uint64_t seed, std::uint64_t limit);
  std::optional<Arrival> next() override;

private:
  struct Stream {
    ArrivalSpec spec;
    Rng rng;
    double next = 0.0;
  };
  double draw_gap(Stream& s);
  std::vector<Stream> streams_;
  std::uint64_t left_;
};

// A CSV trace: a header naming the columns `time` and `tenant` and, optionally, `seq` and `tokens`; then
// one request a line, times (seconds, or with a unit: 12ms) not decreasing. At most `limit` arrivals
// (0: all). Refuses an empty trace, unknown tenants and bad fields, naming the file, line and column.
class TraceArrivals final : public ArrivalSource {
public:
  TraceArrivals(const std::string& path, const std::vector<TenantSpec>& tenants, std::uint64_t limit);
  std::optional<Arrival> next() override;

private:
  std::optional<Arrival> read_line();
  std::string path_;
  std::ifstream in_;
  const std::vector<TenantSpec>* tenants_;
  int time_col_ = -1, tenant_col_ = -1, seq_col_ = -1, tokens_col_ = -1;
  std::size_t columns_ = 0;
  std::uint64_t line_ = 1, left_;
  double last_ = 0.0;
  std::optional<Arrival> peeked_;
};

// Draws: an exponential with mean 1, and a Gamma(shape, 1) (Marsaglia & Tsang, ACM TOMS 26(3), 2000).
double exponential_unit(Rng& rng);
double gamma_unit_scale(Rng& rng, double shape);

} // namespace hs::serving
