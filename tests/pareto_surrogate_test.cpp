// Kin super-nodes (policies/pareto/kin.hpp) and the search's additive surrogate (surrogate.hpp,
// surrogate_screen.hpp): kin are what their definition says, a kin move's subset is periodic and reaches
// "the same layers of every step", the surrogate recovers exactly a target that is additive in its
// features, and the screen picks the candidate its own predictions rank first.
#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/kin.hpp"
#include "policies/pareto/problem.hpp"
#include "policies/pareto/search_state.hpp"
#include "policies/pareto/surrogate.hpp"
#include "policies/pareto/surrogate_screen.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <set>

using namespace hs;
using namespace hs::pareto;

namespace {

struct Space {
  Graph graph;
  Platform platform = load_platform(test::source_dir() + "/platforms/hetero-server.json");
  CostModel cost{graph, platform};
  ParetoProblem problem{cost, ProblemOptions{}};
  explicit Space(const std::string& workload) : graph(load_workload(workload, 5)) {}
};

Genome random_genome(const Encoding& enc, Rng& rng) {
  Genome g(enc.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = static_cast<int>(rng.integer(0, enc.upper()[i]));
  return g;
}

} // namespace

TEST_CASE("kin super-nodes have the same ops one for one and the same devices, a transformer is mostly kin") {
  Space s("bert-base:precision=fp16");
  const Encoding& enc = s.problem.encoding();
  const KinClasses kin = find_kin(enc);
  const auto& nodes = enc.coarse().nodes;
  std::set<std::size_t> seen;
  std::size_t members = 0, movable = 0, largest = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n)
    movable += enc.upper()[n] > 0;
  for (const auto& cls : kin.classes) {
    REQUIRE(cls.size() >= 2);
    largest = std::max(largest, cls.size());
    members += cls.size();
    const SuperNode& first = nodes[cls.front()];
    for (std::size_t m : cls) {
      CHECK(seen.insert(m).second); // classes are disjoint
      CHECK(enc.upper()[m] > 0);
      const SuperNode& other = nodes[m];
      CHECK(other.devices == first.devices);
      REQUIRE(other.ops.size() == first.ops.size());
      for (std::size_t i = 0; i < other.ops.size(); ++i) {
        const Op& a = s.graph.ops[static_cast<std::size_t>(first.ops[i])];
        const Op& b = s.graph.ops[static_cast<std::size_t>(other.ops[i])];
        CHECK(a.kind == b.kind);
        CHECK(a.flops == b.flops);
        CHECK(a.bytes_read == b.bytes_read);
        CHECK(a.bytes_written == b.bytes_written);
      }
    }
  }
  CHECK(kin.coverage == doctest::Approx(static_cast<double>(members) / static_cast<double>(movable)));
  // BERT-base's 12 identical layers: most super-nodes have kin, and a class runs through every layer.
  CHECK(kin.coverage > 0.9);
  CHECK(largest % 12 == 0);
  // A random DAG's ops differ in size, so none are kin.
  Space r("random:ops=40,precision=fp16");
  CHECK(find_kin(r.problem.encoding()).classes.empty());
  CHECK(find_kin(r.problem.encoding()).coverage == 0.0);
}

TEST_CASE("a kin subset repeats with a period dividing the class and reaches the same layers of every step") {
  std::vector<std::size_t> members(24);
  for (std::size_t i = 0; i < members.size(); ++i)
    members[i] = 100 + i; // two steps of 12 layers
  const std::set<std::size_t> layers_5_7_9 = {105, 107, 109, 117, 119, 121};
  Rng rng(7);
  bool reached = false;
  for (int draw = 0; draw < 4000; ++draw) {
    const auto sub = kin_subset(members, rng);
    REQUIRE(!sub.empty());
    const std::set<std::size_t> in(sub.begin(), sub.end());
    CHECK(in.size() == sub.size());
    bool periodic = false;
    for (std::size_t p = 1; p <= members.size() && !periodic; ++p) {
      if (members.size() % p != 0) continue;
      periodic = true;
      for (std::size_t i = 0; i + p < members.size(); ++i)
        periodic = periodic && in.count(members[i]) == in.count(members[i + p]);
    }
    CHECK(periodic);
    reached = reached || in == layers_5_7_9;
  }
  CHECK(reached);
}

TEST_CASE("the surrogate recovers a target additive in devices per kin class, rewrite genes and cut pairs") {
  for (const char* workload : {"random:ops=40,precision=fp16", "bert-base:precision=fp16"}) {
    CAPTURE(workload);
    Space s(workload);
    const Encoding& enc = s.problem.encoding();
    const KinClasses kin = find_kin(enc);
    // A target of exactly the surrogate's form: a weight per (class, device index), per rewrite gene
    // value, and per tensor-joined pair of super-nodes on different devices.
    Rng weights(11);
    std::vector<std::size_t> class_of(enc.coarse().nodes.size());
    for (std::size_t n = 0; n < class_of.size(); ++n)
      class_of[n] = 1000 + n;
    for (std::size_t c = 0; c < kin.classes.size(); ++c)
      for (std::size_t m : kin.classes[c])
        class_of[m] = c;
    std::map<std::pair<std::size_t, int>, double> w_node;
    std::vector<std::vector<double>> w_gene(enc.size());
    for (std::size_t n = 0; n < enc.coarse().nodes.size(); ++n)
      for (int v = 0; v <= enc.upper()[n]; ++v)
        w_node.try_emplace({class_of[n], v}, v == 0 ? 0.0 : weights.uniform(-1, 1));
    for (std::size_t i = enc.coarse().nodes.size(); i < enc.size(); ++i)
      for (int v = 0; v <= enc.upper()[i]; ++v)
        w_gene[i].push_back(v == 0 ? 0.0 : weights.uniform(-1, 1));
    std::map<std::pair<std::size_t, std::size_t>, double> w_cut;
    std::set<std::pair<std::size_t, std::size_t>> joined;
    const auto& node_of = enc.coarse().node_of;
    for (const Tensor& t : s.graph.tensors)
      for (OpId c : t.consumers) {
        const auto a = static_cast<std::size_t>(node_of[static_cast<std::size_t>(t.producer)]);
        const auto b = static_cast<std::size_t>(node_of[static_cast<std::size_t>(c)]);
        if (a == b || enc.upper()[a] + enc.upper()[b] == 0) continue;
        joined.insert({std::min(a, b), std::max(a, b)});
        const auto key = std::minmax(class_of[a], class_of[b]);
        w_cut.try_emplace({key.first, key.second}, weights.uniform(-1, 1));
      }
    const auto target = [&](const Genome& g) {
      double t = 0.5;
      const auto& nodes = enc.coarse().nodes;
      for (std::size_t n = 0; n < nodes.size(); ++n)
        t += w_node.at({class_of[n], g[n]});
      for (std::size_t i = nodes.size(); i < enc.size(); ++i)
        t += w_gene[i][static_cast<std::size_t>(g[i])];
      for (const auto& [a, b] : joined)
        if (nodes[a].devices[static_cast<std::size_t>(g[a])] !=
            nodes[b].devices[static_cast<std::size_t>(g[b])]) {
          const auto key = std::minmax(class_of[a], class_of[b]);
          t += w_cut.at({key.first, key.second});
        }
      return t;
    };
    AdditiveSurrogate model(enc, kin, 1, 1e-10);
    Rng rng(3);
    const int samples = static_cast<int>(model.features()) * 3 + 50;
    for (int i = 0; i < samples; ++i) {
      const Genome g = random_genome(enc, rng);
      model.add(g, {target(g)});
    }
    model.fit();
    for (int i = 0; i < 50; ++i) {
      const Genome g = random_genome(enc, rng);
      CHECK(model.predict(g)[0] == doctest::Approx(target(g)).epsilon(1e-6));
    }
  }
}

TEST_CASE("the screen learns every evaluated plan and picks the candidate its predictions add most to") {
  Space s("random:ops=40,precision=fp16");
  const Encoding& enc = s.problem.encoding();
  SearchState state(s.problem, 200);
  Rng rng(5);
  for (int i = 0; i < 60; ++i)
    state.submit(random_genome(enc, rng), "test");
  SurrogateScreen screen(state, find_kin(enc));
  REQUIRE(screen.ready(state));
  const auto& entries = state.archive().entries();
  std::vector<Candidate> batch;
  for (int i = 0; i < 40; ++i) {
    const Entry& parent =
        entries[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(entries.size()) - 1))];
    Genome g = parent.genome;
    g[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(enc.coarse().nodes.size()) - 1))] = 0;
    batch.push_back({&parent, g});
  }
  const auto picked = screen.best_of(state, batch);
  REQUIRE(picked);
  CHECK_FALSE(state.seen(*picked));
  // By brute force: the unseen candidate whose predicted point adds most hypervolume to the archive.
  const auto& ref = s.problem.reference_point();
  const double now = hypervolume(state.archive().points(), ref);
  double best_gain = -1;
  for (const Candidate& c : batch) {
    if (state.seen(c.genome)) continue;
    auto pts = state.archive().points();
    pts.push_back(screen.predict(state, *c.parent, c.genome));
    best_gain = std::max(best_gain, hypervolume(pts, ref) - now);
  }
  if (best_gain > 0) {
    const Candidate* chosen = nullptr;
    for (const Candidate& c : batch)
      if (c.genome == *picked) chosen = &c;
    REQUIRE(chosen);
    auto pts = state.archive().points();
    pts.push_back(screen.predict(state, *chosen->parent, chosen->genome));
    CHECK(hypervolume(pts, ref) - now == doctest::Approx(best_gain));
  }
  // A candidate is predicted from its parent: the parent itself is predicted at its own evaluated point.
  for (const Entry& e : entries)
    for (std::size_t k = 0; k < e.value.point.size(); ++k)
      CHECK(screen.predict(state, e, e.genome)[k] == doctest::Approx(e.value.point[k]));
}
