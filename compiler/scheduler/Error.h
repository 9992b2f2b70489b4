//===- Error.h - Errors returned by the scheduling library ------*- C++ -*-===//

#ifndef HETC_COMPILER_SCHEDULER_ERROR_H
#define HETC_COMPILER_SCHEDULER_ERROR_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace hetc::sched {

/// What went wrong, for callers that react differently to each case.
enum class ErrorKind {
  /// The problem breaks a rule of the model (bad ids, values, positions).
  InvalidProblem,
  /// Transfers give one op two different offsets inside its rigid cluster.
  InconsistentCluster,
  /// A cluster can never fit the chip: it needs more units of a resource or
  /// more stream groups in one cycle than there are.
  Unschedulable,
  /// The dependences leave a cluster no cycle the list scheduler can use.
  Infeasible,
  /// The textual problem form could not be read.
  Parse,
  /// verifySchedule found a broken constraint.
  Verification,
};

/// A user-readable failure plus the ids of the ops it concerns, so that a
/// caller can attach it to its own locations.
struct Error {
  ErrorKind kind = ErrorKind::InvalidProblem;
  std::string message;
  std::vector<uint32_t> ops;
};

/// Either a value or an Error; test it before use.
template <typename T> class Expected {
public:
  Expected(T value) : storage(std::move(value)) {}
  Expected(Error error) : storage(std::move(error)) {}

  /// True when this holds a value.
  explicit operator bool() const { return storage.index() == 0; }

  T &operator*() { return std::get<0>(storage); }
  const T &operator*() const { return std::get<0>(storage); }
  T *operator->() { return &std::get<0>(storage); }
  const T *operator->() const { return &std::get<0>(storage); }

  /// The error; only valid when this holds no value.
  const Error &error() const { return std::get<1>(storage); }

private:
  std::variant<T, Error> storage;
};

} // namespace hetc::sched

#endif // HETC_COMPILER_SCHEDULER_ERROR_H
