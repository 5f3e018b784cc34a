#pragma once
// What a GPU's architecture name (a datasheet figure, ComputeUnits::architecture) says that transfers
// between GPUs: the vendor, and the generation as an ordinal within the vendor's line. NVIDIA generations
// are the architecture's CUDA compute capability (Maxwell 5.2, Pascal 6.0/6.1 as 6, Volta 7.0, Turing 7.5,
// ...); AMD's count GCN 4 (Polaris) as 4, GCN 5 (Vega) as 5, then CDNA 1-3 as 6-8. An unknown name has no
// traits: the learned model sees its features as missing.
#include <string>

namespace hs {

struct ArchitectureTraits {
  bool known = false;
  bool amd = false;
  double generation = 0;
  int position = 0; // in the vendor's line, one per architecture (Kepler 0, Maxwell 1, ...; Polaris 0, ...)
};

ArchitectureTraits architecture_traits(const std::string& architecture);

// The NVIDIA architecture of a CUDA compute capability ("8.6" -> "Ampere"); empty when not known.
std::string nvidia_architecture(const std::string& compute_capability);

} // namespace hs
