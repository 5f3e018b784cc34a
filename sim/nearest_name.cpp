#include "sim/nearest_name.hpp"

#include <algorithm>

namespace hs {

namespace {
// Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as one edit
// (optimal string alignment), case-insensitive: "hetf" is one edit from "heft", "HEFT" none.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i)
    at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j)
    at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  return at(n, m);
}
} // namespace

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::size_t best = limit + 1;
  const std::string* nearest = nullptr;
  bool tie = false;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d < best) {
      best = d;
      nearest = &k;
      tie = false;
    } else if (d == best) {
      tie = true;
    }
  }
  return nearest && !tie && *nearest != name ? " (did you mean '" + *nearest + "'?)" : "";
}

std::string name_list(const std::vector<std::string>& known) {
  std::string list;
  for (const auto& k : known)
    list += (list.empty() ? "" : ", ") + k;
  return list;
}

} // namespace hs
