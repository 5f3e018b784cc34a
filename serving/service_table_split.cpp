// A tenant whose prefill and decode run on different devices (DistServe, Zhong et al., OSDI 2024): its
// KV-cache route, from the device that runs its prefill's last op to its first decode device, timed as the
// engines time a transfer on an idle route (sim/cost_model.hpp transfer_seconds: latency + bytes /
// bandwidth).
#include "serving/service_table.hpp"
#include "sim/cost_model.hpp"
#include "sim/error.hpp"

#include <algorithm>
#include <cmath>

namespace hs::serving {

void EngineServiceTable::check_split(std::size_t i) {
  const TenantSpec& t = config_->tenants[i];
  const std::string place = "tenants[" + std::to_string(i) + "].placement.decode_devices";
  if (kv_per_token_[i] <= 0)
    throw InputError(config_->file, place,
                     "the workload states no layers and hidden size, so its KV cache (which the split sends "
                     "from prefill to decode) is unknown");
  const ServiceRecord& prefill = record(i, ServicePart::Prefill, 1, 0);
  const ServiceRecord& step = record(i, ServicePart::DecodeStep, 1, 0);
  std::size_t from = prefill.devices.empty() ? 0 : prefill.devices.front();
  for (std::size_t d : prefill.devices)
    if (prefill.last_end.size() > d && prefill.last_end[d] > prefill.last_end[from]) from = d;
  std::size_t to = 0;
  bool found = false;
  for (const auto& name : t.decode_devices) {
    const auto d = static_cast<std::size_t>(*platform_->find_device(name));
    if (!found && std::count(step.devices.begin(), step.devices.end(), d)) {
      to = d;
      found = true;
    }
  }
  if (prefill.devices.empty() || !found)
    throw InputError(config_->file, place, "its plans use no device of the prefill or of the decode devices");
  if (!std::isfinite(
          transfer_seconds(*platform_, static_cast<DeviceId>(from), static_cast<DeviceId>(to), 1.0, -1.0)))
    throw InputError(config_->file, place,
                     "no route from " + platform_->devices[from].name + " (the prefill's last op) to " +
                         platform_->devices[to].name + " carries the KV cache");
  kv_route_[i] = {from, to};
}

double EngineServiceTable::kv_transfer_seconds(std::size_t tenant, double bytes) const {
  const auto [from, to] = kv_route_[tenant];
  return transfer_seconds(*platform_, static_cast<DeviceId>(from), static_cast<DeviceId>(to), bytes, -1.0);
}

} // namespace hs::serving
