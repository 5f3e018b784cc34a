// hs_train_gnn: trains the placement network (gnn/train.hpp) and writes a checkpoint, with the exact command
// that made it inside the checkpoint and beside it (<out>.command). Prints one CSV row per iteration. The
// same as `heterosim train-gnn` (cli/train_gnn_command.cpp), kept for the commands already recorded.
#include "gnn/train_options.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"Train the gnn-placement network against the contention-aware evaluator"};
  hs::gnn::TrainOptions o;
  std::string out = "models/gnn-placement.pt";
  app.add_option("--workload", o.workloads, "training graphs: builder specs or files")->required();
  app.add_option("--platform", o.platforms, "training platforms: presets or files")->required();
  app.add_option("--iterations", o.iterations, "CEM iterations");
  app.add_option("--samples", o.samples, "samples per instance and iteration");
  app.add_option("--hidden", o.hidden, "hidden size");
  app.add_option("--layers", o.layers, "message-passing layers");
  app.add_option("--lr", o.learning_rate, "Adam learning rate");
  app.add_option("--seed", o.seed, "seed (weights, sampling, random graphs)");
  app.add_option("--out", out, "checkpoint to write");
  CLI11_PARSE(app, argc, argv);
  std::string command = "hs_train_gnn";
  for (int i = 1; i < argc; ++i)
    command.append(" ").append(argv[i]);
  try {
    const auto start = std::chrono::steady_clock::now();
    std::cout << hs::gnn::training_csv(hs::gnn::train_to_file(o, out, command));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "wrote %s (%.1f s)\n", out.c_str(), seconds);
  } catch (const std::exception& e) {
    std::cerr << "hs_train_gnn: " << e.what() << "\n";
    return 1;
  }
}
