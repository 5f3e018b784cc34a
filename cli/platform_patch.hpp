#pragma once
// The changes a sweep axis makes to a platform file's JSON, so a what-if variant is a few lines of the sweep
// file and not a copy of the platform:
// - a field, by a path of names: /links/pcie_gpu/bandwidth, /devices/gpu0/peak/fp16, /devices/npu0/streams;
// - devices, links and topology nodes added ("like" an existing entry copies it, then the entry's other
//   fields override) or removed (a removed device takes its links, routes and unreachable pairs with it).
// A field must exist (a typo is an error, not a new field), and a quantity keeps its unit family: a value
// replacing "31.5GBps" must be a bandwidth with its unit, so "63" is refused rather than read as 63 B/s.
#include "sim/json_input.hpp"

#include <optional>
#include <string>

namespace hs::cli {

// The unit family of a quantity written with its unit ("31.5GBps"), if the text is one.
std::optional<units::Quantity> unit_family(const std::string& text);

// Checks that `path` names a scalar field of `platform` and returns it; `where` is the path's place in the
// sweep file.
const Json& platform_field(const Json& platform, const std::string& path, const JsonNode& where);
// Sets the field to `value` (checked as above); `value_place` names the value in the sweep file.
void set_platform_field(Json& platform, const std::string& path, const JsonNode& value,
                        const JsonNode& where);
// Applies a variant object {"label", "set": {path: value}, "add": {...}, "remove": {...}}: removals, then
// additions, then fields.
void apply_platform_variant(Json& platform, const JsonNode& variant);

} // namespace hs::cli
