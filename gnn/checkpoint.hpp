#pragma once
// The checkpoint file: libtorch's archive of the weights plus a header (format name, version, feature
// dimensions, network shape, the training command). A file made for other feature dimensions is refused
// with an hs::InputError naming the file, as any other bad input is.
#include "gnn/model.hpp"

#include <string>

namespace hs::gnn {

inline constexpr const char* kCheckpointFormat = "heterosim-gnn-placement";
inline constexpr int kCheckpointVersion = 1;

struct Checkpoint {
  PlacementNet net{nullptr};
  std::string training_command;
};

void save_checkpoint(const std::string& path, PlacementNet& net, const std::string& training_command);
Checkpoint load_checkpoint(const std::string& path);

} // namespace hs::gnn
