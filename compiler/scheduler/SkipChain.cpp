//===- SkipChain.cpp - Jump over marked indices --------------------------===//

#include "compiler/scheduler/SkipChain.h"

#include <algorithm>

using namespace hetc::sched;

uint64_t SkipChain::next(uint64_t index) {
  uint64_t found = index;
  while (const uint32_t *jump = jumps.lookup(found)) {
    if (*jump == 0)
      break;
    found += *jump;
  }
  // Point every marked index on the way straight at the answer.
  for (uint64_t at = index; at < found;) {
    uint32_t &jump = jumps.at(at);
    uint64_t following = at + jump;
    jump = uint32_t(std::min<uint64_t>(found - at, UINT32_MAX));
    at = following;
  }
  return found;
}
