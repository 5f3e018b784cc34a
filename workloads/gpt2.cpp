// GPT-2 (Radford et al. 2019; sizes from the released checkpoints): pre-layer-norm decoder with learned
// positions and the output head tied to the token embedding. Inference is a prefill of the prompt followed
// by `decode` single-token steps; each step appends its keys and values to a per-layer KV cache whose
// tensors grow with the position and are read by every later step. Training is one forward/backward pass
// over `seq` tokens with the language-model loss.
#include "workloads/gpt2.hpp"

#include "sim/error.hpp"
#include "workloads/model_options.hpp"

#include <algorithm>
#include <stdexcept>

namespace hs {
namespace {

using layers::ValueId;

struct Cache {
  std::vector<ValueId> k, v; // per head (or one each when heads are fused)
};

class Gpt2Builder {
public:
  Gpt2Builder(layers::LayerGraph& g, const Gpt2Options& o)
      : g_(g), o_(o), hidden_(static_cast<double>(o.dims.hidden)) {}

  // One pass over `tokens` new tokens per sequence at positions [start, start + tokens). `step` is empty
  // for the prefill or training pass (which owns the weights) and "stepN" for decode steps.
  ValueId pass(const std::string& step, ValueId ids, double tokens, double start,
               std::vector<Cache>& caches) {
    const double batch = static_cast<double>(g_.batch()), rows = batch * tokens;
    const bool owner = step.empty();
    auto name = [&](const std::string& n) { return owner ? n : step + "." + n; };
    auto from = [&](const std::string& n) { return owner ? std::string() : n; };
    const ValueId tok =
        g_.embedding(name("wte"), ids, rows, static_cast<double>(o_.vocab), hidden_, from("wte"));
    const ValueId pos =
        g_.embedding(name("wpe"), ids, rows, static_cast<double>(o_.context), hidden_, from("wpe"));
    ValueId x = g_.add(name("embeddings.add"), {tok, pos}, rows * hidden_);
    x = transformer::dropout(g_, name("embeddings.dropout"), x, rows * hidden_, o_.dims); // GPT2Model.drop
    for (long long l = 0; l < o_.layers; ++l) {
      const std::string p = std::string("h").append(
          std::to_string(l));            // not "h" + ...: GCC 12 -Wrestrict false positive (PR 105329)
      g_.recompute_layers(o_.recompute); // Megatron's full recomputation checkpoints every transformer layer
      ValueId h = g_.layernorm(name(p + ".ln1"), x, rows, hidden_, from(p + ".ln1"));
      transformer::Projections proj =
          transformer::qkv(g_, name(p + ".attn"), h, rows, o_.dims, from(p + ".attn"));
      if (!g_.training())
        append_to_cache(name(p + ".attn.kv_cache"), proj, caches[static_cast<std::size_t>(l)], batch,
                        start + tokens, owner);
      const auto context =
          transformer::attend(g_, name(p + ".attn"), proj, batch, tokens, start + tokens, o_.dims);
      h = transformer::attention_output(g_, name(p + ".attn"), context, rows, o_.dims, from(p + ".attn"));
      x = g_.add(name(p + ".attn.residual"), {x, h}, rows * hidden_);
      h = g_.layernorm(name(p + ".ln2"), x, rows, hidden_, from(p + ".ln2"));
      h = transformer::feed_forward(g_, name(p + ".mlp"), h, rows, o_.dims, from(p + ".mlp"));
      x = g_.add(name(p + ".mlp.residual"), {x, h}, rows * hidden_);
    }
    g_.recompute_layers(false);
    x = g_.layernorm(name("ln_f"), x, rows, hidden_, from("ln_f"));
    const double vocab = static_cast<double>(o_.vocab);
    if (g_.training()) {
      const ValueId logits = g_.linear("lm_head", x, rows, hidden_, vocab, false, "wte");
      return g_.loss("loss", logits, rows, vocab);
    }
    // Generation needs the logits of the last position only; the next token is their argmax (greedy).
    const double head_rows = o_.lm_head_all_tokens ? rows : batch;
    const ValueId logits = g_.linear(name("lm_head"), x, head_rows, hidden_, vocab, false, "wte");
    return g_.reduce(name("sample"), {logits}, batch * vocab, batch);
  }

private:
  // Keys and values of the new tokens join the cache; the prefill's projections are the first cache.
  void append_to_cache(const std::string& op_name, transformer::Projections& proj, Cache& cache, double batch,
                       double length, bool first) {
    if (first) {
      cache.k = proj.k;
      cache.v = proj.v;
      return;
    }
    const double parts = static_cast<double>(proj.k.size());
    const double per_part = batch * length * hidden_ * g_.elem() / parts;
    std::vector<ValueId> inputs = cache.k;
    inputs.insert(inputs.end(), cache.v.begin(), cache.v.end());
    inputs.insert(inputs.end(), proj.k.begin(), proj.k.end());
    inputs.insert(inputs.end(), proj.v.begin(), proj.v.end());
    // Written in place: the op moves only the new rows, but the cache it hands on is the whole length.
    const double new_rows = 2 * batch * hidden_ * g_.elem();
    const auto out = g_.custom(op_name, "scatter", inputs, 0, new_rows, new_rows,
                               std::vector<double>(2 * proj.k.size(), per_part));
    cache.k.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(proj.k.size()));
    cache.v.assign(out.begin() + static_cast<std::ptrdiff_t>(proj.k.size()), out.end());
    proj.k = cache.k;
    proj.v = cache.v;
  }

  layers::LayerGraph& g_;
  const Gpt2Options& o_;
  double hidden_;
};

// The GPT models of Megatron-LM's weak-scaling study (Narayanan et al., SC 2021, Table 1): GPT-2's
// architecture with a vocabulary padded to 51,200 and sequences of 2,048, so learned positions up to 2,048.
struct MegatronSize {
  const char* size;
  long long layers, hidden, heads;
};
constexpr MegatronSize megatron_sizes[] = {{"1.7b", 24, 2304, 24},  {"3.6b", 30, 3072, 32},
                                           {"7.5b", 36, 4096, 32},  {"18.4b", 40, 6144, 48},
                                           {"39.1b", 48, 8192, 64}, {"76.1b", 60, 10240, 80}};

} // namespace

Gpt2Options gpt2_preset(const std::string& size) {
  Gpt2Options o;
  o.name = "gpt2-" + size;
  for (const MegatronSize& m : megatron_sizes)
    if (size == m.size) {
      o.name = std::string("megatron-gpt-") + m.size;
      o.layers = m.layers;
      o.dims.hidden = m.hidden;
      o.dims.heads = m.heads;
      o.dims.inner = 4 * m.hidden;
      o.vocab = 51200;
      o.context = 2048;
      o.seq = 2048;
      return o;
    }
  if (size == "small") return o;
  o.dims.inner = 0;
  if (size == "medium") {
    o.layers = 24;
    o.dims.hidden = 1024;
    o.dims.heads = 16;
  } else if (size == "large") {
    o.layers = 36;
    o.dims.hidden = 1280;
    o.dims.heads = 20;
  } else {
    throw std::invalid_argument("gpt2: no size '" + size + "'");
  }
  o.dims.inner = 4 * o.dims.hidden;
  return o;
}

Graph gpt2(const Gpt2Options& o) {
  const bool training = o.model.training;
  layers::LayerGraph g(o.name + "-b" + std::to_string(o.model.batch) + "-s" + std::to_string(o.seq) +
                           (training ? "" : "-d" + std::to_string(o.decode)) + "-" + o.model.precision +
                           (training ? "-training" : "-inference"),
                       o.model);
  const double batch = static_cast<double>(o.model.batch);
  Gpt2Builder b(g, o);
  std::vector<Cache> caches(static_cast<std::size_t>(o.layers));
  ValueId next = b.pass("", g.input("input_ids", batch * static_cast<double>(o.seq) * 8),
                        static_cast<double>(o.seq), 0, caches);
  if (!training)
    for (long long t = 0; t < o.decode; ++t)
      next = b.pass("step" + std::to_string(t + 1), next, 1, static_cast<double>(o.seq + t), caches);
  return std::move(g).finish();
}

} // namespace hs

namespace {

hs::WorkloadBuilder gpt2_builder(const std::string& size, const std::string& what) {
  const hs::Gpt2Options preset = hs::gpt2_preset(size);
  return hs::WorkloadBuilder{
      preset.name,
      what,
      hs::layers::model_parameters(
          {{"seq", std::to_string(preset.seq), "prompt"},
           hs::transformer::implementation_parameter(),
           {"decode", "8", "inference: generated tokens"},
           {"heads", "branches|fused"},
           {"attention", "fused|eager", "scale and mask: in the softmax or passes of their own"},
           {"dropout", "off|on", "training"},
           {"gelu", "fused|eager", "one kernel, or Hugging Face's gelu_new: a kernel per operation"},
           {"projections", "linear|fused_qkv|conv1d",
            "three nn.Linear for Q, K, V; one QKV GEMM (Megatron-LM); or Hugging Face's Conv1D: one QKV GEMM "
            "and every projection's weights [in, out]"},
           {"lm_head", "last|all", "inference: the prefill's LM head rows"},
           {"recompute", "off|full", "training: each transformer layer's forward again in its backward pass"},
           hs::transformer::loss_parameter(true)}),
      [preset](hs::WorkloadParams& p) {
        hs::Gpt2Options o = preset;
        hs::transformer::read_implementation(p, true);
        o.model = hs::layers::read_model_options(p, o.name, 1);
        // Inference's default leaves room for the default decode steps within the context.
        o.seq = p.integer("seq", o.model.training ? o.seq : std::min(o.seq, o.context - 8), 1, o.context);
        o.recompute = p.text("recompute", "off", {"off", "full"}) == "full";
        if (o.recompute && !o.model.training)
          throw hs::InputError(o.name, "recompute", "recomputation is for training: give mode=training");
        hs::transformer::read_loss(p, o.name, true, o.model);
        o.decode = p.integer("decode", o.model.training ? 0 : 8, 0, o.context);
        if (o.model.training && o.decode > 0)
          throw hs::InputError(o.name, "decode",
                               "decode steps are for inference; training runs one pass over seq tokens");
        if (o.seq + o.decode > o.context)
          throw hs::InputError(o.name, "decode",
                               "seq + decode must not exceed the context of " + std::to_string(o.context));
        o.dims.head_branches = p.text("heads", "branches", {"branches", "fused"}) == "branches";
        hs::transformer::read_fidelity_options(p, o.name, o.model.training, o.dims);
        o.dims.eager_gelu = p.text("gelu", "fused", {"fused", "eager"}) == "eager";
        const std::string projections = p.text("projections", "linear", {"linear", "fused_qkv", "conv1d"});
        o.dims.fused_qkv = projections != "linear";
        o.dims.weights_in_out = projections == "conv1d";
        o.lm_head_all_tokens = p.text("lm_head", o.model.training ? "all" : "last", {"last", "all"}) == "all";
        if (o.model.training && !o.lm_head_all_tokens)
          throw hs::InputError(o.name, "lm_head", "training takes the loss over every token: lm_head=all");
        return hs::gpt2(o);
      },
      {{"layers", static_cast<double>(preset.layers)},
       {"hidden", static_cast<double>(preset.dims.hidden)},
       {"heads", static_cast<double>(preset.dims.heads)},
       {"inner", static_cast<double>(preset.dims.inner)}}};
}

} // namespace

HS_REGISTER_WORKLOAD(gpt2_small,
                     gpt2_builder("small", "GPT-2 small decoder (Radford et al. 2019): 12 layers, hidden "
                                           "768, 12 heads; prefill + decode with KV cache"))
HS_REGISTER_WORKLOAD(
    gpt2_medium,
    gpt2_builder("medium",
                 "GPT-2 medium decoder: 24 layers, hidden 1024, 16 heads; prefill + decode with KV cache"))
HS_REGISTER_WORKLOAD(megatron_gpt_1_7b,
                     gpt2_builder("1.7b",
                                  "Megatron-LM's GPT 1.7B (Narayanan et al. 2021, Table 1): 24 layers, "
                                  "hidden 2304, 24 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(megatron_gpt_3_6b,
                     gpt2_builder("3.6b",
                                  "Megatron-LM's GPT 3.6B (Narayanan et al. 2021, Table 1): 30 layers, "
                                  "hidden 3072, 32 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(megatron_gpt_7_5b,
                     gpt2_builder("7.5b",
                                  "Megatron-LM's GPT 7.5B (Narayanan et al. 2021, Table 1): 36 layers, "
                                  "hidden 4096, 32 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(megatron_gpt_18_4b,
                     gpt2_builder("18.4b",
                                  "Megatron-LM's GPT 18.4B (Narayanan et al. 2021, Table 1): 40 layers, "
                                  "hidden 6144, 48 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(megatron_gpt_39_1b,
                     gpt2_builder("39.1b",
                                  "Megatron-LM's GPT 39.1B (Narayanan et al. 2021, Table 1): 48 layers, "
                                  "hidden 8192, 64 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(megatron_gpt_76_1b,
                     gpt2_builder("76.1b",
                                  "Megatron-LM's GPT 76.1B (Narayanan et al. 2021, Table 1): 60 layers, "
                                  "hidden 10240, 80 heads, vocabulary 51200, seq 2048"))
HS_REGISTER_WORKLOAD(
    gpt2_large,
    gpt2_builder("large",
                 "GPT-2 large decoder: 36 layers, hidden 1280, 20 heads; prefill + decode with KV cache"))
