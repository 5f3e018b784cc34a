#pragma once
// A picture of a serving run (issue 11's "timeline that shows requests"): for a bounded window of
// requests, each one's queueing and service as bars grouped by tenant, and below them each device's batches
// as bars coloured by tenant, labelled with their size. The window is the first `requests` finished
// requests (in arrival order) arriving at or after `from`, so a run of a million requests keeps O(window)
// memory; the batches drawn are those on the devices between the window's first arrival and last end,
// recorded until every request of the window has finished or been dropped, at most `max_spans` of them
// (the rest are counted and said to be left out). Dropped requests are drawn as a tick at their arrival.
//
// Classes in the SVG, for tools and tests: "queueing" (arrival to the first batch's start) and "request"
// (that start to completion), one each per request; "kv-transfer" and "decode-queueing" for a split
// tenant's KV cache in flight and its wait for the decode batch; "dropped"; "batch" (one per device
// span); "tenant" (each tenant's label).
#include "serving/request_trace.hpp"

#include <map>
#include <string>
#include <vector>

namespace hs::serving {

struct TimelineOptions {
  std::uint64_t requests = 100; // requests in the window
  double from = 0.0;            // seconds: the window's requests arrive at or after this
  std::size_t max_spans = 20000;
};

class TimelineRecorder {
public:
  explicit TimelineRecorder(TimelineOptions o) : o_(o) {}
  void request(const RequestTrace& r);
  void span(const DeviceSpan& s);
  std::vector<RequestTrace> requests() const; // the window, by id
  // The spans overlapping [the window's first arrival, its last end], in the order they were given.
  std::vector<DeviceSpan> spans() const;
  std::size_t spans_left_out() const { return left_out_; }
  // Every request of the window has finished or been dropped: no later batch is recorded.
  bool complete() const;
  const TimelineOptions& options() const { return o_; }

private:
  TimelineOptions o_;
  std::map<std::uint64_t, RequestTrace> kept_; // the smallest ids seen at or after `from`
  // The largest id seen arriving before `from` (+1; 0: none): the window starts at the id after it.
  std::uint64_t before_ = 0;
  std::vector<DeviceSpan> spans_;
  std::size_t left_out_ = 0;
};

// The picture; names index tenants and devices as the traces do. Same inputs, same bytes.
std::string timeline_svg(const TimelineRecorder& t, const std::vector<std::string>& tenants,
                         const std::vector<std::string>& devices, const std::string& title);

} // namespace hs::serving
