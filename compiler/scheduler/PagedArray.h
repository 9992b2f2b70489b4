//===- PagedArray.h - A sparse array allocated in pages ---------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_PAGEDARRAY_H
#define HETC_COMPILER_SCHEDULER_PAGEDARRAY_H

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace hetc::sched {

/// An array indexed by cycle that allocates only the pages it touches, so a
/// resource busy in a short window of a long schedule costs one page, not
/// the whole schedule. Untouched entries read as a default-constructed T.
template <typename T> class PagedArray {
public:
  static constexpr unsigned kPageBits = 10;
  static constexpr uint64_t kPageSize = uint64_t(1) << kPageBits;

  /// Returns the entry, or nullptr when its page was never touched.
  const T *lookup(uint64_t index) const {
    uint64_t page = index >> kPageBits;
    if (page >= pages.size() || !pages[page])
      return nullptr;
    return &(*pages[page])[index & (kPageSize - 1)];
  }

  /// Returns the entry, allocating its page on first use.
  T &at(uint64_t index) {
    uint64_t page = index >> kPageBits;
    if (page >= pages.size())
      pages.resize(page + 1);
    if (!pages[page])
      pages[page] = std::make_unique<Page>();
    return (*pages[page])[index & (kPageSize - 1)];
  }

private:
  using Page = std::array<T, kPageSize>;
  std::vector<std::unique_ptr<Page>> pages;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_PAGEDARRAY_H
