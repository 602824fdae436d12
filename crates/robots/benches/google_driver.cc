// Side-by-side driver for Google's robots.txt library (google/robotstxt).
//
// Built and run by scripts/bench-google-robotstxt against a checkout of
// https://github.com/google/robotstxt that the user provides; nothing of
// Google's code is kept in this repository. It measures, on the files and
// queries that the Rust side (crates/robots/benches/side_by_side.rs)
// exported, what botwarden's side measures the same way:
//
//   parse_only      googlebot::ParseRobotsTxt with a handler that does
//                   nothing, over every file; bytes per second.
//   reparse_answer  RobotsMatcher::OneAgentAllowedByRobots(file, agent, url)
//                   for every query: the library parses the whole file for
//                   every answer (one matcher object, reused).
//
// Each measure runs PASSES times, taking turns; every pass's time is
// printed (the time the thread ran on a CPU, and wall time, per repetition
// of the work), so the script can keep the best and show the spread. The verdicts of the last
// pass are written one byte per query ('1' allowed, '0' disallowed) so that
// the script can compare them with botwarden's.
//
// Usage: google_driver DIR PASSES AGENT
//   DIR/files.txt    one path per line
//   DIR/queries.tsv  FILE-INDEX <TAB> URL per line, grouped by file
//   writes DIR/google-verdicts.txt

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "robots.h"

namespace {

// A handler that does nothing: what parsing alone costs.
class NullHandler : public googlebot::RobotsParseHandler {
 public:
  void HandleRobotsStart() override {}
  void HandleRobotsEnd() override {}
  void HandleUserAgent(int, absl::string_view v) override { sink_ += v.size(); }
  void HandleAllow(int, absl::string_view v) override { sink_ += v.size(); }
  void HandleDisallow(int, absl::string_view v) override { sink_ += v.size(); }
  void HandleSitemap(int, absl::string_view v) override { sink_ += v.size(); }
  void HandleUnknownAction(int, absl::string_view, absl::string_view v) override {
    sink_ += v.size();
  }
  size_t sink() const { return sink_; }

 private:
  size_t sink_ = 0;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "google_driver: cannot read " << path << "\n";
    std::exit(2);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double now_ns() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Nanoseconds this thread has run on a CPU: on a shared machine, this
// leaves out the time other processes held the core.
double cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: google_driver DIR PASSES AGENT\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int passes = std::atoi(argv[2]);
  const std::string agent = argv[3];

  std::vector<std::string> bodies;
  {
    std::ifstream list(dir + "/files.txt");
    std::string path;
    while (std::getline(list, path)) bodies.push_back(read_file(path));
  }
  size_t total_bytes = 0;
  for (const auto& b : bodies) total_bytes += b.size();

  std::vector<std::pair<size_t, std::string>> queries;
  {
    std::ifstream in(dir + "/queries.tsv", std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      size_t tab = line.find('\t');
      if (tab == std::string::npos) {
        std::cerr << "google_driver: queries.tsv line without a tab\n";
        return 2;
      }
      size_t file = std::stoul(line.substr(0, tab));
      if (file >= bodies.size()) {
        std::cerr << "google_driver: file index " << file << " out of range\n";
        return 2;
      }
      queries.emplace_back(file, line.substr(tab + 1));
    }
  }
  std::printf("google files %zu bytes %zu queries %zu\n", bodies.size(),
              total_bytes, queries.size());

  // The two measures take turns, pass by pass, as botwarden's do. The CPU
  // clock may only move at each scheduler tick (4 ms on some kernels): a
  // pass repeats the work for at least kMinPassNs, as botwarden's do.
  const double kMinPassNs = 500e6;
  std::string verdicts(queries.size(), '?');
  googlebot::RobotsMatcher matcher;
  for (int p = 0; p < passes; ++p) {
    {
      // Parse only.
      NullHandler handler;
      double c = cpu_ns();
      double t = now_ns();
      int reps = 0;
      double ns;
      do {
        for (const auto& b : bodies) googlebot::ParseRobotsTxt(b, &handler);
        ++reps;
        ns = cpu_ns() - c;
      } while (ns < kMinPassNs);
      ns /= reps;
      double wall = (now_ns() - t) / reps;
      std::printf(
          "google parse_only pass %d reps %d cpu_ns %.0f wall_ns %.0f per_byte_ns %.4f "
          "mb_per_s %.1f sink %zu\n",
          p, reps, ns, wall, ns / total_bytes, total_bytes / ns * 1e3, handler.sink());
    }
    {
      // Parse + one answer, for every query.
      size_t allowed = 0;
      double c = cpu_ns();
      double t = now_ns();
      int reps = 0;
      double ns;
      do {
        for (size_t i = 0; i < queries.size(); ++i) {
          bool ok = matcher.OneAgentAllowedByRobots(bodies[queries[i].first], agent,
                                                    queries[i].second);
          allowed += ok;
          verdicts[i] = ok ? '1' : '0';
        }
        ++reps;
        ns = cpu_ns() - c;
      } while (ns < kMinPassNs);
      ns /= reps;
      double wall = (now_ns() - t) / reps;
      std::printf(
          "google reparse_answer pass %d reps %d cpu_ns %.0f wall_ns %.0f per_query_ns %.1f "
          "sink %zu\n",
          p, reps, ns, wall, ns / queries.size(), allowed);
    }
    std::fflush(stdout);
  }
  std::ofstream out(dir + "/google-verdicts.txt", std::ios::binary);
  out << verdicts;
  return out.good() ? 0 : 1;
}
