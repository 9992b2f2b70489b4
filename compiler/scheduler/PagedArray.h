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
///
/// Pages hang off a two-level directory: the top level has one slot per
/// 2^20 cycles, so even an entry at cycle 2^32 costs a 4096-slot top level
/// and one directory of 1024 page slots, not a slot for every page before it.
/// It remembers the page it used last (searches walk cycle by cycle), so it
/// is not to be shared between threads, even for lookups.
template <typename T> class PagedArray {
public:
  static constexpr unsigned kPageBits = 10;
  static constexpr uint64_t kPageSize = uint64_t(1) << kPageBits;
  static constexpr unsigned kDirectoryBits = 10;
  static constexpr uint64_t kDirectorySize = uint64_t(1) << kDirectoryBits;

  /// Returns the entry, or nullptr when its page was never touched.
  const T *lookup(uint64_t index) const {
    if ((index >> kPageBits) == lastPage && last)
      return &(*last)[index & (kPageSize - 1)];
    uint64_t top = index >> (kPageBits + kDirectoryBits);
    if (top >= directories.size() || !directories[top])
      return nullptr;
    const std::unique_ptr<Page> &page = (*directories[top])[pageOf(index)];
    if (!page)
      return nullptr;
    lastPage = index >> kPageBits;
    last = page.get();
    return &(*page)[index & (kPageSize - 1)];
  }

  /// Returns the entry, allocating its page on first use.
  T &at(uint64_t index) {
    if ((index >> kPageBits) == lastPage && last)
      return (*last)[index & (kPageSize - 1)];
    uint64_t top = index >> (kPageBits + kDirectoryBits);
    if (top >= directories.size())
      directories.resize(top + 1);
    if (!directories[top])
      directories[top] = std::make_unique<Directory>();
    std::unique_ptr<Page> &page = (*directories[top])[pageOf(index)];
    if (!page)
      page = std::make_unique<Page>();
    lastPage = index >> kPageBits;
    last = page.get();
    return (*page)[index & (kPageSize - 1)];
  }

private:
  using Page = std::array<T, kPageSize>;
  using Directory = std::array<std::unique_ptr<Page>, kDirectorySize>;

  static uint64_t pageOf(uint64_t index) {
    return (index >> kPageBits) & (kDirectorySize - 1);
  }

  std::vector<std::unique_ptr<Directory>> directories;
  // The page used last: searches walk cycle by cycle, mostly within a page.
  mutable uint64_t lastPage = 0;
  mutable Page *last = nullptr;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_PAGEDARRAY_H
