//===- MlirTextChecks.h - MLIR text the parser cannot take ------*- C++ -*-===//
//
// Two kinds of MLIR text crash MLIR's own parser before any diagnostic, so
// the tools that parse MLIR text check for them first:
// - brackets nested some thousands deep (`[[[[...`, `tensor<tensor<...`):
//   the parser descends once per bracket and overflows the stack. Real IR
//   nests a few levels, a dense constant of rank r about r + 2.
// - a dense array of `index` (`array<index: 1>`): the parser asks the
//   element type's bit width, which `index` does not have (LLVM 22).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_MLIRTEXTCHECKS_H
#define HETC_COMPILER_FRONTEND_MLIRTEXTCHECKS_H

#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <cstddef>
#include <string>

namespace hetc::frontend {

/// The deepest bracket nesting MLIR text may have.
constexpr size_t kMaxMlirNesting = 256;

/// Whether `text`, outside string literals and `//` comments, nests
/// brackets ( [ { < no deeper than kMaxMlirNesting (the `>` of `->` closes
/// nothing) and has no `array<index`. If not, `error` says where, in
/// `source`.
inline bool checkMlirText(llvm::StringRef text, llvm::StringRef source,
                          std::string &error) {
  size_t depth = 0, line = 1;
  auto where = [&] { return source.str() + ":" + std::to_string(line) + ": "; };
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
        error = where() + "brackets nest deeper than " +
                std::to_string(kMaxMlirNesting) +
                " levels; hetc does not parse MLIR nested this deep";
        return false;
      }
      // `array<` (not part of a longer name), blanks, then `index` as a
      // whole word.
      if (c == '<' && i >= 5 && text.substr(i - 5, 5) == "array" &&
          (i == 5 || !(std::isalnum(static_cast<unsigned char>(text[i - 6])) ||
                       text[i - 6] == '_' || text[i - 6] == '.'))) {
        size_t j = i + 1;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\t' ||
                                   text[j] == '\n' || text[j] == '\r'))
          ++j;
        llvm::StringRef rest = text.substr(j);
        if (rest.starts_with("index") &&
            (rest.size() == 5 ||
             !(std::isalnum(static_cast<unsigned char>(rest[5])) ||
               rest[5] == '_'))) {
          error = where() +
                  "a dense array of index (`array<index`), which MLIR's "
                  "parser cannot read; hetc refuses it (use i64)";
          return false;
        }
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

#endif // HETC_COMPILER_FRONTEND_MLIRTEXTCHECKS_H
