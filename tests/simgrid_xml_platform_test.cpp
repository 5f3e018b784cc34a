// SimGrid platform files (sim/simgrid_xml_platform.hpp): known routes, devices and transfer times from the
// fixtures in tests/data/simgrid, and errors that name the file and line.
#include "sim/analytic_engine.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/simgrid_units.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

using namespace hs;

namespace {

std::string simgrid_fixture(const std::string& name) {
  return test::source_dir() + "/tests/data/simgrid/" + name;
}

const Route& xml_route(const Platform& p, const std::string& from, const std::string& to) {
  const Route* r = p.route(*p.find_device(from), *p.find_device(to));
  REQUIRE(r != nullptr);
  return *r;
}

std::vector<std::string> hop_names(const Platform& p, const Route& r) {
  std::vector<std::string> out;
  for (const auto& h : r.hops)
    out.push_back(p.links[static_cast<std::size_t>(h.link)].name + (h.forward ? "" : "-"));
  return out;
}

// The message load_platform gives for `xml` written to a scratch file, which the message must name.
std::string xml_error(const std::string& xml) {
  const auto path = std::filesystem::temp_directory_path() / "hs_simgrid_bad_platform.xml";
  std::ofstream(path) << xml;
  try {
    load_platform(path.string());
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(path.string()) != std::string::npos);
    return e.what();
  }
  FAIL("the platform loaded");
  return "";
}

std::string zone_xml(const std::string& body, const std::string& routing = "Full") {
  return "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"" + routing + "\">\n" +
         body + "</zone>\n</platform>\n";
}

} // namespace

TEST_CASE("SimGrid quantities parse with SimGrid's units") {
  using namespace simgrid_units;
  CHECK(speed("1Gf") == 1e9);
  CHECK(speed("2.5megaflops") == 2.5e6);
  CHECK(speed("3") == 3.0); // unit-less: the base unit, as SimGrid reads it
  CHECK(bandwidth("10GBps") == 1e10);
  CHECK(bandwidth("1Gbps") == 1.25e8);
  CHECK(bandwidth("1KiBps") == 1024.0);
  CHECK(time("50us") == doctest::Approx(5e-5).epsilon(1e-15));
  CHECK(time("2m") == 120.0); // minutes, not metres or milli
  CHECK(size("1GiB") == 1073741824.0);
  CHECK(speeds("1Gf, 500Mf") == std::vector<double>{1e9, 5e8});
  CHECK_THROWS_WITH_AS(speed("1Gx"), doctest::Contains("unknown speed unit 'Gx'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bandwidth("1KBps"), doctest::Contains("unknown bandwidth unit 'KBps'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(speed("fast"), doctest::Contains("is not a speed"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(speed("infGf"), doctest::Contains("not a finite speed"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(speed("1e999f"), doctest::Contains("out of range"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(time("-1s"), doctest::Contains("cannot be negative"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(time("1 s"), doctest::Contains("unknown time unit ' s'"), std::invalid_argument);
}

TEST_CASE("a Full zone: hosts become devices, written routes and their symmetrical reverses are kept") {
  const Platform p = load_platform(simgrid_fixture("hetero_full.xml"));
  CHECK(p.name == "hetero_full");
  REQUIRE(p.device_count() == 3);
  const Device& cpu = p.devices[0];
  CHECK(cpu.kind == "cpu");
  CHECK(cpu.peak_flops.at("fp32") == 400e9); // 100 Gf x 4 cores
  CHECK(cpu.peak_flops.size() == 6);
  const Device& gpu = p.devices[1];
  CHECK(gpu.kind == "gpu");
  CHECK(gpu.memory_capacity == 24.0 * 1073741824.0);
  CHECK(gpu.memory_bandwidth == 1e12);
  REQUIRE(gpu.pstates.size() == 2);
  CHECK(gpu.pstates[1].speed == 0.5);
  CHECK(gpu.pstates[0].idle_watts == 20.0);
  CHECK(gpu.pstates[0].busy_watts == 300.0);
  CHECK(gpu.pstates[1].busy_watts == 150.0);
  CHECK(p.devices[2].peak_flops.count("fp32") == 0);
  CHECK(p.devices[2].peak_flops.at("fp16") == 50e12);

  const Route& up = xml_route(p, "gpu0", "cpu0");
  CHECK(hop_names(p, up) == std::vector<std::string>{"pcie_gpu", "uplink"});
  CHECK(up.latency == doctest::Approx(1.5e-6).epsilon(1e-12));
  CHECK(up.bandwidth == 31.25e9); // 250 Gbps, below the 32 GB/s PCIe link
  // The reverse of a symmetrical route: links in the other order, the split-duplex one crossed DOWN.
  CHECK(hop_names(p, xml_route(p, "cpu0", "gpu0")) == std::vector<std::string>{"uplink", "pcie_gpu-"});
  const Route& across = xml_route(p, "gpu0", "npu0");
  CHECK(hop_names(p, across) == std::vector<std::string>{"pcie_gpu", "pcie_npu-"}); // pcie_npu_DOWN
  CHECK(across.latency == doctest::Approx(3e-6).epsilon(1e-12));
  CHECK(across.bandwidth == 16e9);
  const Link& uplink = p.links[static_cast<std::size_t>(*p.find_link("uplink"))];
  CHECK(uplink.sharing == Sharing::Shared); // the DTD's default
  CHECK(uplink.busy_watts == 3.0);
}

TEST_CASE("a SimGrid file's transfer takes latency + size / bandwidth in the replay and the evaluator") {
  const Platform p = load_platform(simgrid_fixture("hetero_full.xml"));
  GraphBuilder b("one-transfer");
  auto producer = b.op("producer").flops(1e12).precision("fp16"),
       consumer = b.op("consumer").flops(0).precision("fp16");
  producer.feeds(consumer, 1.6e9);
  const Graph g = std::move(b).build();
  Plan plan = Plan::empty(g.op_count(), p, "manual");
  plan.append(0, *p.find_device("gpu0"));
  plan.append(1, *p.find_device("npu0"));
  const CostModel cost(g, p);
  // CM02 with no latency or bandwidth factor (sim/simgrid_platform.cpp), so the textbook time.
  const double transfer = 3e-6 + 1.6e9 / 16e9;
  for (const Execution& e : {run_simgrid(plan, cost), run_contention(plan, cost), run_analytic(plan, cost)}) {
    CAPTURE(e.engine);
    REQUIRE(e.transfers.size() == 1);
    CHECK(e.transfers[0].start == doctest::Approx(0.1).epsilon(1e-6)); // 1e12 flop at 10 Tf
    CHECK(e.transfers[0].end - e.transfers[0].start == doctest::Approx(transfer).epsilon(1e-6));
    CHECK(e.makespan == doctest::Approx(0.1 + transfer).epsilon(1e-6));
  }
}

TEST_CASE("a Floyd zone routes as SimGrid's FloydZone: fewest links over the written routes") {
  const Platform p = load_platform(simgrid_fixture("star_floyd.xml"));
  REQUIRE(p.device_count() == 3);
  const Route& ab = xml_route(p, "a", "b");
  CHECK(hop_names(p, ab) == std::vector<std::string>{"la", "lb-"});
  CHECK(ab.latency == doctest::Approx(30e-6).epsilon(1e-12));
  CHECK(ab.bandwidth == 1e9);
  CHECK(hop_names(p, xml_route(p, "c", "b")) == std::vector<std::string>{"lc", "lb-"});
  // One written link beats two through the router, however slow.
  CHECK(hop_names(p, xml_route(p, "a", "c")) == std::vector<std::string>{"direct"});
  CHECK(hop_names(p, xml_route(p, "c", "a")) == std::vector<std::string>{"direct"});
  CHECK(xml_route(p, "a", "c").latency == doctest::Approx(1e-3).epsilon(1e-12));
}

TEST_CASE("a flat cluster: private links up and down, the backbone once") {
  const Platform p = load_platform(simgrid_fixture("cluster_backbone.xml"));
  REQUIRE(p.device_count() == 4);
  CHECK(p.devices[3].name == "node-3.acme.org");
  CHECK(p.devices[0].peak_flops.at("fp32") == 1e9);
  const Route& r = xml_route(p, "node-0.acme.org", "node-2.acme.org");
  CHECK(hop_names(p, r) == std::vector<std::string>{"acme_link_0", "acme_backbone", "acme_link_2-"});
  CHECK(r.latency == doctest::Approx(600e-6).epsilon(1e-12));
  CHECK(r.bandwidth == 125e6);
  CHECK(p.links[static_cast<std::size_t>(*p.find_link("acme_backbone"))].sharing == Sharing::Shared);
  CHECK(p.links[static_cast<std::size_t>(*p.find_link("acme_link_1"))].sharing == Sharing::SplitDuplex);
}

TEST_CASE("SimGrid files that do not map are refused with the file and line") {
  const std::string hosts = "<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n";
  const std::string link = "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n";
  CHECK(xml_error(zone_xml(hosts + link + "<route src=\"a\" dst=\"b\"><link_ctn id=\"nope\"/></route>\n"))
            .find("line 7: no link 'nope' in zone 'z'") != std::string::npos);
  const auto missing = xml_error(zone_xml(hosts + "<host id=\"c\" speed=\"1Gf\"/>\n" + link +
                                          "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"));
  CHECK(missing.find("line 3: zone 'z' (Full routing) has no route from 'a' to 'c'") != std::string::npos);
  CHECK(xml_error(zone_xml("<host id=\"a\" speed=\"1Gx\"/>\n"))
            .find("line 4: host 'a' speed: unknown speed unit 'Gx'") != std::string::npos);
  CHECK(xml_error(zone_xml("<host id=\"a\" speed=\"nanGf\"/>\n")).find("not a finite speed") !=
        std::string::npos);
  CHECK(xml_error(zone_xml("<host id=\"a\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"fast\"/>\n"))
            .find("line 5: <link> bandwidth: 'fast' is not a bandwidth") != std::string::npos);
  CHECK(xml_error(zone_xml(hosts + "<link id=\"f\" bandwidth=\"1GBps\" sharing_policy=\"FATPIPE\"/>\n"))
            .find("sharing_policy 'FATPIPE' is not read") != std::string::npos);
  CHECK(xml_error(zone_xml(hosts + "<link id=\"s\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                                   "<route src=\"a\" dst=\"b\"><link_ctn id=\"s\"/></route>\n"))
            .find("line 7: link 's' is SPLITDUPLEX: give direction") != std::string::npos);
  CHECK(xml_error(zone_xml(hosts + link +
                           "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                           "<route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>\n"))
            .find("line 8: a second route from 'b' to 'a' (routes are symmetrical unless") !=
        std::string::npos);
  CHECK(xml_error(zone_xml(hosts, "Dijkstra")).find("routing 'Dijkstra' is not read") != std::string::npos);
  CHECK(xml_error(zone_xml(hosts + "<zone id=\"inner\" routing=\"Full\"/>\n")).find("no nested zones") !=
        std::string::npos);
  CHECK(xml_error("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" "
                  "speed=\"1Gf\">\n</zone>")
            .find("line 4: not well-formed XML") != std::string::npos);
  CHECK(xml_error("<platform version=\"3\"/>").find("is not 4.1") != std::string::npos);
  CHECK(
      xml_error(zone_xml("<host id=\"a\" speed=\"1Gf\"><prop id=\"heterosim.knd\" value=\"gpu\"/></host>\n"))
          .find("unknown property 'heterosim.knd'") != std::string::npos);
}
