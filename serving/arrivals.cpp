#include "serving/arrivals.hpp"

#include "sim/error.hpp"
#include "sim/units.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace hs::serving {

double exponential_unit(Rng& rng) {
  return -std::log1p(-rng.uniform());
}

namespace {

double standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream s(line);
  std::string f;
  while (std::getline(s, f, ',')) {
    while (!f.empty() && (f.back() == ' ' || f.back() == '\r'))
      f.pop_back();
    while (!f.empty() && f.front() == ' ')
      f.erase(f.begin());
    fields.push_back(f);
  }
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

} // namespace

double gamma_unit_scale(Rng& rng, double shape) {
  // Below shape 1 the method samples shape + 1 and scales by U^(1/shape) (the same paper, section 6).
  if (shape < 1.0) return gamma_unit_scale(rng, shape + 1.0) * std::pow(1.0 - rng.uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(rng), v = std::pow(1.0 + c * x, 3);
    if (v <= 0) continue;
    const double u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

GeneratedArrivals::GeneratedArrivals(const std::vector<TenantSpec>& tenants, std::uint64_t seed,
                                     std::uint64_t limit)
    : left_(limit) {
  for (std::size_t i = 0; i < tenants.size(); ++i) {
    if (tenants[i].arrival.kind == ArrivalKind::Trace)
      throw InputError(tenants[i].name, "arrival", "comes from a trace, which this run was not given");
    // Each stream starts from a hashed state: splitmix64 seeded with seed x gamma + i would only be
    // seed 1's stream shifted, so every seed gave nearly the same run.
    const std::uint64_t start = Rng(seed ^ (0xD1B54A32D192ED03ULL * (i + 1))).next();
    Stream s{tenants[i].arrival, Rng(start), 0.0};
    s.next = draw_gap(s);
    streams_.push_back(s);
  }
}

double GeneratedArrivals::draw_gap(Stream& s) {
  if (s.spec.kind == ArrivalKind::Poisson) return exponential_unit(s.rng) / s.spec.rate;
  // Gamma with mean 1/rate and CV cv: shape 1/cv^2, scale 1/(rate x shape).
  const double shape = 1.0 / (s.spec.cv * s.spec.cv);
  return gamma_unit_scale(s.rng, shape) / (s.spec.rate * shape);
}

std::optional<Arrival> GeneratedArrivals::next() {
  if (left_ == 0 || streams_.empty()) return std::nullopt;
  --left_;
  std::size_t best = 0;
  for (std::size_t i = 1; i < streams_.size(); ++i)
    if (streams_[i].next < streams_[best].next) best = i;
  Arrival a;
  a.time = streams_[best].next;
  a.tenant = best;
  streams_[best].next += draw_gap(streams_[best]);
  return a;
}

TraceArrivals::TraceArrivals(const std::string& path, const std::vector<TenantSpec>& tenants,
                             std::uint64_t limit)
    : path_(path), in_(path), tenants_(&tenants),
      left_(limit ? limit : std::numeric_limits<std::uint64_t>::max()) {
  if (!in_) throw InputError(path, "", "cannot open the trace");
  std::string header;
  if (!std::getline(in_, header))
    throw InputError(path, "", "the trace is empty (expected a header: time,tenant)");
  const auto names = split_csv(header);
  columns_ = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    int* col = names[i] == "time"     ? &time_col_
               : names[i] == "tenant" ? &tenant_col_
               : names[i] == "seq"    ? &seq_col_
               : names[i] == "tokens" ? &tokens_col_
                                      : nullptr;
    if (!col)
      throw InputError(path, "line 1", "unknown column '" + names[i] + "' (time, tenant, seq, tokens)");
    if (*col >= 0) throw InputError(path, "line 1", "column '" + names[i] + "' given twice");
    *col = static_cast<int>(i);
  }
  if (time_col_ < 0 || tenant_col_ < 0)
    throw InputError(path, "line 1", "the header needs columns time and tenant");
  peeked_ = read_line();
  if (!peeked_) throw InputError(path, "", "the trace has a header but no request");
}

std::optional<Arrival> TraceArrivals::next() {
  if (!peeked_ || left_ == 0) return std::nullopt;
  --left_;
  std::optional<Arrival> a = peeked_;
  peeked_ = left_ ? read_line() : std::nullopt;
  return a;
}

std::optional<Arrival> TraceArrivals::read_line() {
  std::string line;
  do {
    if (!std::getline(in_, line)) return std::nullopt;
    ++line_;
  } while (line.find_first_not_of(" \r") == std::string::npos);
  const std::string place = "line " + std::to_string(line_);
  const auto f = split_csv(line);
  if (f.size() != columns_)
    throw InputError(path_, place,
                     "has " + std::to_string(f.size()) + " fields, the header " + std::to_string(columns_));
  Arrival a;
  try {
    a.time = units::parse(f[static_cast<std::size_t>(time_col_)], units::Quantity::Time);
  } catch (const std::invalid_argument& e) {
    throw InputError(path_, place + ": time", e.what());
  }
  if (a.time < last_)
    throw InputError(path_, place + ": time", "goes back in time (the trace must be in time order)");
  last_ = a.time;
  const std::string& tenant = f[static_cast<std::size_t>(tenant_col_)];
  a.tenant = tenants_->size();
  for (std::size_t i = 0; i < tenants_->size(); ++i)
    if ((*tenants_)[i].name == tenant) a.tenant = i;
  if (a.tenant == tenants_->size())
    throw InputError(path_, place + ": tenant", "unknown tenant '" + tenant + "'");
  const auto whole = [&](int col, const char* what) {
    const std::string& text = f[static_cast<std::size_t>(col)];
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < 1 || v > (1L << 20))
      throw InputError(path_, place + ": " + what, "expected a whole number from 1 (got '" + text + "')");
    return static_cast<int>(v);
  };
  if (seq_col_ >= 0) a.seq = whole(seq_col_, "seq");
  if (tokens_col_ >= 0) a.tokens = whole(tokens_col_, "tokens");
  return a;
}

} // namespace hs::serving
