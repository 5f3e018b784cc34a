#include "sim/error.hpp"
#include "sim/platform.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <set>

using namespace hs;

namespace {
std::string minimal(const std::string& devices, const std::string& rest = "") {
  return R"({"format": "heterosim-platform", "version": 1, "name": "t", "devices": [)" + devices + "]" +
         rest + "}";
}
std::string error_of(const std::string& json) {
  try {
    parse_platform(json, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE(
    "platform presets load, every device and link says where its numbers come from, all pairs are routed") {
  int presets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/platforms")) {
    if (entry.path().extension() != ".json") continue;
    ++presets;
    const Platform p = load_platform(entry.path().string());
    CAPTURE(p.name);
    for (const auto& d : p.devices) {
      CHECK_FALSE(d.source.empty());
      CHECK(d.memory_capacity > 0);
    }
    for (const auto& l : p.links)
      CHECK_FALSE(l.source.empty());
    for (DeviceId a = 0; a < p.device_count(); ++a)
      for (DeviceId b = 0; b < p.device_count(); ++b)
        if (a != b) CHECK_MESSAGE(p.route(a, b) != nullptr, p.devices[a].name, " -> ", p.devices[b].name);
  }
  CHECK(presets >= 4);
  const Platform hetero = load_platform("hetero-server");
  std::set<std::string> kinds;
  for (const auto& d : hetero.devices)
    kinds.insert(d.kind);
  CHECK(kinds == std::set<std::string>{"cpu", "gpu", "npu", "fpga"});
}

TEST_CASE("routes: bottleneck bandwidth, summed latency, reverse route flips every hop") {
  const Platform p = test::switch_platform();
  const DeviceId a = *p.find_device("a"), b = *p.find_device("b"), cpu = *p.find_device("cpu");
  const Route* up = p.route(a, cpu);
  REQUIRE(up != nullptr);
  CHECK(up->bandwidth == doctest::Approx(32e9));
  CHECK(up->hops.size() == 2);
  CHECK(up->hops[0].forward);
  const Route* down = p.route(cpu, a);
  REQUIRE(down != nullptr);
  CHECK(down->hops[0].link == *p.find_link("uplink"));
  CHECK_FALSE(down->hops[0].forward);
  const Route* ab = p.route(a, b);
  REQUIRE(ab != nullptr);
  CHECK(ab->hops[1].forward == false); // down b's link
  CHECK(p.route(b, a)->hops[0].forward == true);
}

TEST_CASE("platform errors name the file and the place") {
  const std::string dev = test::device_json("x", "gpu", "1Tf");
  CHECK(error_of("{ \"devices\": [ }").find("bad.json") != std::string::npos);
  CHECK(error_of(minimal("")).find("at least one device") != std::string::npos);
  CHECK(error_of(minimal(dev + "," + dev)).find("duplicate device name 'x'") != std::string::npos);
  CHECK(
      error_of(
          minimal(
              R"({"name": "x", "kind": "gpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "-1GBps", "capacity": "1GB"}, "power": {"idle": 1, "busy": 2}})"))
          .find("devices[0].memory.bandwidth") != std::string::npos);
  CHECK(
      error_of(
          minimal(
              R"({"name": "x", "kind": "gpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwith": "1GBps", "capacity": "1GB"}, "power": {"idle": 1, "busy": 2}})"))
          .find("unknown field 'bandwith'") != std::string::npos);
  CHECK(
      error_of(
          minimal(
              R"({"name": "x", "kind": "gpu", "peak": {"fp32": "1Tf"}, "memory": {"bandwidth": "1GBps", "capacity": "1GB"}, "power": {"idle": "50W", "busy": "5W"}})"))
          .find("busy power must be at least the idle power") != std::string::npos);
  CHECK(error_of(minimal(dev, R"(, "routes": [{"from": "x", "to": "nowhere", "links": []}])"))
            .find("routes[0].to: unknown device 'nowhere'") != std::string::npos);
  CHECK(error_of(minimal(dev + "," + test::device_json("y", "cpu", "1Tf"),
                         R"(, "routes": [{"from": "x", "to": "y", "links": ["nope"]}])"))
            .find("routes[0].links[0]: unknown link 'nope'") != std::string::npos);
  CHECK(error_of(minimal(dev, R"(, "links": [{"name": "l", "bandwidth": "1GBps", "sharing": "fair"}])"))
            .find("links[0].sharing") != std::string::npos);
  CHECK_THROWS_AS(load_platform("no-such-preset"), InputError);
}
