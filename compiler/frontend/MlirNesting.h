//===- MlirNesting.h - A bound on the bracket nesting of MLIR text -*- C++
//-*-===//
//
// MLIR's parser descends once per nested bracket of an attribute or type
// (`[[[[...`, `tensor<tensor<...`), so text nested some thousands deep
// overflows the stack before any diagnostic. The tools that parse MLIR
// text check it first: real IR nests a few levels, a dense constant of
// rank r about r + 2.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_MLIRNESTING_H
#define HETC_COMPILER_FRONTEND_MLIRNESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace hetc::frontend {

/// The deepest bracket nesting MLIR text may have.
constexpr size_t kMaxMlirNesting = 256;

/// Whether `text` nests brackets ( [ { < no deeper than kMaxMlirNesting,
/// outside string literals and `//` comments (the `>` of `->` closes
/// nothing). If not, `error` says where, in `source`.
inline bool checkMlirNesting(llvm::StringRef text, llvm::StringRef source,
                             std::string &error) {
  size_t depth = 0, line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      // A string literal, with backslash escapes, ends at its quote or at
      // the end of its line.
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n')
        ++line;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxMlirNesting) {
        error = source.str() + ":" + std::to_string(line) +
                ": brackets nest deeper than " +
                std::to_string(kMaxMlirNesting) +
                " levels; hetc does not parse MLIR nested this deep";
        return false;
      }
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return true;
}

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_MLIRNESTING_H
