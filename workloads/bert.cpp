// BERT-base and BERT-large encoders (Devlin et al., NAACL 2019; vocabulary, positions and token types as
// in the released uncased checkpoints). Post-layer-norm layers; the pooler on the [CLS] token; in
// training a sequence-classification head and its loss, or (head=pretraining) the pre-training heads.
#include "workloads/bert.hpp"

#include "workloads/model_options.hpp"
#include "workloads/transformer.hpp"

namespace hs {

Graph bert(const BertOptions& o) {
  using layers::ValueId;
  layers::LayerGraph g(o.name + "-b" + std::to_string(o.model.batch) + "-s" + std::to_string(o.seq) + "-" +
                           o.model.precision + (o.model.training ? "-training" : "-inference"),
                       o.model);
  const double batch = static_cast<double>(o.model.batch), seq = static_cast<double>(o.seq);
  const double rows = batch * seq, hidden = static_cast<double>(o.dims.hidden);
  const ValueId ids = g.input("input_ids", rows * 8 * 2); // token and segment ids, int64
  const ValueId word = g.embedding("embeddings.word", ids, rows, static_cast<double>(o.vocab), hidden);
  const ValueId position =
      g.embedding("embeddings.position", ids, rows, static_cast<double>(o.max_positions), hidden);
  const ValueId segment = g.embedding("embeddings.token_type", ids, rows, 2, hidden);
  ValueId x = g.add("embeddings.add", {word, position, segment}, rows * hidden);
  x = g.layernorm("embeddings.norm", x, rows, hidden);
  x = transformer::dropout(g, "embeddings.dropout", x, rows * hidden, o.dims); // BertEmbeddings.dropout
  for (long long l = 0; l < o.layers; ++l) {
    const std::string p = "layer" + std::to_string(l);
    const auto proj = transformer::qkv(g, p + ".attn", x, rows, o.dims);
    const auto context = transformer::attend(g, p + ".attn", proj, batch, seq, seq, o.dims);
    ValueId y = transformer::attention_output(g, p + ".attn", context, rows, o.dims);
    x = g.layernorm(p + ".attn.norm", g.add(p + ".attn.residual", {x, y}, rows * hidden), rows, hidden);
    y = transformer::feed_forward(g, p + ".ffn", x, rows, o.dims);
    x = g.layernorm(p + ".ffn.norm", g.add(p + ".ffn.residual", {x, y}, rows * hidden), rows, hidden);
  }
  // The pooler reads the [CLS] row of each sequence.
  ValueId pooled = g.linear("pooler.dense", x, batch, hidden, hidden);
  pooled = g.elementwise("pooler.tanh", {pooled}, batch * hidden, 5, layers::Saved::Output);
  if (o.pretraining_heads) {
    const double vocab = static_cast<double>(o.vocab);
    ValueId t = g.linear("cls.transform", x, rows, hidden, hidden);
    t = g.elementwise("cls.transform.gelu", {t}, rows * hidden, transformer::kGeluFlops,
                      layers::Saved::Inputs);
    t = g.layernorm("cls.transform.norm", t, rows, hidden);
    // Tied to the word embeddings; its own bias of `vocab` (in the same addmm) is not a parameter here.
    const ValueId words = g.linear("cls.decoder", t, rows, hidden, vocab, false, "embeddings.word");
    const ValueId next = g.linear("cls.seq_relationship", pooled, batch, hidden, 2);
    if (o.model.training) { // the masked-LM loss is taken at every position, as the labels mask it
      g.loss("mlm.loss", words, rows, vocab);
      g.loss("nsp.loss", next, batch, 2);
    }
  } else if (o.model.training) {
    const ValueId logits = g.linear("classifier", pooled, batch, hidden, static_cast<double>(o.classes));
    g.loss("loss", logits, batch, static_cast<double>(o.classes));
  }
  return std::move(g).finish();
}

BertOptions bert_base() {
  return BertOptions{};
}

BertOptions bert_large() {
  BertOptions o;
  o.name = "bert-large";
  o.layers = 24;
  o.dims.hidden = 1024;
  o.dims.heads = 16;
  o.dims.inner = 4096;
  return o;
}

} // namespace hs

namespace {

hs::WorkloadBuilder bert_builder(const hs::BertOptions& preset, const std::string& what) {
  return hs::WorkloadBuilder{
      preset.name,
      what,
      hs::layers::model_parameters(
          {{"seq", "128"},
           hs::transformer::implementation_parameter(),
           {"heads", "branches|fused"},
           {"classes", "2", "training: the classifier's classes"},
           {"head", "classifier|pretraining", "classifier on [CLS], or masked LM + next sentence"},
           {"attention", "fused|eager", "scale and mask: in the softmax or passes of their own"},
           {"dropout", "off|on", "training"},
           hs::transformer::loss_parameter(false)}),
      [preset](hs::WorkloadParams& p) {
        hs::BertOptions o = preset;
        hs::transformer::read_implementation(p, false);
        o.model = hs::layers::read_model_options(p, o.name, 1);
        hs::transformer::read_loss(p, o.name, false, o.model);
        o.seq = p.integer("seq", 128, 1, o.max_positions);
        o.dims.head_branches = p.text("heads", "branches", {"branches", "fused"}) == "branches";
        o.classes = p.integer("classes", 2, 1, 1'000'000);
        o.pretraining_heads = p.text("head", "classifier", {"classifier", "pretraining"}) == "pretraining";
        hs::transformer::read_fidelity_options(p, o.name, o.model.training, o.dims);
        return hs::bert(o);
      },
      {{"layers", static_cast<double>(preset.layers)},
       {"hidden", static_cast<double>(preset.dims.hidden)},
       {"heads", static_cast<double>(preset.dims.heads)},
       {"inner", static_cast<double>(preset.dims.inner)}}};
}

} // namespace

HS_REGISTER_WORKLOAD(bert_base,
                     bert_builder(hs::bert_base(),
                                  "BERT-base encoder (Devlin et al. 2019): 12 layers, hidden 768, 12 heads"))
HS_REGISTER_WORKLOAD(
    bert_large, bert_builder(hs::bert_large(),
                             "BERT-large encoder (Devlin et al. 2019): 24 layers, hidden 1024, 16 heads"))
