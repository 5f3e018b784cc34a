#include "sim/simgrid_platform.hpp"

#include <cstdio>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <string>

namespace sg4 = simgrid::s4u;

namespace hs {

void configure_exact_network() {
  // CM02 without TCP window limits or cross-traffic: a transfer of B bytes on a route of bandwidth W and
  // latency L takes L + B / W, and n transfers sharing a link get W / n each.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:1e30");
  // Full re-solve of the sharing at every change. SimGrid 3.32's default lazy update leaves stale rates in
  // place (measured: three transfers each at 15.75 GB/s through one 31.5 GB/s uplink); Full gives max-min
  // shares that respect every link's capacity (tests/contention_evaluator_test.cpp).
  sg4::Engine::set_config("network/optim:Full");
  // Event dates to 1e-12 s, not SimGrid's default 1e-9: the nanosecond rounding moved ends apart by up to
  // 1.6 ns, enough for transfers tens of nanoseconds apart to meet other flows differently, and a 2000-op
  // plan's makespan moved 0.066 % from the evaluator's (results/contention/README.md).
  sg4::Engine::set_config("surf/precision:1e-12");
}

namespace {
std::string watts(double idle, double busy) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.17g:%.17g", idle, busy);
  return buf;
}

// A SimGrid profile ("date value" lines), or null. Host speed profiles take a fraction of the peak speed;
// link bandwidth profiles take bytes per second (measured in 3.32), so links pass their bandwidth as `unit`.
simgrid::kernel::profile::Profile* profile_for(const std::vector<ResourceProfile>& profiles, int index,
                                               const std::string& name, double unit = 1.0) {
  for (const auto& r : profiles) {
    if (r.index != index) continue;
    std::string text;
    char buf[96];
    if (r.steps.front().at > 0) {
      std::snprintf(buf, sizeof buf, "0 %.17g\n", unit);
      text += buf;
    }
    for (const auto& st : r.steps) {
      std::snprintf(buf, sizeof buf, "%.17g %.17g\n", st.at, st.availability * unit);
      text += buf;
    }
    return simgrid::kernel::profile::ProfileBuilder::from_string(name, text, -1);
  }
  return nullptr;
}
} // namespace

SimgridPlatform build_simgrid_platform(const Platform& p, const Scenario& scenario,
                                       const std::vector<std::pair<DeviceId, DeviceId>>* pairs) {
  SimgridPlatform out;
  auto* zone = sg4::create_full_zone("heterosim");
  for (const auto& d : p.devices) {
    std::vector<double> speeds;
    std::string wattage;
    for (const auto& st : d.pstates) {
      speeds.push_back(kNominalSpeed * st.speed / d.pstates.front().speed);
      char buf[160];
      // Single-core host: Idle:Epsilon:AllCores with Epsilon = AllCores = busy.
      std::snprintf(buf, sizeof buf, "%s%.17g:%.17g:%.17g", wattage.empty() ? "" : ",", st.idle_watts,
                    st.busy_watts, st.busy_watts);
      wattage += buf;
    }
    auto* host = zone->create_host(d.name, speeds);
    host->set_core_count(1);
    host->set_property("wattage_per_state", wattage);
    host->set_property("wattage_off", "0");
    if (auto* profile =
            profile_for(scenario.devices, static_cast<int>(out.hosts.size()), d.name + "/availability"))
      host->set_speed_profile(profile);
    host->seal();
    out.hosts.push_back(host);
  }
  for (const auto& l : p.links) {
    if (l.sharing == Sharing::SplitDuplex) {
      auto* link = zone->create_split_duplex_link(l.name, l.bandwidth);
      link->set_latency(l.latency);
      const int index = static_cast<int>(out.links.size());
      // One profile per direction: a profile drives a single resource.
      if (auto* up = profile_for(scenario.links, index, l.name + "/up", l.bandwidth)) {
        link->get_link_up()->set_bandwidth_profile(up);
        link->get_link_down()->set_bandwidth_profile(
            profile_for(scenario.links, index, l.name + "/down", l.bandwidth));
      }
      // The link's power is split evenly between its two directions.
      for (auto* half : {link->get_link_up(), link->get_link_down()})
        half->set_property("wattage_range", watts(l.idle_watts / 2, l.busy_watts / 2));
      link->seal();
      out.links.push_back({link->get_link_up(), link->get_link_down()});
      out.route_links.push_back(link);
    } else {
      auto* link = zone->create_link(l.name, l.bandwidth);
      link->set_latency(l.latency);
      link->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
      if (auto* profile = profile_for(scenario.links, static_cast<int>(out.links.size()),
                                      l.name + "/bandwidth", l.bandwidth))
        link->set_bandwidth_profile(profile);
      link->set_property("wattage_range", watts(l.idle_watts, l.busy_watts));
      link->seal();
      out.links.push_back({link});
      out.route_links.push_back(link);
    }
  }
  std::vector<std::pair<DeviceId, DeviceId>> every;
  if (!pairs) {
    for (DeviceId a = 0; a < p.device_count(); ++a)
      for (DeviceId b = 0; b < p.device_count(); ++b)
        every.emplace_back(a, b);
    pairs = &every;
  }
  for (const auto& [a, b] : *pairs) {
    const Route* r = a != b ? p.route(a, b) : nullptr;
    if (!r) continue;
    std::vector<sg4::LinkInRoute> hops;
    for (const auto& hop : r->hops) {
      const auto& l = p.links[static_cast<std::size_t>(hop.link)];
      auto* link = out.route_links[static_cast<std::size_t>(hop.link)];
      if (l.sharing == Sharing::SplitDuplex)
        hops.emplace_back(link,
                          hop.forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
      else
        hops.emplace_back(link);
    }
    // Each direction is added on its own (the platform already holds both when symmetrical).
    zone->add_route(out.hosts[static_cast<std::size_t>(a)]->get_netpoint(),
                    out.hosts[static_cast<std::size_t>(b)]->get_netpoint(), nullptr, nullptr, hops, false);
  }
  zone->seal();
  return out;
}

} // namespace hs
