// Built instead of the libtorch files when CMake finds no libtorch (or in the sanitizer and fuzz builds):
// gnn-placement stays listed and refuses with the reason.
#include "gnn/proposal.hpp"

#include <stdexcept>

namespace hs::gnn {

Proposal propose(const CostModel&, const std::string&) {
  throw std::runtime_error("gnn-placement: this HeteroSim was built without libtorch (Debian libtorch-dev; "
                           "scripts/setup.sh installs it), so it has no placement network");
}

} // namespace hs::gnn
