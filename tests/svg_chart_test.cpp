// The core chart toolkit: nice ticks with known answers, escaping, the line chart's structure and the
// label placement's promise (no two placed labels overlap).
#include "sim/chart_ticks.hpp"
#include "sim/label_placement.hpp"
#include "sim/svg_chart.hpp"
#include "svg_text.hpp"

#include <doctest/doctest.h>
#include <limits>

using namespace hs;

TEST_CASE("nice ticks: 1-2-5 steps with labels in one unit per axis") {
  CHECK(nice_step(0.0873, 5) == doctest::Approx(0.02));
  CHECK(nice_step(10, 5) == doctest::Approx(2));
  CHECK(nice_step(7, 5) == doctest::Approx(2));
  CHECK(nice_step(1, 5) == doctest::Approx(0.2));
  CHECK(nice_step(30, 5) == doctest::Approx(10));
  CHECK(nice_step(2.4, 5) == doctest::Approx(0.5));

  const AxisTicks ms = nice_ticks(0, 0.0873, AxisUnit::Seconds);
  REQUIRE(ms.values.size() == 5);
  for (int k = 0; k < 5; ++k)
    CHECK(ms.values[k] == doctest::Approx(0.02 * k));
  CHECK(ms.labels == std::vector<std::string>{"0 ms", "20 ms", "40 ms", "60 ms", "80 ms"});

  CHECK(nice_ticks(0, 2.5e-6, AxisUnit::Seconds).labels ==
        std::vector<std::string>{"0.0 us", "0.5 us", "1.0 us", "1.5 us", "2.0 us", "2.5 us"});
  CHECK(nice_ticks(0, 80, AxisUnit::Seconds, 4).labels ==
        std::vector<std::string>{"0 s", "20 s", "40 s", "60 s", "80 s"});
  CHECK(nice_ticks(0, 40e-9, AxisUnit::Seconds, 4).labels ==
        std::vector<std::string>{"0 ns", "10 ns", "20 ns", "30 ns", "40 ns"});
  CHECK(nice_ticks(0, 3.2e9, AxisUnit::Bytes).labels ==
        std::vector<std::string>{"0 GB", "1 GB", "2 GB", "3 GB"});
  CHECK(nice_ticks(0, 50000, AxisUnit::Plain).labels ==
        std::vector<std::string>{"0k", "10k", "20k", "30k", "40k", "50k"});
  // Ratios near 1, the Pareto plots' usual range: tick values off zero, no "-0", no 17-digit noise.
  CHECK(nice_ticks(0.93, 1.07, AxisUnit::Plain).labels == std::vector<std::string>{"0.95", "1.00", "1.05"});
  CHECK(nice_ticks(-0.1, 0.1, AxisUnit::Plain, 4).labels ==
        std::vector<std::string>{"-0.10", "-0.05", "0.00", "0.05", "0.10"});

  SUBCASE("a degenerate or non-finite range still gives an axis") {
    const AxisTicks one = nice_ticks(5, 5);
    CHECK(one.values.size() >= 2);
    CHECK(one.values.front() <= 5);
    CHECK(one.values.back() >= 5);
    CHECK(nice_ticks(0, std::numeric_limits<double>::infinity()).values.size() >= 2);
  }
}

TEST_CASE("SVG text is escaped and numbers have one fixed format") {
  CHECK(xml_escape("<a & 'b' \"c\">") == "&lt;a &amp; &apos;b&apos; &quot;c&quot;&gt;");
  CHECK(xml_escape("tab\there") == "tab here");
  CHECK(svg_number(-0.001) == "0.00");
  CHECK(svg_number(12.345678) == "12.35");
}

TEST_CASE("line chart: markers joined in x order per series, palette colours, a legend") {
  const std::vector<ChartSeries> series = {{"fast <gpu>", {{3, 1.0}, {1, 3.0}, {2, 2.0}}},
                                           {"slow", {{1, 4.0}, {3, 5.0}}}};
  const std::string svg =
      line_chart_svg("sweep", "ops", "latency", series, {AxisUnit::Plain, AxisUnit::Seconds});
  CHECK(test::count(svg, "class=\"point\"") == 5);
  CHECK(test::count(svg, "<polyline") == 2);
  CHECK(svg.find("fast &lt;gpu&gt;") != std::string::npos);
  CHECK(svg.find("fast <gpu>") == std::string::npos);
  CHECK(svg.find(chart_palette()[0]) != std::string::npos);
  CHECK(svg.find(chart_palette()[1]) != std::string::npos);
  CHECK(svg.find(">4 s<") != std::string::npos); // y ticks in seconds
  // The first series' line visits x = 1, 2, 3 left to right although the points came unsorted.
  const auto lines = test::elements(svg, "polyline");
  REQUIRE(lines.size() == 2);
  std::vector<double> xs;
  std::istringstream points(test::attribute(lines[0], "points"));
  for (std::string pair; points >> pair;)
    xs.push_back(std::stod(pair.substr(0, pair.find(','))));
  REQUIRE(xs.size() == 3);
  CHECK(xs[0] < xs[1]);
  CHECK(xs[1] < xs[2]);
  CHECK(line_chart_svg("sweep", "ops", "latency", series) ==
        line_chart_svg("sweep", "ops", "latency", series));
}

TEST_CASE("label placement: placed labels never overlap, stay inside, and the rest are reported") {
  const Box bounds{0, 0, 300, 200};
  std::vector<LabelRequest> labels;
  for (int i = 0; i < 40; ++i) // a tight cluster: most cannot fit
    labels.push_back({"label " + std::to_string(i), 150.0 + i % 5, 100.0 + i / 5});
  std::vector<Box> markers;
  const LabelLayout layout = place_labels(labels, bounds, markers, 12);
  CHECK(layout.placed.size() + layout.dropped.size() == labels.size());
  CHECK(layout.placed.size() >= 4); // at least right, left, above and below the cluster
  CHECK_FALSE(layout.dropped.empty());
  for (std::size_t i = 0; i < layout.placed.size(); ++i) {
    const Box& a = layout.placed[i].box;
    CHECK((a.x >= 0 && a.y >= 0 && a.x + a.w <= 300 && a.y + a.h <= 200));
    for (std::size_t j = i + 1; j < layout.placed.size(); ++j)
      CHECK_FALSE(boxes_overlap(a, layout.placed[j].box));
  }
  // Alone, a label goes to the right of its point.
  const LabelLayout one = place_labels({{"x", 50, 50}}, bounds, {}, 12);
  REQUIRE(one.placed.size() == 1);
  CHECK(one.placed[0].box.x > 50);
}
