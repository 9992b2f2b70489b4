//===- ScheduleBench.cpp - Scheduler speed on synthetic programs ---------===//
//
// Usage: hetc-schedule-bench [--addresses N] [--matmul-percent P]
//                            [--window W] [ops...]
// Builds a TSP-like program of each size (default 10000 100000 1000000) for
// the tsp-v1 chip, schedules it and prints ops, seconds, ops/s, length,
// bound and efficiency; the time covers scheduling only, not building the
// problem. Each schedule is also checked with verifySchedule. Many addresses
// mean few dependences; --window 0 asks for exact first fit.
//
//===----------------------------------------------------------------------===//

#include "compiler/scheduler/Scheduler.h"
#include "compiler/scheduler/Synthetic.h"
#include "compiler/scheduler/Verifier.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace hetc::sched;

int main(int argc, char **argv) {
  std::vector<size_t> sizes;
  SyntheticOptions options;
  SchedulerOptions schedulerOptions;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--addresses" && hasValue)
      options.addresses = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (arg == "--matmul-percent" && hasValue)
      options.matmulPercent = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (arg == "--window" && hasValue)
      schedulerOptions.backfillWindow = std::strtoll(argv[++i], nullptr, 10);
    else if (!arg.empty() && arg[0] != '-')
      sizes.push_back(std::strtoull(arg.c_str(), nullptr, 10));
    else {
      std::fprintf(stderr, "usage: hetc-schedule-bench [--addresses N] "
                           "[--matmul-percent P] [--window W] [ops...]\n");
      return 2;
    }
  }
  if (options.addresses == 0) {
    std::fprintf(stderr, "error: --addresses must be at least 1\n");
    return 2;
  }
  if (sizes.empty())
    sizes = {10000, 100000, 1000000};

  std::printf("%10s %10s %8s %12s %10s %10s %10s  %s\n", "ops", "transfers",
              "seconds", "ops/s", "length", "bound", "efficiency", "bound by");
  for (size_t size : sizes) {
    options.numOps = size;
    Problem problem = buildSyntheticProblem(SyntheticChip::tspV1(), options);

    auto start = std::chrono::steady_clock::now();
    Expected<Schedule> result = schedule(problem, schedulerOptions);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!result) {
      std::fprintf(stderr, "error: %s\n", result.error().message.c_str());
      return 1;
    }
    if (std::optional<Error> failure = verifySchedule(problem, *result)) {
      std::fprintf(stderr, "invalid schedule: %s\n", failure->message.c_str());
      return 1;
    }
    std::printf("%10zu %10zu %8.3f %12.0f %10lld %10lld %10.2f  %s\n",
                problem.getNumOperations(), problem.getNumTransfers(), seconds,
                double(problem.getNumOperations()) / seconds,
                (long long)result->length, (long long)result->bound.cycles,
                result->efficiency, result->bound.reason.c_str());
  }
  return 0;
}
