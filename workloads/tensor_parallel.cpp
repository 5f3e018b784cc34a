#include "workloads/tensor_parallel.hpp"

#include "sim/graph_builder.hpp"
#include "workloads/layer_roles.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace hs {

namespace {

bool row_parallel(const std::string& name) {
  return has_suffix(name, ".attn.out") || has_suffix(name, ".ffn.fc2") || has_suffix(name, ".mlp.fc2") ||
         name == "wte" || name == "embeddings.word"; // a vocabulary shard's lookup: zeros outside it
}

std::string rank_name(std::size_t r, const std::string& name) {
  std::string out = "t";
  return out.append(std::to_string(r)).append("/").append(name); // append: GCC 12's -Wrestrict misfires on +
}

// A shard's dims, where they name a GEMM: a column-parallel layer keeps 1/t of its output features, a
// row-parallel one 1/t of its input features, attention 1/t of its heads. In the backward pass the shard
// is of the same features, which dX = dY W^T names n (rows x in, over out) and dW = X^T dY names m
// (in x out, over rows). Other ops' dims no longer describe them and are dropped.
std::map<std::string, double> shard_dims(const Op& op, const std::string& layer, double share) {
  std::map<std::string, double> dims = op.dims;
  const bool gemm = dims.count("m") && dims.count("n") && dims.count("k");
  if (!gemm || (op.kind != "gemm" && op.kind != "attention")) return {};
  const bool row = row_parallel(layer);
  const char* sharded = "batch"; // attention: batch x heads
  if (op.kind == "gemm") {
    if (has_suffix(op.name, ".dgrad"))
      sharded = row ? "n" : "k";
    else if (has_suffix(op.name, ".wgrad"))
      sharded = row ? "m" : "n";
    else
      sharded = row ? "k" : "n";
  }
  dims[sharded] *= share;
  return dims;
}

} // namespace

bool tensor_parallel_layer(const std::string& name) {
  // An eager GELU's passes ("<layer>.gelu.tanh") split as the GELU does.
  if (const auto gelu = name.rfind(".gelu."); gelu != std::string::npos)
    return tensor_parallel_layer(name.substr(0, gelu + 5));
  for (const char* tail : {".attn.qkv",
                           ".attn.q",
                           ".attn.k",
                           ".attn.v",
                           ".attn.split_q",
                           ".attn.split_k",
                           ".attn.split_v",
                           ".attn.merge_heads",
                           ".attn.scores",
                           ".attn.scale",
                           ".attn.mask",
                           ".attn.softmax",
                           ".attn.attn_dropout",
                           ".attn.context",
                           ".attn.out",
                           ".ffn.fc1",
                           ".ffn.gelu",
                           ".ffn.fc2",
                           ".mlp.fc1",
                           ".mlp.gelu",
                           ".mlp.fc2"})
    if (has_suffix(name, tail)) return true;
  return false;
}

bool vocabulary_layer(const std::string& name) {
  return name == "wte" || name == "embeddings.word" || name == "lm_head" || name == "loss" ||
         name == "loss.float" || name == "loss.softmax" || name == "cls.decoder" || name == "mlm.loss";
}

Graph tensor_parallel(const Graph& g, const TensorParallelOptions& o) {
  std::vector<OpId> origin;
  return tensor_parallel(g, o, origin);
}

Graph tensor_parallel(const Graph& g, const TensorParallelOptions& o, std::vector<OpId>& origin) {
  origin.clear();
  const std::size_t t = o.devices.size();
  if (t < 2)
    throw std::invalid_argument("tensor parallelism needs at least 2 ranks (got " + std::to_string(t) + ")");
  for (const auto& op : g.ops)
    if (op.name.find(".attn.head") != std::string::npos)
      throw std::invalid_argument("op '" + op.name +
                                  "' is one attention head of several: build the graph with heads=fused");
  if (o.split_vocabulary)
    for (const char* eager_loss : {"loss.log_softmax", "mlm.loss.log_softmax"})
      if (g.find_op(eager_loss))
        throw std::invalid_argument(
            "op '" + std::string(eager_loss) +
            "' is PyTorch's eager cross-entropy (loss=eager), which needs the whole vocabulary on one "
            "device: "
            "a vocabulary split needs a vocabulary-parallel loss (loss=fused, or loss=megatron for GPT-2)");
  const OpRoles roles = roles_of(g);
  const bool lm_head = static_cast<bool>(g.find_op("lm_head")); // the loss is over the vocabulary
  // Megatron's cross-entropy leaves each rank with per-row partials of its vocabulary shard: the final
  // "loss" reads them all-reduced, as vocab_parallel_cross_entropy all-reduces its max and sums.
  const bool loss_from_partials = static_cast<bool>(g.find_op("loss.softmax"));
  const auto splits = [&](const std::string& layer) {
    return tensor_parallel_layer(layer) || (o.split_vocabulary && vocabulary_layer(layer) &&
                                            (layer != "loss" || (lm_head && !loss_from_partials)));
  };
  std::vector<bool> split(static_cast<std::size_t>(g.op_count()));
  for (OpId x = 0; x < g.op_count(); ++x) {
    const OpId owner = roles.owner[static_cast<std::size_t>(x)];
    // A row-parallel layer's bias is added after its all-reduce, whole on every rank (Megatron's
    // RowParallelLinear), so every rank computes its whole gradient.
    const bool whole_bias =
        has_suffix(g.op(x).name, ".bgrad") && owner >= 0 && row_parallel(g.op(owner).name);
    // Gradient clipping's scalar chain runs whole on every rank: it reads the split layers' norms as
    // partial sums, all-reduced, as Megatron-LM all-reduces the squared norm over the model-parallel group.
    const bool clip_chain = g.op(x).name.starts_with(kGradientClipPrefix);
    split[static_cast<std::size_t>(x)] = owner >= 0 && splits(g.op(owner).name) && !whole_bias && !clip_chain;
  }
  if (std::none_of(split.begin(), split.end(), [](bool s) { return s; }))
    throw std::invalid_argument("graph '" + g.name + "' has no attention or MLP layer to split");
  const auto is_split = [&](OpId x) { return split[static_cast<std::size_t>(x)]; };
  if (!o.groups.empty() && o.group_of.size() != static_cast<std::size_t>(g.op_count()))
    throw std::invalid_argument("tensor parallelism in groups needs a group for each of the graph's ops");
  for (const auto& group : o.groups)
    if (group.size() != t)
      throw std::invalid_argument("every tensor-parallel group needs " + std::to_string(t) + " devices");
  const auto ranks_of = [&](OpId x) -> const std::vector<std::string>& {
    return o.groups.empty() ? o.devices
                            : o.groups.at(static_cast<std::size_t>(o.group_of[static_cast<std::size_t>(x)]));
  };

  GraphBuilder b(g.name + "-tp" + std::to_string(t));
  std::vector<std::vector<OpId>> id(t, std::vector<OpId>(static_cast<std::size_t>(g.op_count())));
  const double share = 1.0 / static_cast<double>(t);
  for (std::size_t r = 0; r < t; ++r)
    for (OpId x = 0; x < g.op_count(); ++x) {
      Op copy = g.op(x).without_edges();
      copy.name = rank_name(r, copy.name);
      copy.allowed_devices = {ranks_of(x)[r]};
      if (is_split(x)) {
        copy.dims = shard_dims(copy, g.op(roles.owner[static_cast<std::size_t>(x)]).name, share);
        copy.flops *= share;
        copy.bytes_read *= share;
        copy.param_bytes *= share;
        copy.workspace_bytes *= share;
        const bool partial_sum =
            roles.pass[static_cast<std::size_t>(x)] == Pass::Forward && row_parallel(g.op(x).name);
        if (!partial_sum) copy.bytes_written *= share;
      }
      id[r][static_cast<std::size_t>(x)] = b.add(std::move(copy)).id();
      origin.push_back(x);
    }

  // A split op's result read by a replicated op is a partial sum: gathered per reader, all-reduced.
  std::map<OpId, std::vector<TensorId>> partial_sums; // by reading op
  for (TensorId x = 0; x < g.tensor_count(); ++x) {
    const Tensor& tensor = g.tensor(x);
    std::vector<OpId> local;
    for (OpId c : tensor.consumers) {
      if (is_split(tensor.producer) && !is_split(c))
        partial_sums[c].push_back(x);
      else
        local.push_back(c);
    }
    const double bytes = is_split(tensor.producer) ? tensor.bytes * share : tensor.bytes;
    if (local.empty() && !tensor.consumers.empty()) continue;
    for (std::size_t r = 0; r < t; ++r) {
      std::vector<OpId> readers;
      for (OpId c : local)
        readers.push_back(id[r][static_cast<std::size_t>(c)]);
      b.tensor(rank_name(r, tensor.name), bytes, id[r][static_cast<std::size_t>(tensor.producer)], readers);
    }
  }
  // Readers of the same partial sums (a layer norm's data and weight gradients) share one all-reduce.
  std::map<std::vector<TensorId>, std::vector<OpId>> readers_of;
  for (const auto& [reader, sums] : partial_sums)
    readers_of[sums].push_back(reader);
  for (const auto& [sums, readers] : readers_of) {
    const std::string name = g.op(readers.front()).name;
    // The all-reduce runs on the readers' ranks: where a pipeline cuts between the ops that make the sums
    // and the readers, or between two of those ops, the readers' stage is the last of them to run.
    const OpId home = readers.front();
    collectives::CollectiveSpec spec;
    spec.algorithm = o.algorithm;
    spec.channels = o.channels;
    spec.devices = ranks_of(home);
    spec.name = "allreduce." + name;
    spec.precision = g.op(readers.front()).precision;
    for (TensorId x : sums)
      spec.bytes = std::max(spec.bytes, g.tensor(x).bytes);
    std::vector<OpId> added(t);
    for (std::size_t r = 0; r < t; ++r) {
      auto sum = b.op(rank_name(r, name + ".partial_sums")).kind("collective").pinned_to({spec.devices[r]});
      if (sums.size() > 1) // adding the partial results of several split ops locally first
        sum.flops(spec.bytes / 4 * static_cast<double>(sums.size() - 1))
            .reads(spec.bytes * static_cast<double>(sums.size()))
            .writes(spec.bytes);
      for (TensorId x : sums)
        b.tensor(rank_name(r, g.tensor(x).name) + ".partial", g.tensor(x).bytes,
                 id[r][static_cast<std::size_t>(g.tensor(x).producer)], {sum.id()});
      added[r] = sum.id();
    }
    const auto reduced = collectives::append_collective(b, spec, added);
    origin.resize(static_cast<std::size_t>(b.op_count()), home);
    for (std::size_t r = 0; r < t; ++r) {
      std::vector<OpId> on_rank;
      for (OpId reader : readers)
        on_rank.push_back(id[r][static_cast<std::size_t>(reader)]);
      b.tensor(rank_name(r, spec.name), spec.bytes, reduced[r], on_rank);
    }
  }
  return std::move(b).build();
}

} // namespace hs
