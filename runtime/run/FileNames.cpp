//===- FileNames.cpp - File names for tensors written by `hetc run` ----===//

#include "runtime/run/FileNames.h"

namespace hetc::run {

std::string sanitizeFileName(const std::string &name) {
  std::string stem;
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    stem += safe ? c : '_';
  }
  if (stem.empty() || stem[0] == '.')
    stem = "_" + stem.substr(stem.empty() ? 0 : 1);
  return stem;
}

std::string uniqueFileName(const std::string &name,
                           std::set<std::string> &taken) {
  std::string stem = sanitizeFileName(name);
  std::string candidate = stem;
  for (int n = 2; taken.count(candidate); ++n)
    candidate = stem + "_" + std::to_string(n);
  taken.insert(candidate);
  return candidate;
}

} // namespace hetc::run
