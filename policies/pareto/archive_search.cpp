#include "policies/pareto/archive_search.hpp"

#include "policies/pareto/hypervolume.hpp"
#include "policies/pareto/mover.hpp"
#include "policies/pareto/surrogate_screen.hpp"
#include "sim/random.hpp"

#include <algorithm>
#include <optional>
#include <pagmo/utils/hypervolume.hpp>

namespace hs::pareto {
namespace {

std::size_t pick(Rng& rng, std::size_t n) {
  return static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(n) - 1));
}

// Each member's exclusive hypervolume contribution (pagmo, exact); members outside the reference box: 0.
std::vector<double> hv_contributions(const std::vector<std::vector<double>>& pts,
                                     const std::vector<double>& ref) {
  std::vector<std::vector<double>> inside;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    bool ok = true;
    for (std::size_t k = 0; k < ref.size(); ++k)
      ok = ok && pts[i][k] < ref[k];
    if (ok) {
      inside.push_back(pts[i]);
      idx.push_back(i);
    }
  }
  std::vector<double> c(pts.size(), 0.0);
  if (inside.size() < 2 || ref.size() < 2) {
    for (auto i : idx)
      c[i] = 1;
    return c;
  }
  pagmo::hypervolume hv(inside, false);
  const auto contrib = hv.contributions(ref);
  for (std::size_t j = 0; j < idx.size(); ++j)
    c[idx[j]] = contrib[j];
  return c;
}

std::size_t tournament(const std::vector<double>& score, Rng& rng) {
  const std::size_t a = pick(rng, score.size()), b = pick(rng, score.size());
  return score[b] > score[a] ? b : a;
}

// The indices of the k largest scores (ties: the earlier member), the guide's beam.
std::vector<std::size_t> top_k(const std::vector<double>& score, std::size_t k) {
  std::vector<std::size_t> idx(score.size());
  for (std::size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  idx.resize(std::max<std::size_t>(1, std::min(k, idx.size())));
  return idx;
}

// Submits `g`; a child that entered the front reinforces the guide (the online CEM update). Answers the
// child's archive entry when it entered the front, else null.
const Entry* submit_guided(SearchState& state, const Genome& g, const std::string& origin,
                           PriorGuide* guide) {
  const int before = state.evaluations();
  const auto v = state.submit(g, origin);
  if (!v || state.evaluations() == before) return nullptr;
  for (const Entry& e : state.archive().entries())
    if (e.evaluation == state.evaluations() && e.genome == g && !e.fixed_plan) {
      if (guide) guide->reinforce(g);
      return &e;
    }
  return nullptr;
}

// The member with the smallest value on objective `k` (the first of equals).
std::size_t best_on(const std::vector<std::vector<double>>& pts, std::size_t k) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (pts[i][k] < pts[best][k]) best = i;
  return best;
}

// A child around the front's best plan on objective `k`, from that objective's distribution (a new best on it
// sharpens that distribution).
void corner_child(SearchState& state, PriorGuide& guide, std::size_t k, Rng& rng) {
  const auto pts = state.archive().points();
  const std::size_t best = best_on(pts, k);
  const double best_value = pts[best][k];
  const Genome child = guide.propose_corner(state.archive().entries()[best].genome, k, rng);
  if (state.seen(child)) return;
  const Entry* e = submit_guided(state, child, "prior-corner", &guide);
  if (e && e->value.point[k] < best_value) guide.reinforce_corner(child, k);
}

void mover_child(SearchState& state, const Mover& mover, const std::vector<double>& contribution, Rng& rng,
                 PriorGuide* guide) {
  const auto& entries = state.archive().entries();
  Genome child = entries[tournament(contribution, rng)].genome;
  int moves = move_count(rng);
  if (entries.size() > 1 && rng.uniform() < 0.25) {
    // Uniform crossover with a second member: combines what two front plans got right.
    const Genome& other = entries[tournament(contribution, rng)].genome;
    for (std::size_t i = 0; i < child.size(); ++i)
      if (rng.uniform() < 0.5) child[i] = other[i];
    moves = rng.uniform() < 0.5 ? 0 : 1;
  }
  for (int m = 0; m < moves; ++m)
    mover.apply(child, rng);
  if (state.seen(child)) return;
  submit_guided(state, child, "search", guide);
}

// A neighbour of a tournament-drawn member by one to three plain moves.
Candidate moved_child(const SearchState& state, const Mover& mover, const std::vector<double>& contribution,
                      Rng& rng) {
  const Entry& parent = state.archive().entries()[tournament(contribution, rng)];
  Genome g = parent.genome;
  const int moves = move_count(rng);
  for (int m = 0; m < moves; ++m)
    mover.apply(g, rng);
  return {&parent, std::move(g)};
}

// Of a batch of plain-move neighbours, the one the surrogate ranks first (plain moves until it can rank).
void surrogate_child(SearchState& state, SurrogateScreen& screen, const Mover& mover,
                     const std::vector<double>& contribution, Rng& rng, PriorGuide& guide) {
  if (!screen.ready(state)) {
    mover_child(state, mover, contribution, rng, &guide);
    return;
  }
  std::vector<Candidate> batch;
  for (int c = 0; c < guide.options().surrogate_batch; ++c)
    batch.push_back(moved_child(state, mover, contribution, rng));
  if (const auto child = screen.best_of(state, std::move(batch)))
    submit_guided(state, *child, "surrogate", &guide);
}

// A neighbour of a beam member from the guide's distribution; of `beam_batch` such, the one the surrogate
// ranks first, where it can rank.
void beam_child(SearchState& state, PriorGuide& guide, const std::vector<double>& contribution, Rng& rng,
                SurrogateScreen& screen) {
  const auto beam = top_k(contribution, static_cast<std::size_t>(guide.options().beam));
  const auto make = [&] {
    const Entry& parent = state.archive().entries()[beam[pick(rng, beam.size())]];
    return Candidate{&parent, guide.propose(parent.genome, rng)};
  };
  if (guide.options().beam_batch > 1 && screen.ready(state)) {
    std::vector<Candidate> batch;
    for (int c = 0; c < guide.options().beam_batch; ++c)
      batch.push_back(make());
    if (const auto child = screen.best_of(state, std::move(batch)))
      submit_guided(state, *child, "prior", &guide);
    return;
  }
  const Genome child = make().genome;
  if (!state.seen(child)) submit_guided(state, child, "prior", &guide);
}

// Which kind of child comes next, with a guide: arm 0 the plain moves, 1 the guide's beam, 2 + k objective
// k's corner, the last the surrogate's pick of plain moves. Each arm starts at its share of
// PriorGuideOptions; once `warm_up` evaluations are made, arms are drawn in proportion to their recent
// hypervolume gain per evaluation (an exponential average, step `gain_step`), each kept at `arm_floor` at
// least (a corner: `corner_floor`), so the budget goes where the front still moves.
class Allocation {
public:
  Allocation(const SearchState& state, const PriorGuideOptions& o, std::size_t objectives)
      : o_(o), share_(3 + objectives), gain_(3 + objectives, 0.0), start_(state.evaluations()),
        hv_(hypervolume(state.archive().points(), state.problem().reference_point())) {
    share_[0] = 1 - o.share;
    share_[1] = o.share * (1 - o.corner_share);
    for (std::size_t k = 0; k < objectives; ++k)
      share_[2 + k] = o.share * o.corner_share / static_cast<double>(objectives);
    for (double& x : share_)
      x *= 1 - o.surrogate_share;
    share_.back() = o.surrogate_share;
  }

  std::size_t draw(const SearchState& state, Rng& rng) const {
    std::vector<double> w = share_;
    double total = 0, floors = 0;
    for (std::size_t a = 0; a < w.size(); ++a) {
      total += gain_[a];
      floors += floor(a);
    }
    if (state.evaluations() - start_ >= o_.warm_up && total > 0)
      for (std::size_t a = 0; a < w.size(); ++a)
        w[a] = floor(a) + (1 - floors) * gain_[a] / total;
    double u = rng.uniform();
    for (std::size_t a = 0; a + 1 < w.size(); ++a) {
      if (u < w[a]) return a;
      u -= w[a];
    }
    return w.size() - 1;
  }

  // After arm `a`'s child: its gain, where it made an evaluation.
  void record(const SearchState& state, std::size_t a, int evaluations_before) {
    if (state.evaluations() == evaluations_before) return;
    const double hv = hypervolume(state.archive().points(), state.problem().reference_point());
    gain_[a] = (1 - o_.gain_step) * gain_[a] + o_.gain_step * (hv - hv_);
    hv_ = hv;
  }

private:
  double floor(std::size_t a) const {
    if (a + 1 == share_.size()) return o_.surrogate_share > 0 ? o_.arm_floor : 0.0;
    return a < 2 ? o_.arm_floor : o_.corner_floor;
  }
  PriorGuideOptions o_;
  std::vector<double> share_, gain_;
  int start_;
  double hv_;
};

} // namespace

std::vector<std::pair<Genome, std::string>> seed_genomes(const Encoding& enc,
                                                         const std::vector<Baseline>& baselines) {
  std::vector<std::pair<Genome, std::string>> out;
  for (const auto& b : baselines)
    out.emplace_back(enc.project(b.plan), b.policy);
  for (DeviceId d = 0; d < enc.base().platform().device_count(); ++d)
    out.emplace_back(enc.all_on(d),
                     "all-on-" + enc.base().platform().devices[static_cast<std::size_t>(d)].name);
  // The same placements with every fusion on: fusion rarely hurts, so these start near the front.
  const std::size_t plain = out.size();
  if (!enc.candidates().fusions.empty())
    for (std::size_t i = 0; i < plain; ++i) {
      Genome g = out[i].first;
      for (std::size_t f = 0; f < enc.candidates().fusions.size(); ++f)
        g[enc.fusion_gene(f)] = 1;
      out.emplace_back(std::move(g), out[i].second + "+fused");
    }
  return out;
}

void seed_search(SearchState& state, const std::vector<Baseline>& baselines, const std::string& origin) {
  for (const auto& b : baselines)
    state.submit_baseline(b);
  for (const auto& [g, name] : seed_genomes(state.problem().encoding(), baselines))
    state.submit(g, origin + ":" + name);
}

void run_archive_search(SearchState& state, const std::vector<Baseline>& baselines, std::uint64_t seed,
                        PriorGuide* guide) {
  Rng rng(seed ^ 0x5EA2C4A2C41FEULL);
  const Encoding& enc = state.problem().encoding();
  seed_search(state, baselines, "search-seed");
  if (guide)
    for (const Genome& g : guide->seeds())
      submit_guided(state, g, "prior-seed", guide);
  const KinClasses kin = find_kin(enc);
  const Mover mover(enc, kin);
  const std::size_t objectives = state.problem().reference_point().size();
  // Only a guided search screens its children.
  std::optional<SurrogateScreen> surrogate;
  if (guide) surrogate.emplace(state, kin);
  std::optional<Allocation> allocation;
  if (guide && guide->options().adaptive) allocation.emplace(state, guide->options(), objectives);
  // A bound on tries, so a space smaller than the budget ends the search instead of looping.
  long long tries_left = 64LL * state.budget() + 1000;
  while (!state.exhausted() && tries_left-- > 0 && !state.archive().empty()) {
    const auto contribution = hv_contributions(state.archive().points(), state.problem().reference_point());
    if (allocation) {
      const std::size_t arm = allocation->draw(state, rng);
      const int before = state.evaluations();
      if (arm == 0)
        mover_child(state, mover, contribution, rng, guide);
      else if (arm == 1)
        beam_child(state, *guide, contribution, rng, *surrogate);
      else if (arm == 2 + objectives)
        surrogate_child(state, *surrogate, mover, contribution, rng, *guide);
      else
        corner_child(state, *guide, arm - 2, rng);
      allocation->record(state, arm, before);
      continue;
    }
    if (guide && rng.uniform() < guide->options().share) {
      if (rng.uniform() < guide->options().corner_share)
        corner_child(state, *guide, pick(rng, objectives), rng);
      else
        beam_child(state, *guide, contribution, rng, *surrogate);
      continue;
    }
    mover_child(state, mover, contribution, rng, guide);
  }
  state.finish();
}

} // namespace hs::pareto
