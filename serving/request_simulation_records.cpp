// What a batch and a finished or dropped request add to the run's stats, the request CSV, the observers
// and the progress lines.
#include "serving/request_simulation_state.hpp"

#include <cstdio>
#include <ostream>

namespace hs::serving::detail {

void Simulation::account(std::size_t t, const ServiceRecord& r, double scale) {
  for (std::size_t d = 0; d < r.busy.size(); ++d) {
    result_.devices[d].busy += r.busy[d] * scale;
    result_.devices[d].dynamic_joules += r.dynamic_joules[d] * scale;
    result_.tenants[t].dynamic_joules += r.dynamic_joules[d] * scale;
  }
  result_.link_dynamic_joules += r.link_dynamic_joules * scale;
  result_.tenants[t].dynamic_joules += r.link_dynamic_joules * scale;
}

void Simulation::complete(std::size_t t, const Request& r, double now) {
  TenantStats& st = result_.tenants[t];
  const double latency = now - r.arrival;
  ++st.served;
  st.latency.add(latency);
  st.queue_sum += r.start - r.arrival;
  st.queueing.add(r.start - r.arrival);
  st.service_sum += now - r.start;
  if (r.decode_start >= 0) {
    st.prefill_sum += r.prefill_end - r.start;
    st.transfer_sum += r.kv_arrived - r.prefill_end;
    st.decode_queue_sum += r.decode_start - r.kv_arrived;
    st.decode_queueing.add(r.decode_start - r.kv_arrived);
  }
  const bool met = latency <= specs_[t].slo;
  if (met) ++st.met;
  if (o_.on_finish) o_.on_finish(t, r.arrival, r.start, now);
  if (o_.on_request)
    o_.on_request(
        RequestTrace{r.id, t, r.arrival, r.start, now, r.prefill_end, r.kv_arrived, r.decode_start});
  if (o_.requests) {
    char line[160];
    std::snprintf(line, sizeof line, ",%.9g,%.9g,%.9g,%.9g,%s\n", r.arrival, r.start, now, latency,
                  met ? "met" : "missed");
    *o_.requests << r.id << ',' << specs_[t].name << line;
  }
  note_progress(now);
}

void Simulation::drop(std::size_t t, const Request& r) {
  ++result_.tenants[t].dropped;
  if (o_.on_request) o_.on_request(RequestTrace{r.id, t, r.arrival, -1.0, -1.0, -1.0, -1.0, -1.0});
  if (o_.requests) {
    char line[64];
    std::snprintf(line, sizeof line, ",%.9g,,,,dropped\n", r.arrival);
    *o_.requests << r.id << ',' << specs_[t].name << line;
  }
  note_progress(r.arrival);
}

void Simulation::note_progress(double now) {
  if (!o_.progress || (++finished_ & ((1u << 17) - 1)) != 0) return;
  *o_.progress << "serve: " << finished_
               << (o_.expected ? " of " + std::to_string(o_.expected) : std::string())
               << " requests done, simulated time " << now << " s\n";
}

} // namespace hs::serving::detail
