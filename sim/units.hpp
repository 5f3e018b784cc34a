#pragma once
// Human-readable quantities ("32GBps", "1.5us", "19.5Tf", "300W", "80GiB") as well as plain SI numbers.
#include <string>
#include <string_view>

namespace hs::units {

enum class Quantity { Time, Bandwidth, Flops, Power, Bytes, Energy, Plain };

// Throws std::invalid_argument with a message naming the expected unit family.
double parse(std::string_view text, Quantity q);

std::string_view name(Quantity q);

// Short human-readable forms for summaries ("12.3 ms", "4.1 GB").
std::string format_time(double seconds);
std::string format_bytes(double bytes);
std::string format_energy(double joules);
std::string format_flops(double flops);

} // namespace hs::units
