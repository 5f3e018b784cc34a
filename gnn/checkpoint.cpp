#include "gnn/checkpoint.hpp"

#include "sim/error.hpp"

#include <filesystem>

namespace hs::gnn {
namespace {

long checkpoint_int(torch::serialize::InputArchive& in, const std::string& path, const std::string& key) {
  c10::IValue v;
  if (!in.try_read(key, v) || !v.isInt()) throw InputError(path, key, "missing from the checkpoint header");
  return v.toInt();
}

void check_dimension(torch::serialize::InputArchive& in, const std::string& path, const std::string& key,
                     int expected) {
  const long got = checkpoint_int(in, path, key);
  if (got != expected)
    throw InputError(path, key,
                     std::string("the checkpoint was trained for ")
                         .append(std::to_string(got))
                         .append(" ")
                         .append(key)
                         .append(", this build computes ")
                         .append(std::to_string(expected))
                         .append(": retrain it (gnn/README.md)"));
}

} // namespace

void save_checkpoint(const std::string& path, PlacementNet& net, const std::string& training_command) {
  torch::serialize::OutputArchive out;
  out.write("format", c10::IValue(std::string(kCheckpointFormat)));
  out.write("version", c10::IValue(static_cast<int64_t>(kCheckpointVersion)));
  const NetShape& s = net->shape();
  out.write("op_features", c10::IValue(static_cast<int64_t>(s.op_features)));
  out.write("pair_features", c10::IValue(static_cast<int64_t>(s.pair_features)));
  out.write("edge_features", c10::IValue(static_cast<int64_t>(s.edge_features)));
  out.write("hidden", c10::IValue(static_cast<int64_t>(s.hidden)));
  out.write("layers", c10::IValue(static_cast<int64_t>(s.layers)));
  out.write("training_command", c10::IValue(training_command));
  torch::serialize::OutputArchive weights;
  net->save(weights);
  out.write("weights", weights);
  out.save_to(path);
}

Checkpoint load_checkpoint(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path, "file", "no such checkpoint");
  torch::serialize::InputArchive in;
  try {
    in.load_from(path);
  } catch (const c10::Error& e) {
    throw InputError(path, "file", "not a libtorch archive");
  }
  c10::IValue format;
  if (!in.try_read("format", format) || !format.isString() || format.toStringRef() != kCheckpointFormat)
    throw InputError(path, "format", std::string("not a ").append(kCheckpointFormat).append(" checkpoint"));
  const long version = checkpoint_int(in, path, "version");
  if (version != kCheckpointVersion)
    throw InputError(path, "version",
                     std::string("version ").append(std::to_string(version)).append(", this build reads 1"));
  check_dimension(in, path, "op_features", op_feature_count());
  check_dimension(in, path, "pair_features", pair_feature_count());
  check_dimension(in, path, "edge_features", edge_feature_count());
  NetShape shape{op_feature_count(), pair_feature_count(), edge_feature_count(),
                 static_cast<int>(checkpoint_int(in, path, "hidden")),
                 static_cast<int>(checkpoint_int(in, path, "layers"))};
  Checkpoint c;
  c.net = PlacementNet(shape);
  torch::serialize::InputArchive weights;
  if (!in.try_read("weights", weights)) throw InputError(path, "weights", "missing");
  try {
    c.net->load(weights);
  } catch (const c10::Error& e) {
    throw InputError(path, "weights", "do not match the header's shape");
  }
  c10::IValue command;
  if (in.try_read("training_command", command) && command.isString())
    c.training_command = command.toStringRef();
  c.net->eval();
  return c;
}

} // namespace hs::gnn
