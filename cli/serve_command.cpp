// `heterosim serve`: tenants' request streams through batchers and a scheduler onto the platform, with
// each batch's service time from the engines (serving/, docs/serving.md). Writes serving.json and, with
// --requests-csv, requests.csv (streamed: one line per request, however many).
#include "cli/commands.hpp"
#include "serving/pareto_cache.hpp"
#include "serving/request_simulation.hpp"
#include "serving/service_table.hpp"
#include "serving/serving_report.hpp"
#include "serving/serving_timeline.hpp"
#include "sim/json_input.hpp"
#include "sim/platform.hpp"
#include "sim/units.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct ServeOptions {
  std::string platform;
  std::string config;
  std::string scheduler = "fifo";
  std::string engine = "evaluator";
  std::string out = "heterosim-serve";
  std::uint64_t requests = 10000;
  bool requests_given = false; // with a trace, the default is the whole trace
  std::uint64_t seed = 0;
  bool admission = false;
  bool requests_csv = false;
  bool force = false;
  bool quiet = false;
  bool timeline = false;
  bool save_cache = false;
  serving::TimelineOptions window;
  std::string timeline_from = "0";
};

std::unique_ptr<serving::ArrivalSource> arrivals_of(const serving::ServingConfig& c, const ServeOptions& o) {
  if (!c.trace.empty())
    return std::make_unique<serving::TraceArrivals>(c.trace, c.tenants, o.requests_given ? o.requests : 0);
  if (o.requests == 0) throw InputError("--requests", "0", "must be above 0 without a trace");
  return std::make_unique<serving::GeneratedArrivals>(c.tenants, o.seed, o.requests);
}

// The output files that exist and may not be overwritten.
void refuse_existing(const ServeOptions& o) {
  for (const auto& [f, written] :
       {std::pair{o.out + "/serving.json", true}, std::pair{o.out + "/requests.csv", o.requests_csv},
        std::pair{o.out + "/timeline.svg", o.timeline}})
    if (!o.force && written && path_exists(f))
      throw InputError(f, "", "already exists; pass --force to overwrite or choose another --out");
}

// Runs the simulation, streaming requests.csv (renamed when whole) and feeding the timeline.
serving::ServingResult simulate(const ServeOptions& o, const serving::ServingConfig& config,
                                serving::EngineServiceTable& table, serving::TimelineRecorder& timeline) {
  const auto arrivals = arrivals_of(config, o);
  std::filesystem::create_directories(o.out);
  const std::string csv_temp = o.out + "/.requests.csv.partial";
  std::ofstream csv;
  if (o.requests_csv) {
    csv.open(csv_temp, std::ios::binary | std::ios::trunc);
    if (!csv) throw InputError(csv_temp, "", "cannot write");
    csv << serving::requests_csv_header();
  }
  serving::SimulationOptions so;
  so.discipline = serving::discipline_named(o.scheduler);
  so.admission = o.admission;
  so.seed = o.seed;
  so.requests = o.requests_csv ? &csv : nullptr;
  so.progress = o.quiet ? nullptr : &std::cerr;
  so.expected = config.trace.empty() ? o.requests : 0;
  so.config_file = config.file;
  if (o.timeline) {
    so.on_request = [&timeline](const serving::RequestTrace& r) { timeline.request(r); };
    so.on_span = [&timeline](const serving::DeviceSpan& s) { timeline.span(s); };
  }
  serving::ServingResult result;
  try {
    result = serving::simulate_serving(config.tenants, table, *arrivals, so);
  } catch (...) { // a bad trace line found mid-run: leave no partial CSV behind
    if (o.requests_csv) std::filesystem::remove(csv_temp);
    throw;
  }
  if (o.requests_csv) {
    csv.close();
    if (!csv) throw InputError(csv_temp, "", "writing failed");
    std::filesystem::rename(csv_temp,
                            o.out + "/requests.csv"); // whole or not at all, as write_file_atomically
  }
  return result;
}

void write_timeline(const ServeOptions& o, const serving::ServingConfig& config, const Platform& platform,
                    const serving::TimelineRecorder& timeline) {
  std::vector<std::string> tenants, devices;
  for (const auto& t : config.tenants)
    tenants.push_back(t.name);
  for (const auto& d : platform.devices)
    devices.push_back(d.name);
  const std::string title = "serve on " + platform.name + ", " + o.scheduler + ": the first " +
                            std::to_string(timeline.requests().size()) + " requests finished";
  write_file_atomically(o.out + "/timeline.svg", serving::timeline_svg(timeline, tenants, devices, title),
                        o.force);
}

int serve(const ServeOptions& o) {
  const auto began = std::clock();
  serving::discipline_named(o.scheduler); // a bad name fails before any work
  const Platform platform = load_platform(o.platform);
  const serving::ServingConfig config = serving::load_serving_config(o.config);
  refuse_existing(o);
  serving::TimelineOptions window = o.window;
  try {
    window.from = units::parse(o.timeline_from, units::Quantity::Time);
  } catch (const std::invalid_argument& e) {
    throw InputError("--timeline-from", o.timeline_from, e.what());
  }
  // Only a tenant placed by a Pareto cache needs the description's identity.
  bool cached = false;
  for (const auto& t : config.tenants)
    cached = cached || !t.cache.empty();
  serving::EngineServiceTable table(platform, config, o.engine, o.seed,
                                    cached ? serving::platform_identity(o.platform) : "");
  serving::TimelineRecorder timeline(window);
  const serving::ServingResult result = simulate(o, config, table, timeline);
  const std::string json_file = o.out + "/serving.json";
  const serving::ServingRunInfo info{platform.name, o.config, o.scheduler,
                                     o.admission,   o.seed,   table.provenance()};
  auto report = serving::serving_json(info, config.tenants, result, table);
  report["service_records"] = serving::service_records_json(table, config.tenants);
  write_file_atomically(json_file, report.dump(1) + "\n", o.force);
  if (o.timeline) write_timeline(o, config, platform, timeline);
  if (o.save_cache)
    for (const auto& note : table.save_caches())
      if (!o.quiet) std::cerr << "serve: " << note << "\n";
  if (!o.quiet) {
    std::cout << serving::serving_summary(report) << "wrote " << json_file
              << (o.requests_csv ? ", " + o.out + "/requests.csv" : std::string())
              << (o.timeline ? ", " + o.out + "/timeline.svg" : std::string()) << "\n";
    std::cerr << "serve: " << result.events << " events; " << table.records() << " service records in "
              << table.measuring_seconds() << " s; "
              << static_cast<double>(std::clock() - began) / CLOCKS_PER_SEC << " s CPU in all\n";
  }
  return 0;
}

Action serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  auto* cmd =
      app.add_subcommand("serve", "Simulate serving: tenants' request streams, batching, scheduling, SLOs");
  cmd->add_option("--platform", o->platform, "Platform file or preset name")->required();
  cmd->add_option("--config", o->config,
                  "Serving file: tenants, arrivals, SLOs, batching, placement "
                  "(format heterosim-serving; see docs/serving.md)")
      ->required();
  cmd->add_option_function<std::uint64_t>(
      "--requests",
      [o](const std::uint64_t& n) {
        o->requests = n;
        o->requests_given = true;
      },
      "Arrivals to simulate over all tenants (default 10000; with a trace: at most this many, by default or "
      "with 0 the whole trace)");
  cmd->add_option("--scheduler", o->scheduler,
                  "Which ready batch goes first: fifo, priority, edf, least-slack")
      ->check(CLI::IsMember({"fifo", "priority", "edf", "least-slack"}))
      ->capture_default_str();
  cmd->add_flag("--admission", o->admission,
                "Drop a request that would miss its SLO even if started alone now");
  cmd->add_option("--engine", o->engine,
                  "Engine for each batch's service time: evaluator (contention-aware) or simgrid (replay)")
      ->check(CLI::IsMember({"evaluator", "simgrid"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Directory for serving.json (and requests.csv)")->capture_default_str();
  cmd->add_flag("--requests-csv", o->requests_csv, "Also write requests.csv, one line per request");
  cmd->add_flag("--save-cache", o->save_cache,
                "Write fronts re-searched for new shapes (placement.re_search) back to their cache files");
  cmd->add_flag(
      "--timeline", o->timeline,
      "Also write timeline.svg: a window of requests' queueing and service, and the devices' batches");
  cmd->add_option("--timeline-requests", o->window.requests, "Requests in the timeline's window")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--timeline-from", o->timeline_from,
                  "The window's requests arrive at or after this simulated time (default 0; 2.5s, 300ms)");
  cmd->add_option("--seed", o->seed, "Seed for arrivals, service noise and randomised policies")
      ->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  return [o] { return serve(*o); };
}

HS_REGISTER_COMMAND(serve, {"serve", serve_command})

} // namespace
} // namespace hs::cli
