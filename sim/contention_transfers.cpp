#include "sim/contention_engine.hpp"

#include <algorithm>

// The evaluator's transfers from an op's end to their data's arrival: one per (tensor, destination), queued
// for the copy engines, started, and finished. The event loop is in sim/contention_engine.cpp.
namespace hs {

// A transfer's copy exists on its destination from its start, which is when it is recorded.
void ContentionEvaluator::record_start(Transfer& tr, double bytes, double now) {
  tr.run = static_cast<std::uint32_t>(result_.transfers.size());
  result_.transfers.push_back({tr.tensor, tr.from, tr.to, bytes, now, now});
  allocate(static_cast<std::size_t>(tr.to), bytes);
}

// The replay's copy-engine actors, step by step. A transfer takes an outgoing engine of its source, in its
// source's FIFO order, then an incoming engine of its destination, in the destination's FIFO order (the
// replay's semaphore); only then does it move data. The order in which transfers start is the order in
// which later simultaneous completions wake their actors, so it follows the replay's rounds at an instant:
// first the actors whose transfers ended, in the order those started, each handing its incoming engine to
// the destination's first waiter and taking its source's next transfer queued before; then the waiters so
// woken; then the sources whose queues grew, in device order (the replay's flush), each free engine taking
// its next transfer.
void ContentionEvaluator::start_copy_engines(double now) {
  woken_.clear();
  for (const FreedEngines& f : freed_) {
    if (in_queue_head_[f.to] < in_queue_[f.to].size())
      woken_.push_back(in_queue_[f.to][in_queue_head_[f.to]++]);
    else
      ++in_free_[f.to];
    if (copy_queue_head_[f.from] < f.queued)
      take_incoming_engine(copy_queue_[f.from][copy_queue_head_[f.from]++], now);
    else
      ++out_free_[f.from];
  }
  freed_.clear();
  for (const std::size_t t : woken_)
    start_flow(t, now);
  std::sort(copy_ready_.begin(), copy_ready_.end());
  for (const std::size_t d : copy_ready_) {
    copy_ready_mark_[d] = 0;
    while (out_free_[d] > 0 && copy_queue_head_[d] < copy_queue_[d].size()) {
      --out_free_[d];
      take_incoming_engine(copy_queue_[d][copy_queue_head_[d]++], now);
    }
  }
  copy_ready_.clear();
}

// A transfer holding its source's engine starts at once where its destination has an engine free (then
// no transfer waits there), and otherwise waits for one.
void ContentionEvaluator::take_incoming_engine(std::size_t t, double now) {
  const auto to = static_cast<std::size_t>(transfers_[t].to);
  if (in_free_[to] > 0) {
    --in_free_[to];
    start_flow(t, now);
  } else {
    in_queue_[to].push_back(t);
  }
}

void ContentionEvaluator::start_flow(std::size_t t, double now) {
  Transfer& tr = transfers_[t];
  const auto to = static_cast<std::size_t>(tr.to);
  const double bytes = graph_->tensor_bytes(static_cast<std::size_t>(tr.tensor));
  record_start(tr, bytes, now);
  const auto route = static_cast<std::size_t>(tr.from) * static_cast<std::size_t>(devices_) + to;
  const std::uint32_t slot = route_slot(route);
  const double latency_end = now + route_latency_[slot];
  // A route of no links moves data at once, after its latency.
  flows_.push_back({t, route, slot, route_resources_[slot].empty() ? 0.0 : bytes, now, latency_end});
  flow_next_ = std::min(flow_next_, latency_end);
}

// One transfer per (tensor, destination device), queued in order of first consumer, as the replay does;
// the tensor's local readers have their input now.
void ContentionEvaluator::send_output(std::size_t ti, DeviceId dev, double now) {
  const FlatGraph& g = *graph_;
  const std::uint32_t begin = g.consumer_begin(ti), end = g.consumer_begin(ti + 1);
  const OpId* consumer = g.all_consumers().data();
  const DeviceId* to_device = consumer_device_.data();
  const std::size_t first_new = transfers_.size();
  int local_readers = 0;
  for (std::uint32_t k = begin; k < end; ++k) {
    const DeviceId to = to_device[k];
    if (to == dev) {
      ++local_readers;
      continue;
    }
    int& pending = pending_to_[static_cast<std::size_t>(to)];
    if (pending < 0) {
      pending = static_cast<int>(transfers_.size());
      transfers_.push_back({static_cast<TensorId>(ti), dev, to, 0, 0, 0, 0});
    }
    ++transfers_[static_cast<std::size_t>(pending)].readers_left;
  }
  const std::size_t last_new = transfers_.size();
  // The producer's copy is needed by its distinct local readers and by each outgoing transfer; a graph
  // output (no consumer) lives to the end.
  uses_[ti] = begin == end ? -1 : local_readers + static_cast<int>(last_new - first_new);
  if (last_new == first_new) {
    for (std::uint32_t k = begin; k < end; ++k) {
      use_of_[k] = static_cast<std::uint32_t>(ti);
      input_arrived(consumer[k]);
    }
    return;
  }
  // Each transfer's waiters are its destination's readers, in consumer order: one pass fills them all.
  const std::size_t tensors = graph_->tensor_count();
  for (std::size_t i = first_new; i < last_new; ++i) {
    transfers_[i].waiters_begin = transfers_[i].waiters_end = waiters_end_;
    waiters_end_ += static_cast<std::uint32_t>(transfers_[i].readers_left);
    uses_[tensors + i] = transfers_[i].readers_left;
  }
  for (std::uint32_t k = begin; k < end; ++k) {
    if (to_device[k] == dev) {
      use_of_[k] = static_cast<std::uint32_t>(ti);
      input_arrived(consumer[k]);
      continue;
    }
    const auto i = static_cast<std::size_t>(pending_to_[static_cast<std::size_t>(to_device[k])]);
    use_of_[k] = static_cast<std::uint32_t>(tensors + i);
    waiters_[transfers_[i].waiters_end++] = consumer[k];
  }
  queue_transfers(first_new, last_new, now);
}

// New transfers of one tensor from one device: explicit-cost edges start now, the others queue for the
// source's copy engines.
void ContentionEvaluator::queue_transfers(std::size_t first_new, std::size_t last_new, double now) {
  const auto ti = static_cast<std::size_t>(transfers_[first_new].tensor);
  const double comm_time = graph_->comm_time(ti);
  const auto di = static_cast<std::size_t>(transfers_[first_new].from);
  for (std::size_t i = first_new; i < last_new; ++i) {
    Transfer& tr = transfers_[i];
    pending_to_[static_cast<std::size_t>(tr.to)] = -1;
    if (comm_time >= 0) {
      record_start(tr, graph_->tensor_bytes(ti), now);
      timed_.emplace_back(now + comm_time, i);
      std::push_heap(timed_.begin(), timed_.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    } else {
      copy_queue_[di].push_back(i);
      mark_ready(copy_ready_, copy_ready_mark_, di);
    }
  }
}

void ContentionEvaluator::transfer_finished(std::size_t t, double now) {
  const Transfer& tr = transfers_[t];
  const auto ti = static_cast<std::size_t>(tr.tensor);
  const double bytes = graph_->tensor_bytes(ti);
  if (--uses_[ti] == 0) release(static_cast<std::size_t>(tr.from), bytes, source_copy_held(ti, tr.from));
  const auto route = static_cast<std::size_t>(tr.from) * static_cast<std::size_t>(devices_) +
                     static_cast<std::size_t>(tr.to);
  for (int l : route_links_[route_slot(route)]) // explicit-cost edges never took a slot
    link_bytes_[static_cast<std::size_t>(l)] += bytes;
  result_.transfers[tr.run].end = now;
  result_.makespan = std::max(result_.makespan, now);
  for (std::uint32_t w = tr.waiters_begin; w < tr.waiters_end; ++w)
    input_arrived(waiters_[w]);
}

} // namespace hs
