// `heterosim train-gnn`: trains the gnn-placement network by the cross-entropy method against the
// contention-aware evaluator (gnn/train.hpp, docs/gnn.md) and writes a checkpoint, with the command that
// made it (written out in full, every option explicit) inside it and in <out>.command. Built only with
// libtorch, as the policy and the prior it trains are.
#include "cli/commands.hpp"
#include "gnn/train_options.hpp"
#include "sim/error.hpp"
#include "sim/json_input.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

namespace hs::cli {
namespace {

struct TrainGnnOptions {
  gnn::TrainOptions train;
  std::string out;
  bool force = false;
  bool quiet = false;
};

// The command as it would be typed, with every training option, so that the checkpoint records its
// recipe whatever the defaults become.
std::string recorded_command(const TrainGnnOptions& o) {
  std::string c = "heterosim train-gnn";
  for (const auto& w : o.train.workloads)
    c.append(" --workload ").append(w);
  for (const auto& p : o.train.platforms)
    c.append(" --platform ").append(p);
  char rest[256];
  std::snprintf(rest, sizeof rest,
                " --iterations %d --samples %d --hidden %d --layers %d --lr %g --seed %llu",
                o.train.iterations, o.train.samples, o.train.hidden, o.train.layers, o.train.learning_rate,
                static_cast<unsigned long long>(o.train.seed));
  return c.append(rest).append(" --out ").append(o.out);
}

int run_train_gnn(const TrainGnnOptions& o) {
  if (o.train.iterations < 1)
    throw InputError("--iterations", std::to_string(o.train.iterations), "must be at least 1");
  if (o.train.samples < 2)
    throw InputError("--samples", std::to_string(o.train.samples), "must be at least 2");
  if (o.train.hidden < 1 || o.train.layers < 1)
    throw InputError("--hidden/--layers", "", "must be at least 1");
  if (!(o.train.learning_rate > 0))
    throw InputError("--lr", std::to_string(o.train.learning_rate), "must be positive");
  if (!o.force && path_exists(o.out))
    throw InputError(o.out, "", "already exists; pass --force to overwrite or choose another --out");
  const auto start = std::chrono::steady_clock::now();
  const auto history = gnn::train_to_file(o.train, o.out, recorded_command(o));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << gnn::training_csv(history);
  if (!o.quiet)
    std::fprintf(stderr, "wrote %s and %s.command (%.1f s)\n", o.out.c_str(), o.out.c_str(), seconds);
  return 0;
}

Action train_gnn_command(CLI::App& app) {
  auto o = std::make_shared<TrainGnnOptions>();
  auto* cmd =
      app.add_subcommand("train-gnn", "Train the gnn-placement network (cross-entropy method against the "
                                      "contention-aware evaluator) and write a checkpoint");
  cmd->add_option("--workload", o->train.workloads, "Training graphs: builder specs or files (repeatable)")
      ->required();
  cmd->add_option("--platform", o->train.platforms, "Training platforms: presets or files (repeatable)")
      ->required();
  cmd->add_option("--out", o->out, "Checkpoint to write (and <out>.command)")->required();
  cmd->add_option("--iterations", o->train.iterations, "CEM iterations")->capture_default_str();
  cmd->add_option("--samples", o->train.samples, "Samples per instance and iteration")->capture_default_str();
  cmd->add_option("--hidden", o->train.hidden, "Hidden size")->capture_default_str();
  cmd->add_option("--layers", o->train.layers, "Message-passing layers")->capture_default_str();
  cmd->add_option("--lr", o->train.learning_rate, "Adam learning rate")->capture_default_str();
  cmd->add_option("--seed", o->train.seed, "Seed (weights, sampling, random graphs)")->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite an existing checkpoint");
  cmd->add_flag("--quiet", o->quiet, "Print only the training CSV");
  return [o] { return run_train_gnn(*o); };
}

HS_REGISTER_COMMAND(train_gnn, {"train-gnn", train_gnn_command})

} // namespace
} // namespace hs::cli
