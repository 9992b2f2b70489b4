//===- GatherIndices.cpp - Index maps of the data-movement ops --------===//

#include "compiler/passes/GatherIndices.h"

namespace hetc::gather {

namespace {
int64_t count(Shape shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Row-major flat index of `index` in `shape`.
int64_t flatten(Shape shape, llvm::ArrayRef<int64_t> index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + index[d];
  return flat;
}

/// Calls `source(outIndex)` for every element of `out` in row-major order
/// and collects the results; stops at the first result below -1 (an error)
/// and returns nullopt.
template <typename F>
std::optional<Indices> mapEach(Shape out, F source) {
  Indices result;
  int64_t n = count(out);
  result.reserve(size_t(n));
  std::vector<int64_t> index(out.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t from = source(llvm::ArrayRef<int64_t>(index));
    if (from < -1)
      return std::nullopt;
    result.push_back(from);
    for (int64_t d = int64_t(out.size()) - 1; d >= 0; --d) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}
} // namespace

Indices identity(int64_t n) {
  Indices result(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    result[size_t(i)] = i;
  return result;
}

Indices concat(llvm::ArrayRef<Shape> inputs, int64_t axis, Shape out) {
  std::vector<int64_t> firsts;
  int64_t first = 0;
  for (Shape in : inputs) {
    firsts.push_back(first);
    first += count(in);
  }
  std::vector<int64_t> in(out.size());
  return *mapEach(out, [&](llvm::ArrayRef<int64_t> index) {
    int64_t along = index[axis];
    size_t k = 0;
    while (along >= inputs[k][axis]) {
      along -= inputs[k][axis];
      ++k;
    }
    in.assign(index.begin(), index.end());
    in[axis] = along;
    return firsts[k] + flatten(inputs[k], in);
  });
}

Indices slice(Shape in, llvm::ArrayRef<int64_t> starts,
              llvm::ArrayRef<int64_t> steps, Shape out) {
  std::vector<int64_t> at(out.size());
  return *mapEach(out, [&](llvm::ArrayRef<int64_t> index) {
    for (size_t d = 0; d < index.size(); ++d)
      at[d] = starts[d] + index[d] * steps[d];
    return flatten(in, at);
  });
}

Indices transpose(Shape in, llvm::ArrayRef<int64_t> perm, Shape out) {
  std::vector<int64_t> at(out.size());
  return *mapEach(out, [&](llvm::ArrayRef<int64_t> index) {
    for (size_t d = 0; d < index.size(); ++d)
      at[perm[d]] = index[d];
    return flatten(in, at);
  });
}

std::optional<Indices> pad(Shape in, llvm::ArrayRef<int64_t> pads,
                           llvm::StringRef mode, int64_t fill, Shape out) {
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return std::nullopt;
  size_t rank = in.size();
  std::vector<int64_t> at(rank);
  return mapEach(out, [&](llvm::ArrayRef<int64_t> index) -> int64_t {
    for (size_t d = 0; d < rank; ++d) {
      int64_t n = in[d], p = index[d] - pads[d];
      if (p >= 0 && p < n) {
        at[d] = p;
        continue;
      }
      if (mode == "constant")
        return fill;
      if (mode == "edge") {
        p = p < 0 ? 0 : n - 1;
      } else if (mode == "wrap") {
        p = ((p % n) + n) % n;
      } else {
        // reflect: mirror without repeating the edge, period 2(n - 1).
        int64_t period = 2 * (n - 1);
        if (period == 0) {
          p = 0;
        } else {
          p = ((p % period) + period) % period;
          if (p >= n)
            p = period - p;
        }
      }
      at[d] = p;
    }
    return flatten(in, at);
  });
}

Indices tile(Shape in, Shape out) {
  std::vector<int64_t> at(out.size());
  return *mapEach(out, [&](llvm::ArrayRef<int64_t> index) {
    for (size_t d = 0; d < index.size(); ++d)
      at[d] = index[d] % in[d];
    return flatten(in, at);
  });
}

Indices expand(Shape in, Shape out) {
  size_t offset = out.size() - in.size();
  std::vector<int64_t> at(in.size());
  return *mapEach(out, [&](llvm::ArrayRef<int64_t> index) {
    for (size_t d = 0; d < in.size(); ++d)
      at[d] = in[d] == 1 ? 0 : index[d + offset];
    return flatten(in, at);
  });
}

std::optional<Indices> gather(Shape in, llvm::ArrayRef<int64_t> indices,
                              Shape indicesShape, int64_t axis, Shape out) {
  size_t q = indicesShape.size();
  std::vector<int64_t> at(in.size());
  return mapEach(out, [&](llvm::ArrayRef<int64_t> index) -> int64_t {
    for (int64_t d = 0; d < axis; ++d)
      at[d] = index[d];
    int64_t picked =
        indices[flatten(indicesShape, index.slice(size_t(axis), q))];
    if (picked < 0)
      picked += in[axis];
    if (picked < 0 || picked >= in[axis])
      return -2;
    at[axis] = picked;
    for (size_t d = size_t(axis) + 1; d < in.size(); ++d)
      at[d] = index[d - 1 + q];
    return flatten(in, at);
  });
}

std::optional<Indices> gatherElements(Shape in,
                                      llvm::ArrayRef<int64_t> indices,
                                      int64_t axis, Shape out) {
  std::vector<int64_t> at(in.size());
  return mapEach(out, [&](llvm::ArrayRef<int64_t> index) -> int64_t {
    at.assign(index.begin(), index.end());
    int64_t picked = indices[flatten(out, index)];
    if (picked < 0)
      picked += in[axis];
    if (picked < 0 || picked >= in[axis])
      return -2;
    at[axis] = picked;
    return flatten(in, at);
  });
}

} // namespace hetc::gather
