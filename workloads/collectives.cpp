#include "workloads/collectives.hpp"

#include "sim/nearest_name.hpp"
#include "workloads/layers.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace hs::collectives {

namespace {

using layers::element_bytes;

// Emits step ops rank by rank; `last[r]` is the op rank r finished most recently, so each new step on a
// rank follows the one before it.
class Emitter {
public:
  Emitter(GraphBuilder& b, const CollectiveSpec& s) : b_(b), s_(s), last_(s.devices.size(), -1) {}

  void start(const std::vector<OpId>& inputs) {
    for (std::size_t r = 0; r < last_.size(); ++r)
      last_[r] = r < inputs.size() && inputs[r] >= 0 ? inputs[r] : step(static_cast<int>(r), "start", 0, {});
  }

  // A step on `rank` that receives each (sender op, bytes) in `from` and touches `touched` bytes of its
  // own memory (a reduce: the chunk received, its own, and the sum).
  OpId step(int rank, const std::string& label, double touched,
            const std::vector<std::pair<OpId, double>>& from) {
    auto h = b_.op(s_.name + "." + label + ".r" + std::to_string(rank));
    h.kind("collective").precision(s_.precision).pinned_to({s_.devices[static_cast<std::size_t>(rank)]});
    if (touched > 0)
      h.flops(touched / 3 / element_bytes(s_.precision)).reads(touched * 2 / 3).writes(touched / 3);
    const OpId own = last_[static_cast<std::size_t>(rank)];
    if (own >= 0) link(own, h.id(), 0.0);
    for (const auto& [sender, bytes] : from)
      link(sender, h.id(), bytes);
    last_[static_cast<std::size_t>(rank)] = h.id();
    return h.id();
  }

  // Ring reduce-scatter over `ranks` (rank ids, in ring order) of chunks of `chunk` bytes: after it, each
  // holds one fully reduced chunk. `length`: the ring's ranks, when it stands for more than `ranks`
  // (CollectiveSpec::ring_ranks); `length` - 1 steps.
  void ring_reduce_scatter(const std::vector<int>& ranks, double chunk, const std::string& phase,
                           std::size_t length = 0) {
    ring(ranks, chunk, phase, 3 * chunk, length);
  }
  // Ring all-gather: each rank's chunk travels n-1 hops; forwarding touches nothing.
  void ring_all_gather(const std::vector<int>& ranks, double chunk, const std::string& phase,
                       std::size_t length = 0) {
    ring(ranks, chunk, phase, 0.0, length);
  }

  // Binary tree over `ranks` (heap order: the parent of position i is (i-1)/2): children send their
  // buffer up and parents reduce it, then the root's result goes back down.
  void tree_all_reduce(const std::vector<int>& ranks, double bytes) {
    const int n = static_cast<int>(ranks.size());
    std::vector<OpId> up(static_cast<std::size_t>(n), -1);
    for (int i = n - 1; i >= 0; --i) { // deepest first: a parent reduces after all its children sent
      std::vector<std::pair<OpId, double>> from;
      for (int c : {2 * i + 1, 2 * i + 2})
        if (c < n) from.emplace_back(up[static_cast<std::size_t>(c)], bytes);
      const double touched = from.empty() ? 0.0 : 3 * bytes * static_cast<double>(from.size());
      up[static_cast<std::size_t>(i)] =
          from.empty() ? last_[static_cast<std::size_t>(ranks[static_cast<std::size_t>(i)])]
                       : step(ranks[static_cast<std::size_t>(i)], "up", touched, from);
    }
    for (int i = 1; i < n; ++i) {
      const OpId parent = last_[static_cast<std::size_t>(ranks[static_cast<std::size_t>((i - 1) / 2)])];
      step(ranks[static_cast<std::size_t>(i)], "down", 0.0, {{parent, bytes}});
    }
  }

  // Pipelined chain from ranks[0]: the buffer goes in `chunks` slices, each rank forwarding a slice as it
  // arrives. The first rank sends slice j+1 when the second acknowledges slice j (an empty message), or
  // all slices would leave at once and share its link.
  void chain_broadcast(const std::vector<int>& ranks, double bytes, int chunks) {
    const double slice = bytes / chunks;
    std::vector<OpId> received(ranks.size(), -1);
    for (int j = 0; j < chunks; ++j) {
      std::vector<std::pair<OpId, double>> ack;
      if (j > 0) ack.emplace_back(received[1], 0.0);
      OpId sender = step(ranks[0], "send" + std::to_string(j), 0.0, ack);
      for (std::size_t i = 1; i < ranks.size(); ++i) {
        received[i] = step(ranks[i], "recv" + std::to_string(j), 0.0, {{sender, slice}});
        sender = received[i];
      }
    }
  }

  void direct_all_to_all(int n, double per_pair) {
    const std::vector<OpId> senders = last_;
    for (int r = 0; r < n; ++r) {
      std::vector<std::pair<OpId, double>> from;
      for (int q = 0; q < n; ++q)
        if (q != r) from.emplace_back(senders[static_cast<std::size_t>(q)], per_pair);
      step(r, "a2a", 0.0, from);
    }
  }

  const std::vector<OpId>& last() const { return last_; }

  // How the n-1 steps of a ring of n ranks are emitted: at most max_ring_steps steps, each standing for
  // `per` consecutive ones: k chunks sent as one and k reduces as one, the same bytes on the same links (see
  // the header).
  std::size_t ring_stride(std::size_t n) const {
    const std::size_t steps = n - 1;
    const std::size_t cap = s_.max_ring_steps > 0 ? static_cast<std::size_t>(s_.max_ring_steps) : steps;
    return (steps + cap - 1) / cap;
  }

  // Emitted step s (1-based) of a ring of `length` ranks over `ranks`, standing for ring steps s .. s + per
  // - 1; each rank receives from its predecessor in `ranks`.
  void ring_step(const std::vector<int>& ranks, double chunk, const std::string& phase, double touched,
                 std::size_t s, std::size_t per, std::size_t length) {
    const std::size_t n = ranks.size();
    const auto k = static_cast<double>(std::min(per, length - s));
    std::vector<OpId> before(n);
    for (std::size_t i = 0; i < n; ++i)
      before[i] = last_[static_cast<std::size_t>(ranks[i])];
    for (std::size_t i = 0; i < n; ++i)
      step(ranks[i], phase + std::to_string(s), touched * k, {{before[(i + n - 1) % n], chunk * k}});
  }

private:
  void ring(const std::vector<int>& ranks, double chunk, const std::string& phase, double touched,
            std::size_t length) {
    length = std::max(length, ranks.size());
    const std::size_t per = ring_stride(length);
    for (std::size_t s = 1; s < length; s += per)
      ring_step(ranks, chunk, phase, touched, s, per, length);
  }

  void link(OpId from, OpId to, double bytes) {
    b_.tensor(s_.name + ".t" + std::to_string(tensors_++), bytes, from, {to});
  }

  GraphBuilder& b_;
  const CollectiveSpec& s_;
  std::vector<OpId> last_;
  int tensors_ = 0;
};

std::vector<int> iota(int from, int count, int stride = 1) {
  std::vector<int> r;
  for (int i = 0; i < count; ++i)
    r.push_back(from + i * stride);
  return r;
}

void check(const CollectiveSpec& s) {
  const int n = static_cast<int>(s.devices.size());
  if (n < 2)
    throw std::invalid_argument("a collective needs at least 2 ranks (got " + std::to_string(n) + ")");
  if (!(s.bytes > 0) || !std::isfinite(s.bytes))
    throw std::invalid_argument("a collective's size must be a positive number of bytes");
  if (s.chunks < 0) throw std::invalid_argument("chunks must be 0 (one per rank) or more");
  if (s.max_ring_steps < 0) throw std::invalid_argument("max_ring_steps must be 0 (every step) or more");
  std::set<std::string> seen; // a set: a thousand ranks, and a DP step has a collective per bucket
  for (const auto& d : s.devices)
    if (!seen.insert(d).second)
      throw std::invalid_argument("device '" + d +
                                  "' holds two ranks: a collective's ranks are distinct devices");
  const bool ok = (s.algorithm == Algorithm::Ring && s.op != Collective::AllToAll) ||
                  (s.algorithm == Algorithm::Tree && s.op == Collective::AllReduce) ||
                  (s.algorithm == Algorithm::Direct && s.op == Collective::AllToAll) ||
                  (s.algorithm == Algorithm::Hierarchical && s.op == Collective::AllReduce);
  if (!ok)
    throw std::invalid_argument(collective_name(s.op) + " has no " + algorithm_name(s.algorithm) +
                                " algorithm (ring: all-reduce, all-gather, reduce-scatter, broadcast; tree "
                                "and hierarchical: all-reduce; direct: all-to-all)");
  if (s.channels < 1) throw std::invalid_argument("a collective needs at least 1 channel");
  if (s.channels > 1 && (s.algorithm != Algorithm::Ring || s.op == Collective::Broadcast))
    throw std::invalid_argument("channels split ring all-reduce, all-gather and reduce-scatter only");
  if (s.channels > 1 && s.group_size > 0 && n % s.group_size != 0)
    throw std::invalid_argument("channels over groups of " + std::to_string(s.group_size) +
                                " ranks need the groups to divide the " + std::to_string(n) + " ranks");
  if (s.ring_ranks != 0 && s.ring_ranks < n)
    throw std::invalid_argument("a ring folded onto " + std::to_string(n) +
                                " ranks stands for at least as many (got " + std::to_string(s.ring_ranks) +
                                ")");
  if (s.ring_ranks > n && ((s.algorithm != Algorithm::Ring && s.algorithm != Algorithm::Hierarchical) ||
                           s.op == Collective::Broadcast || s.channels > 1))
    throw std::invalid_argument("a folded ring is a ring or hierarchical all-reduce, or a ring all-gather or "
                                "reduce-scatter, on one channel");
  if (s.algorithm == Algorithm::Hierarchical &&
      (s.group_size < 2 || n % s.group_size != 0 || n == s.group_size))
    throw std::invalid_argument("hierarchical all-reduce needs a group size of at least 2 that divides the " +
                                std::to_string(n) + " ranks into 2 or more groups (got " +
                                std::to_string(s.group_size) + ")");
  if (s.ring_ranks > n && s.algorithm == Algorithm::Hierarchical && s.ring_ranks % s.group_size != 0)
    throw std::invalid_argument("a hierarchical all-reduce folded from " + std::to_string(s.ring_ranks) +
                                " ranks needs groups of " + std::to_string(s.group_size) + " to divide them");
}

// Channel c's ring (see CollectiveSpec::channels): node k entered at local rank (c + k) mod g and left at
// the next node's entry, the last node left at c itself so that the ring closes on a rail too (at c + 1
// when the last node's entry is c already, N - 1 being a multiple of g); in between, the node's other ranks
// downwards from the entry.
std::vector<int> channel_ring(int n, int g, int c) {
  if (g <= 1 || g >= n) return iota(0, n);
  const int nodes = n / g;
  const auto local = [g](int x) { return (x % g + g) % g; };
  std::vector<int> order;
  for (int k = 0; k < nodes; ++k) {
    const int entry = local(c + k);
    int exit = k + 1 < nodes ? local(c + k + 1) : local(c);
    if (exit == entry) exit = local(c + 1);
    order.push_back(k * g + entry);
    for (int i = 1; i < g; ++i)
      if (local(entry - i) != exit) order.push_back(k * g + local(entry - i));
    order.push_back(k * g + exit);
  }
  return order;
}

// The collective as `channels` rings of bytes / channels each, side by side, then one op per rank that
// waits for all of them. The channels' steps are emitted step by step across channels, so that a rank's
// stream, which runs its ops in topological order (smallest id first among the ready), takes step s of every
// channel before step s + 1 of any: the channels run as NCCL's do, on their own thread blocks at once.
std::vector<OpId> channelled(GraphBuilder& b, const CollectiveSpec& spec, const std::vector<OpId>& inputs) {
  const int n = static_cast<int>(spec.devices.size());
  const auto count = static_cast<std::size_t>(spec.channels);
  std::vector<CollectiveSpec> parts(count, spec);
  std::vector<Emitter> channel;
  std::vector<std::vector<int>> rings;
  channel.reserve(count); // Emitters keep a reference to their spec: parts never moves
  for (std::size_t c = 0; c < count; ++c) {
    parts[c].bytes = spec.bytes / spec.channels;
    parts[c].name = spec.name + ".ch" + std::to_string(c);
    channel.emplace_back(b, parts[c]);
    channel[c].start(inputs);
    rings.push_back(channel_ring(n, spec.group_size, static_cast<int>(c)));
  }
  const double chunk = spec.bytes / spec.channels / n;
  const std::size_t per = channel.front().ring_stride(static_cast<std::size_t>(n));
  for (const bool reduce : {true, false}) {
    if (reduce ? spec.op == Collective::AllGather : spec.op == Collective::ReduceScatter) continue;
    for (std::size_t s = 1; s < static_cast<std::size_t>(n); s += per)
      for (std::size_t c = 0; c < count; ++c)
        channel[c].ring_step(rings[c], chunk, reduce ? "rs" : "ag", reduce ? 3 * chunk : 0.0, s, per,
                             static_cast<std::size_t>(n));
  }
  std::vector<std::vector<OpId>> ends;
  for (const auto& e : channel)
    ends.push_back(e.last());
  CollectiveSpec joined = spec;
  joined.name = spec.name + ".channels";
  Emitter join(b, joined);
  std::vector<OpId> done(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    std::vector<std::pair<OpId, double>> from;
    for (const auto& end : ends)
      from.emplace_back(end[static_cast<std::size_t>(r)], 0.0);
    done[static_cast<std::size_t>(r)] = join.step(r, "done", 0.0, from);
  }
  return done;
}

} // namespace

std::vector<OpId> append_collective(GraphBuilder& b, const CollectiveSpec& spec,
                                    const std::vector<OpId>& inputs) {
  check(spec);
  if (spec.channels > 1) return channelled(b, spec, inputs);
  const int n = static_cast<int>(spec.devices.size());
  Emitter e(b, spec);
  e.start(inputs);
  const std::vector<int> all = iota(0, n);
  const auto length = static_cast<std::size_t>(std::max(n, spec.ring_ranks)); // folded: more than n
  const double chunk = spec.bytes / static_cast<double>(length);
  switch (spec.op) {
  case Collective::AllReduce:
    if (spec.algorithm == Algorithm::Tree) {
      e.tree_all_reduce(all, spec.bytes);
    } else if (spec.algorithm == Algorithm::Hierarchical) {
      const int g = spec.group_size, groups = n / g;
      const auto across = length / static_cast<std::size_t>(g); // the groups the rail rings stand for
      const double rail_chunk = spec.bytes / g / static_cast<double>(across);
      for (int k = 0; k < groups; ++k)
        e.ring_reduce_scatter(iota(k * g, g), spec.bytes / g, "local_rs");
      for (int i = 0; i < g; ++i) { // the ranks holding shard i's partial sums, one per group
        const auto rail = iota(i, groups, g);
        e.ring_reduce_scatter(rail, rail_chunk, "rail_rs", across);
        e.ring_all_gather(rail, rail_chunk, "rail_ag", across);
      }
      for (int k = 0; k < groups; ++k)
        e.ring_all_gather(iota(k * g, g), spec.bytes / g, "local_ag");
    } else {
      e.ring_reduce_scatter(all, chunk, "rs", length);
      e.ring_all_gather(all, chunk, "ag", length);
    }
    break;
  case Collective::ReduceScatter:
    e.ring_reduce_scatter(all, chunk, "rs", length);
    break;
  case Collective::AllGather:
    e.ring_all_gather(all, chunk, "ag", length);
    break;
  case Collective::Broadcast:
    e.chain_broadcast(all, spec.bytes, spec.chunks > 0 ? spec.chunks : n);
    break;
  case Collective::AllToAll:
    e.direct_all_to_all(n, chunk);
    break;
  }
  return e.last();
}

double bus_bandwidth_factor(Collective op, int ranks) {
  const double n = ranks;
  switch (op) {
  case Collective::AllReduce:
    return 2 * (n - 1) / n;
  case Collective::Broadcast:
    return 1.0;
  default:
    return (n - 1) / n;
  }
}

namespace {
const std::vector<std::pair<std::string, Collective>>& collective_names() {
  static const std::vector<std::pair<std::string, Collective>> names = {
      {"all-reduce", Collective::AllReduce},
      {"all-gather", Collective::AllGather},
      {"reduce-scatter", Collective::ReduceScatter},
      {"broadcast", Collective::Broadcast},
      {"all-to-all", Collective::AllToAll}};
  return names;
}
const std::vector<std::pair<std::string, Algorithm>>& algorithm_names() {
  static const std::vector<std::pair<std::string, Algorithm>> names = {
      {"ring", Algorithm::Ring},
      {"tree", Algorithm::Tree},
      {"direct", Algorithm::Direct},
      {"hierarchical", Algorithm::Hierarchical}};
  return names;
}
template <class T>
T find_named(const std::vector<std::pair<std::string, T>>& names, const std::string& name, const char* what) {
  std::vector<std::string> known;
  for (const auto& [n, v] : names) {
    if (n == name) return v;
    known.push_back(n);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + name + "'" + did_you_mean(name, known) +
                              " (known: " + name_list(known) + ")");
}
template <class T> std::string name_of(const std::vector<std::pair<std::string, T>>& names, T value) {
  for (const auto& [n, v] : names)
    if (v == value) return n;
  return "?";
}
} // namespace

Collective collective_named(const std::string& name) {
  return find_named(collective_names(), name, "collective");
}
Algorithm algorithm_named(const std::string& name) {
  return find_named(algorithm_names(), name, "collective algorithm");
}
std::string collective_name(Collective op) {
  return name_of(collective_names(), op);
}
std::string algorithm_name(Algorithm a) {
  return name_of(algorithm_names(), a);
}

} // namespace hs::collectives
