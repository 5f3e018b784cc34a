#pragma once
// The checkpoint's weights for the Eigen forward pass (gnn/net_forward.hpp). Included only by the gnn/ files
// compiled against libtorch.
#include "gnn/model.hpp"
#include "gnn/net_forward.hpp"

namespace hs::gnn {

NetWeights weights_of(const PlacementNet& net);

} // namespace hs::gnn
