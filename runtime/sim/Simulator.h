//===- Simulator.h - The cycle-accurate chip model --------------*- C++ -*-===//
//
// Runs a .hetx program on a chip description: checks every instruction and
// every timing rule of docs/isa.md, computes the fp32 results, and reports
// the cycles the program takes. A broken rule is an error (the chip has no
// interlocks), never a stall.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_SIMULATOR_H
#define HETC_RUNTIME_SIM_SIMULATOR_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/ExecutionObserver.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetc::sim {

/// How much one functional unit was used.
struct UnitBusy {
  /// Instructions issued on the unit, each issue of a train counted.
  uint64_t instructions = 0;
  /// Cycles in which the unit issued at least one instruction.
  uint64_t cycles = 0;
};

/// Figures from one simulation.
struct SimStats {
  /// max(cycle + latency) over all instructions; 0 for an empty program.
  uint64_t cycles = 0;
  /// Instructions executed, each issue of a train counted.
  uint64_t instructions = 0;
  UnitBusy vector;
  /// One entry per MEM slice.
  std::vector<UnitBusy> slices;
  /// One entry per matrix plane.
  std::vector<UnitBusy> planes;
  /// One entry per DMA engine; `cycles` counts the cycles it is moving a
  /// vector.
  std::vector<UnitBusy> dma;
  /// One entry per switch unit.
  std::vector<UnitBusy> switches;
  /// One entry per C2C link; `cycles` counts the cycles it is sending.
  std::vector<UnitBusy> links;
  /// The most SRAM bytes holding data at any time, counting the inputs and
  /// constants preloaded before cycle 0. The chip never frees a word, so
  /// this is the bytes of the distinct words the program's data occupies
  /// (a vector takes `lanes` bytes per byte of its lane width).
  uint64_t sramHighWater = 0;
};

/// How to run a simulation.
struct SimOptions {
  /// Check every instruction and timing rule but compute no values: inputs
  /// are neither needed nor read, and SimResult::outputs stays empty (the
  /// outputs are still checked to be written). For measuring the timing
  /// checker on its own. A MEM_SCATTER, whose row only a value names,
  /// stores nothing then: a read of its table is checked against the
  /// writes before it.
  bool timingOnly = false;
  /// Told of each instruction that passed its checks; may be null.
  ExecutionObserver *observer = nullptr;
};

/// A tensor with the name of the artifact binding it belongs to.
struct NamedTensor {
  std::string name;
  io::Tensor tensor;
};

/// The outcome of a successful simulation.
struct SimResult {
  /// The artifact's outputs, in binding order, read from SRAM at the end.
  std::vector<NamedTensor> outputs;
  SimStats stats;
};

/// A program decoded and checked for one chip, ready to run many times (on
/// other inputs, or in another mode) without decoding it again. It refers
/// to the artifact and the chip it was loaded from, which must outlive it.
class LoadedProgram {
public:
  LoadedProgram();
  ~LoadedProgram();
  LoadedProgram(LoadedProgram &&) noexcept;
  LoadedProgram &operator=(LoadedProgram &&) noexcept;

  /// Instructions of the program; 0 before a successful load().
  size_t instructions() const;

  struct State;

private:
  friend class Session;
  std::unique_ptr<State> state;
  friend bool load(const hetx::Artifact &, const chip::ChipSpec &,
                   LoadedProgram &, std::string &);
  friend bool run(const LoadedProgram &,
                  const std::map<std::string, io::Tensor> &, const SimOptions &,
                  SimResult &, std::string &);
};

/// Decodes and checks `artifact` for `chip`: the chip match, every
/// instruction and every binding. Returns false with `error` (the same
/// messages as simulate()) when any is wrong.
bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          LoadedProgram &program, std::string &error);

/// Runs a loaded program with `inputs` as simulate() does.
bool run(const LoadedProgram &program,
         const std::map<std::string, io::Tensor> &inputs,
         const SimOptions &options, SimResult &result, std::string &error);

class HostMemory;
class Sram;

/// One program run step after step on one SRAM, as a chip runs it: what a
/// run leaves in SRAM is there for the next. An input that an output of
/// the same SRAM rows, shape and type updates in place (a KV cache read as
/// `past_k` and written back as `present_k`) is *resident*: it is loaded
/// before the first run only (zeros unless given) and stays on the chip
/// from run to run; every other input is loaded before each run. Each run
/// is checked as run() checks it, and a run that fails ends the session.
class Session {
public:
  /// A session of `program`, which must outlive it.
  explicit Session(const LoadedProgram &program);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Whether input `name` is resident.
  bool isResident(const std::string &name) const;
  /// The resident inputs, each with the output that updates it.
  const std::vector<std::pair<std::string, std::string>> &resident() const {
    return residentPairs;
  }
  /// Runs the program once. `inputs` gives every input that is not
  /// resident, and on the first run may give resident ones their starting
  /// value. `result.outputs` holds every output but those that update
  /// resident inputs, which stay on the chip (fetch() reads them).
  /// `observer`, when given, is told of each instruction as in run().
  bool step(const std::map<std::string, io::Tensor> &inputs, SimResult &result,
            std::string &error, ExecutionObserver *observer = nullptr);
  /// Reads resident input `name` as the last run left it.
  bool fetch(const std::string &name, io::Tensor &out,
             std::string &error) const;
  /// Writes `value` over resident input `name` between two runs, as the
  /// host would move it in (a prompt's caches handed over while the other
  /// batch slots decode on). Only after the first run: before it, give the
  /// value to step().
  bool store(const std::string &name, const io::Tensor &value,
             std::string &error);
  /// Runs `other`, a program over this one's SRAM layout (a prefill
  /// program nested in the artifact: hetx.proto, `Artifact.prefills`),
  /// once on this session's SRAM, between two runs of this program or
  /// before the first. It reads this program's constants where they lie;
  /// its inputs and outputs named as this program's resident inputs and
  /// the outputs that update them are those very tensors, on the chip, and
  /// are not given: `inputs` gives every other input. Its own constants
  /// are placed before it runs. Refused, before it runs, when such a
  /// binding lies elsewhere or in another layout, or when one of its own
  /// constants, other inputs or writes would land on this program's
  /// constants or resident inputs. A failed run ends the session.
  /// Checks `other` as runCompanion() does before it runs; `slot` is the
  /// batch slot whose rows of the resident inputs it takes (a program of
  /// one sequence for a step of several slots: its bindings of them have
  /// a first dimension of 1 and lie at that slot's rows), -1 when it takes
  /// them whole.
  bool companionSlot(const LoadedProgram &other, int64_t &slot,
                     std::string &error) const;
  bool runCompanion(const LoadedProgram &other,
                    const std::map<std::string, io::Tensor> &inputs,
                    SimResult &result, std::string &error,
                    ExecutionObserver *observer = nullptr);

private:
  /// Makes the SRAM of the first run: the constants' image, the resident
  /// inputs given (zeros otherwise).
  void start(const std::map<std::string, io::Tensor> &inputs);
  /// Whether a run failed, which ended the session; `error` says so.
  bool stopped(std::string &error) const;
  /// The checks of runCompanion() before it runs.
  bool checkCompanion(const LoadedProgram::State &other, int64_t &slot,
                      std::string &error) const;
  /// Runs `program` (this one or a companion), its inputs placed in the
  /// session's SRAM and `host`, and reads its outputs but those `kept`
  /// marks (they stay on the chip). A failure ends the session.
  bool execute(const LoadedProgram::State &program, HostMemory &host,
               const std::vector<bool> &kept, ExecutionObserver *observer,
               SimResult &result, std::string &error);

  const LoadedProgram::State &state;
  std::vector<std::pair<std::string, std::string>> residentPairs;
  /// Per artifact input and output: resident, or updating a resident one.
  std::vector<bool> residentInput, residentOutput;
  std::unique_ptr<Sram> sram;
  uint64_t runs = 0;
  /// Set when a run failed; the SRAM is then what the failure left.
  std::string failure;
};

/// Checks that `inputs` gives each input of `artifact` once, with its
/// shape and an element type its binding takes; an input for which
/// `optional` holds may be left out. The same check for every backend.
bool checkInputs(
    const hetx::Artifact &artifact,
    const std::map<std::string, io::Tensor> &inputs, std::string &error,
    const std::function<bool(const hetx::TensorBinding &)> &optional = {});
/// Decodes a constant's little-endian bytes of `type` (hetx.proto,
/// `Constant`) into lane words; a partial last element is dropped.
std::vector<float> decodeConstant(const std::string &bytes,
                                  io::ElementType type);
/// Simulates `artifact` on `chip` with `inputs` (one per artifact input, by
/// name, with the binding's shape). Returns false and sets `error` when the
/// artifact was built for another chip, an instruction or binding is
/// invalid, an input is missing or misshapen, or a timing rule is broken.
/// Rule violations read
///   hazard: <kind> at cycle <c>: instruction #<i> <OPCODE> on <unit>
///   (node '<name>'): <details>
/// and the simulation stops at the first one. A well-timed program that
/// stops on its data (a MEM_GATHER index outside its table) reads
///   index out of range at cycle <c>: instruction #<i> ... : <details>
bool simulate(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              const std::map<std::string, io::Tensor> &inputs,
              SimResult &result, std::string &error);

/// As above, with `options`. On a hazard the observer has been told of
/// every instruction executed before it.
bool simulate(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              const std::map<std::string, io::Tensor> &inputs,
              const SimOptions &options, SimResult &result, std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_SIMULATOR_H
