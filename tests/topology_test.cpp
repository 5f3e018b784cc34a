// Routes computed from a platform's topology (sim/topology.hpp): the rule, the presets, and bad input.
#include "cli_support.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"
#include "sim/platform.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace hs;

namespace {

// Devices a, b, c (any of them may go unused) with `rest` after the devices: nodes, links and the rest.
std::string topo(const std::string& rest, const std::string& devices = "a,b") {
  std::string devs;
  std::stringstream names(devices);
  for (std::string d; std::getline(names, d, ',');) {
    if (!devs.empty()) devs += ",";
    devs += test::device_json(d, "gpu", "1Tf");
  }
  return R"({"format": "heterosim-platform", "version": 1, "name": "t", "devices": [)" + devs + "], " + rest +
         "}";
}

std::string link(const std::string& name, const std::string& from, const std::string& to,
                 const std::string& latency = "1us") {
  return R"({"name": ")" + name + R"(", "ends": [")" + from + R"(", ")" + to +
         R"("], "bandwidth": "10GBps", "latency": ")" + latency + R"("})";
}

std::string switches(const std::string& list) {
  std::string out;
  std::stringstream names(list);
  for (std::string n; std::getline(names, n, ',');)
    out += std::string(out.empty() ? "" : ",") + R"({"name": ")" + n + R"(", "kind": "switch"})";
  return R"("nodes": [)" + out + "]";
}

// A route as "link+ link-" (+ forward, - reverse), "" when there is none.
std::string hops(const Platform& p, const std::string& from, const std::string& to) {
  const Route* r = p.route(*p.find_device(from), *p.find_device(to));
  if (!r) return "";
  std::string out;
  for (const auto& h : r->hops)
    out +=
        (out.empty() ? "" : " ") + p.links[static_cast<std::size_t>(h.link)].name + (h.forward ? "+" : "-");
  return out;
}

std::string error_of(const std::string& json) {
  try {
    parse_platform(json, "topo.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("topology: every preset computes exactly the routes it used to write out by hand") {
  std::ifstream pinned(test::source_dir() + "/tests/data/preset_routes.txt");
  REQUIRE(pinned);
  std::map<std::string, Platform> presets;
  std::map<std::string, int> lines;
  for (std::string line; std::getline(pinned, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream in(line);
    std::string platform, from, to, expected;
    in >> platform >> from >> to;
    std::getline(in >> std::ws, expected);
    if (!presets.count(platform)) presets.emplace(platform, load_platform(platform));
    const Platform& p = presets.at(platform);
    CAPTURE(line);
    CHECK(hops(p, from, to) == expected);
    const Route* r = p.route(*p.find_device(from), *p.find_device(to));
    REQUIRE(r != nullptr);
    CHECK(r->computed);
    ++lines[platform];
  }
  CHECK(presets.size() == 4);
  for (const auto& entry : presets) { // every ordered pair is pinned
    const Platform& p = entry.second;
    CAPTURE(p.name);
    CHECK(p.has_topology());
    CHECK(lines[entry.first] == p.device_count() * (p.device_count() - 1));
  }
}

TEST_CASE("topology: preset routes hop by hop, with summed latency and bottleneck bandwidth") {
  const Platform h = load_platform("hetero-server");
  CHECK(hops(h, "gpu0", "npu0") == "pcie_gpu+ pcie_npu-");
  CHECK(hops(h, "cpu0", "fpga0") == "pcie_switch_uplink- pcie_fpga-");
  const Route* gpu_npu = h.route(*h.find_device("gpu0"), *h.find_device("npu0"));
  CHECK(gpu_npu->latency == doctest::Approx(1e-6));
  CHECK(gpu_npu->bandwidth == doctest::Approx(15.75e9));
  const Platform m = load_platform("multi-gpu-node");
  CHECK(hops(m, "gpu5", "cpu0") == "pcie_gpu5+ pcie_sw2+ xgmi-"); // through cpu1, a transit device
  CHECK(hops(m, "gpu0", "gpu1") == "nvlink_gpu0+ nvlink_gpu1-");  // ties with PCIe; name order decides
  CHECK(hops(m, "cpu1", "cpu0") == "xgmi-");
}

TEST_CASE("topology: least latency, then fewest hops, then link names, latencies compared in picoseconds") {
  // Two hops of 2 us beat one of 5 us.
  CHECK(hops(parse_platform(topo(switches("s") + R"(, "links": [)" + link("direct", "a", "b", "5us") + "," +
                                 link("up", "a", "s", "2us") + "," + link("down", "b", "s", "2us") + "]"),
                            "t"),
             "a", "b") == "up+ down-");
  // Equal latency: the single hop wins.
  CHECK(hops(parse_platform(topo(switches("s") + R"(, "links": [)" + link("up", "a", "s", "2us") + "," +
                                 link("down", "b", "s", "2us") + "," + link("direct", "a", "b", "4us") + "]"),
                            "t"),
             "a", "b") == "direct+");
  // Equal latency and hops: the first link names in byte order, over parallel switches and parallel links.
  const Platform names = parse_platform(topo(switches("s1,s2") + R"(, "links": [)" + link("x1", "a", "s1") +
                                             "," + link("x2", "b", "s1") + "," + link("w2", "a", "s2") + "," +
                                             link("w1", "a", "s2") + "," + link("w3", "b", "s2") + "]"),
                                        "t");
  CHECK(hops(names, "a", "b") == "w1+ w3-");
  CHECK(hops(names, "b", "a") == "w3+ w1-"); // the same path backwards
  // 0.1 s + 0.7 s is below 0.8 s in binary floating point; in whole picoseconds they tie, and one hop wins.
  CHECK(hops(parse_platform(topo(switches("s") + R"(, "links": [)" + link("p", "a", "s", "0.1s") + "," +
                                 link("q", "s", "b", "0.7s") + "," + link("direct", "a", "b", "0.8s") + "]"),
                            "t"),
             "a", "b") == "direct+");
}

TEST_CASE("topology: routes pass through a device only when it is a transit device") {
  const std::string chain = R"("links": [)" + link("ab", "a", "b") + "," + link("bc", "b", "c") + "]";
  const std::string blocked = error_of(topo(chain, "a,b,c"));
  CHECK(blocked.find("topo.json: links: no route from 'a' to 'c'") != std::string::npos);
  CHECK(blocked.find("transit_devices") != std::string::npos);
  const Platform relayed = parse_platform(topo(chain + R"(, "transit_devices": ["b"])", "a,b,c"), "t");
  CHECK(hops(relayed, "a", "c") == "ab+ bc+");
  CHECK(hops(relayed, "c", "a") == "bc- ab-");
  const Platform apart = parse_platform(topo(chain + R"(, "unreachable": [["a", "c"]])", "a,b,c"), "t");
  CHECK(hops(apart, "a", "c").empty());
  CHECK(hops(apart, "a", "b") == "ab+");
}

TEST_CASE("topology: unreachable drops a computed route, written routes override computed ones") {
  const std::string star = switches("s1,s2") + R"(, "links": [)" + link("a1", "a", "s1") + "," +
                           link("b1", "b", "s1") + "," + link("a2", "a", "s2", "2us") + "," +
                           link("b2", "b", "s2", "2us") + "," + link("c1", "c", "s1") + "]";
  const Platform no_p2p = parse_platform(topo(star + R"(, "unreachable": [["a", "b"]])", "a,b,c"), "t");
  CHECK(hops(no_p2p, "a", "b").empty());
  CHECK(hops(no_p2p, "b", "a").empty());
  CHECK(hops(no_p2p, "a", "c") == "a1+ c1-");
  // A written route replaces the computed one and, being symmetrical, its reverse too.
  const std::string via_s2 = R"({"from": "a", "to": "b", "links": ["a2", {"link": "b2", "reverse": true}]})";
  const Platform written = parse_platform(topo(star + R"(, "routes": [)" + via_s2 + "]", "a,b,c"), "t");
  CHECK(hops(written, "a", "b") == "a2+ b2-");
  CHECK(hops(written, "b", "a") == "b2+ a2-");
  CHECK_FALSE(written.route(*written.find_device("a"), *written.find_device("b"))->computed);
  CHECK(written.route(*written.find_device("a"), *written.find_device("c"))->computed);
  // Writing the reverse too keeps it.
  const std::string back = R"({"from": "b", "to": "a", "links": ["b1", {"link": "a1", "reverse": true}]})";
  const Platform both =
      parse_platform(topo(star + R"(, "routes": [)" + via_s2 + "," + back + "]", "a,b,c"), "t");
  CHECK(hops(both, "a", "b") == "a2+ b2-");
  CHECK(hops(both, "b", "a") == "b1+ a1-");
  // A written route must follow the links' ends.
  const std::string wrong = R"({"from": "a", "to": "b", "links": ["a2", "b2"]})";
  const std::string e = error_of(topo(star + R"(, "routes": [)" + wrong + "]", "a,b,c"));
  CHECK(e.find("topo.json: routes[0].links[1]: link 'b2' crossed forward leaves 'b'") != std::string::npos);
  CHECK(e.find("cross it the other way") != std::string::npos);
}

TEST_CASE("topology: bad nodes and ends are refused with the file and the place") {
  const std::string ab = R"("links": [)" + link("ab", "a", "s") + "," + link("bs", "b", "s") + "]";
  CHECK(error_of(topo(switches("sw0") + R"(, "links": [)" + link("as", "a", "sw") + "," +
                      link("bs", "b", "sw0") + "]"))
            .find("topo.json: links[0].ends[1]: unknown device or node 'sw' (did you mean 'sw0'?)") !=
        std::string::npos);
  CHECK(error_of(topo(R"("links": [)" + link("aa", "a", "a") + "]"))
            .find("topo.json: links[0].ends: both ends are 'a'") != std::string::npos);
  CHECK(
      error_of(topo(switches("s,s") + "," + ab)).find("topo.json: nodes[1].name: duplicate node name 's'") !=
      std::string::npos);
  CHECK(error_of(topo(switches("s,b") + "," + ab)).find("topo.json: nodes[1].name: 'b' is a device") !=
        std::string::npos);
  CHECK(error_of(topo(R"("nodes": [{"name": "s", "kind": "router"}], )" + ab))
            .find("topo.json: nodes[0].kind: a node's kind is \"switch\" or \"bridge\"") !=
        std::string::npos);
  CHECK(error_of(topo(switches("s") + R"(, "links": [)" + link("as", "a", "s") + "]"))
            .find("topo.json: devices[1]: device 'b' is at neither end of any link") != std::string::npos);
  CHECK(
      error_of(topo(R"("links": [)" + link("ab", "a", "b") + R"(, {"name": "loose", "bandwidth": "1GBps"}])"))
          .find("topo.json: links[1]: link 'loose' has no \"ends\"") != std::string::npos);
  CHECK(
      error_of(
          topo(
              switches("s") +
              R"(, "links": [{"name": "ab", "bandwidth": "1GBps"}], "routes": [{"from": "a", "to": "b", "links": ["ab"]}])"))
          .find("topo.json: nodes: no link gives its \"ends\"") != std::string::npos);
  CHECK(error_of(topo(R"("links": [)" + link("ab", "a", "b") + R"(], "transit_devices": ["bb"])"))
            .find("topo.json: transit_devices[0]: unknown device 'bb' (did you mean 'b'?)") !=
        std::string::npos);
  CHECK(error_of(topo(R"("links": [{"name": "ab", "ends": ["a"], "bandwidth": "1GBps"}])"))
            .find("topo.json: links[0].ends: a link has two ends") != std::string::npos);
}

TEST_CASE("topology: adding a GPU to hetero-server is one device and one link, and run works on it") {
  namespace fs = std::filesystem;
  Json j = read_json_file(test::source_dir() + "/platforms/hetero-server.json");
  Json gpu = j["devices"][1];
  gpu["name"] = "gpu1";
  j["devices"].push_back(gpu);
  Json pcie = j["links"][0];
  pcie["name"] = "pcie_gpu1";
  pcie["ends"] = {"gpu1", "pcie_switch0"};
  j["links"].push_back(pcie);
  const fs::path dir = test::scratch_dir("topology", "one-more-gpu");
  const fs::path file = test::write_file(dir / "two-gpus.json", j.dump(1));
  const Platform p = load_platform(file.string());
  CHECK(hops(p, "gpu1", "cpu0") == "pcie_gpu1+ pcie_switch_uplink+");
  CHECK(hops(p, "cpu0", "gpu1") == "pcie_switch_uplink- pcie_gpu1-");
  CHECK(hops(p, "gpu1", "npu0") == "pcie_gpu1+ pcie_npu-");
  CHECK(hops(p, "fpga0", "gpu1") == "pcie_fpga+ pcie_gpu1-");
  CHECK(hops(p, "gpu0", "gpu1") == "pcie_gpu+ pcie_gpu1-");
  CHECK(hops(p, "gpu0", "cpu0") == "pcie_gpu+ pcie_switch_uplink+"); // the old routes stay
  const auto run =
      test::heterosim("run --platform " + file.string() +
                      " --workload random:ops=60 --policy heft --seed 2 -q --out " + (dir / "out").string());
  REQUIRE_MESSAGE(run.exit_code == 0, run.output);
  const Json report = read_json_file((dir / "out" / "report.json").string());
  REQUIRE(report["routes"].size() == 20);
  bool found = false;
  for (const auto& r : report["routes"])
    if (r["from"] == "gpu1" && r["to"] == "cpu0") {
      found = true;
      CHECK(r["origin"] == "computed");
      CHECK(r["latency_s"].get<double>() == doctest::Approx(1e-6));
      CHECK(r["bandwidth_bytes_per_s"].get<double>() == doctest::Approx(31.5e9));
      CHECK(r["hops"] == Json::parse(R"([{"link": "pcie_gpu1", "direction": "forward"},
                                         {"link": "pcie_switch_uplink", "direction": "forward"}])"));
    }
  CHECK(found);
  fs::remove_all(dir);
}

TEST_CASE("topology: info --platform --routes lists every pair's route") {
  const auto r = test::heterosim("info --platform hetero-server --routes");
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  CHECK(r.output.find("routes        12 (12 computed from the links' ends, 0 explicit)") !=
        std::string::npos);
  CHECK(r.output.find("nodes         1: pcie_switch0 (switch)") != std::string::npos);
  CHECK(r.output.find("pcie_gpu, pcie_npu (reverse)") != std::string::npos);
  CHECK(r.output.find("15.75 GB/s") != std::string::npos);
  CHECK(test::heterosim("info").exit_code != 0);
  CHECK(test::heterosim("info --routes --workload resnet50").exit_code != 0); // --routes needs --platform
}
