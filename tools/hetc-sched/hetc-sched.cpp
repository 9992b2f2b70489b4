//===- hetc-sched.cpp - Schedule a textual problem and print it ----------===//
//
// Usage: hetc-sched <file | ->
// Prints the schedule (see printSchedule) or an error and exits non-zero.
// Every schedule is checked with verifySchedule before it is printed.
//
//===----------------------------------------------------------------------===//

#include "compiler/scheduler/Scheduler.h"
#include "compiler/scheduler/TextFormat.h"
#include "compiler/scheduler/Verifier.h"
#include "runtime/io/SafeRead.h"

#include <iostream>
#include <iterator>
#include <string>

using namespace hetc::sched;

static int usage(std::ostream &os, int status) {
  os << "usage: hetc-sched <file | ->\n"
        "Schedules a problem in the textual form (compiler/scheduler/"
        "README.md)\nand prints a cycle per op, a stream group per transfer, "
        "the length,\nthe lower bound and the efficiency.\n";
  return status;
}

int main(int argc, char **argv) {
  if (argc == 2 &&
      (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help"))
    return usage(std::cout, 0);
  if (argc != 2)
    return usage(std::cerr, 2);

  std::string path = argv[1];
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    path = "<stdin>";
  } else {
    // A problem is text of at most a few megabytes; 64 MiB is plenty.
    std::string reason;
    if (!hetc::io::readRegularFile(path, uint64_t(64) << 20, text, reason)) {
      std::cerr << "hetc-sched: error: '" << path << "' " << reason << "\n";
      return 1;
    }
  }

  Expected<Problem> problem = parseProblem(text, path);
  if (!problem) {
    std::cerr << problem.error().message << "\n";
    return 1;
  }
  Expected<Schedule> result = schedule(*problem);
  if (!result) {
    std::cerr << path << ": error: " << result.error().message << "\n";
    return 1;
  }
  if (std::optional<Error> failure = verifySchedule(*problem, *result)) {
    std::cerr << path << ": internal error: the schedule breaks constraints:\n"
              << failure->message << "\n";
    return 3;
  }
  printSchedule(*problem, *result, std::cout);
  return 0;
}
