//===- Machine.h - Executes a decoded program cycle by cycle ----*- C++ -*-===//
//
// The chip model's core: issues each instruction at its cycle, enforces the
// timing rules of docs/isa.md (streams, SRAM, weights, ports and issue
// limits) and computes the fp32 results (unless asked for timing only).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_MACHINE_H
#define HETC_RUNTIME_SIM_MACHINE_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/sim/BufferCache.h"
#include "runtime/sim/HazardText.h"
#include "runtime/sim/HostMemory.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"
#include "runtime/sim/StreamNetwork.h"
#include "runtime/sim/VectorMath.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetc::sim {

/// What the checks of one instruction read, in one cache line: the fields
/// of its Op that every run needs, packed. The rest (lanes, row, lane map,
/// host address, a third source) stays in the Op, read to compute values
/// and to word hazards.
/// What a stream value is, in one byte: its element type (bits 0-4) and
/// the vectors of one SRAM row it carries less one (bits 5-6; a MEM_READ
/// or V_CAST of several parts, isa.md "Native width"). A source must find
/// exactly the key it takes.
static_assert(uint8_t(io::ElementType::F64) < 32,
              "a value key holds the element type in 5 bits");
inline uint8_t valueKey(io::ElementType type, uint32_t parts = 1) {
  return uint8_t(uint8_t(type) | ((parts - 1) << 5));
}
inline io::ElementType keyType(uint8_t key) {
  return io::ElementType(key & 31);
}
inline uint32_t keyParts(uint8_t key) { return (key >> 5) + 1u; }

struct alignas(64) Step {
  int64_t cycle = 0;
  /// MEM and DMA ops: the SRAM word of the vector (Op::word).
  uint64_t address = 0;
  /// The instruction's index in the program.
  uint32_t index = 0;
  uint32_t unit = 0;
  uint32_t position = 0;
  uint32_t latency = 0;
  /// MEM ops: the bank's index over all slices (slice * banks + bank).
  uint32_t bankIndex = 0;
  /// The first two sources' stream groups and named producers, and the
  /// destination's group.
  uint32_t srcGroup[2] = {0, 0};
  uint32_t producer[2] = {0, 0};
  uint32_t dstGroup = 0;
  OpClass kind = OpClass::MemRead;
  uint8_t sources = 0;
  /// Bit s: source s flows WEST; bit 3: the destination does.
  uint8_t dirs = 0;
  /// The kFlag bits below.
  uint8_t flags = 0;
  /// What the first two sources must carry (valueKey), and inType.
  uint8_t srcKey[2] = {0, 0};
  io::ElementType inType = io::ElementType::F32;
  /// MEM and DMA ops: the SRAM words of the vector (Op::width).
  uint8_t width = 4;

  static constexpr uint8_t kNamesProducer0 = 1, kNamesProducer1 = 2,
                           kProduces = 4, kReceive = 8, kBuffered = 16;
};
static_assert(sizeof(Step) == 64, "a Step fills one cache line");

/// A program's steps in the order run() executes them, and what the
/// checks look up by instruction index.
/// One instruction of a MEM_GATHER or MEM_SCATTER chain: its slice and
/// band, ordered by slice.
struct ChainBand {
  uint32_t slice;
  uint64_t rowBegin, rowEnd;
  bool operator<(const ChainBand &o) const { return slice < o.slice; }
};

struct ExecutionPlan {
  std::vector<Step> steps;
  /// Per instruction: what its result is (valueKey of its type and the
  /// parts it carries: Op::parts of a MEM_READ or V_CAST, else 1).
  std::vector<uint8_t> outKeys;
  /// With interleaved addresses: per chain's first instruction, the band
  /// of each of its instructions, by slice (one a slice, as the loader
  /// checks).
  std::map<uint32_t, std::vector<ChainBand>> chainBands;
};

/// Runs a decoded program against an SRAM that already holds the inputs
/// and constants.
class Machine {
public:
  Machine(const chip::ChipSpec &chip, const HazardText &text,
          const std::vector<Op> &ops, Sram &sram, HostMemory &host,
          const SimOptions &options);

  /// The plan run() executes for `ops`: by cycle, and within a cycle the
  /// memory writes first (so that a read issued in the same cycle as a
  /// write to its address sees that write in flight, whatever the list
  /// order), each kind in list order. A caller that runs a program many
  /// times makes it once.
  static ExecutionPlan plan(const std::vector<Op> &ops,
                            const chip::ChipSpec &chip);

  /// Executes every instruction of `plan` (plan(ops)). Returns false with a
  /// hazard message in `error` at the first broken rule; fills `stats`
  /// otherwise.
  bool run(const ExecutionPlan &plan, SimStats &stats, std::string &error);

private:
  /// Per-cycle use of one unit, reset when the cycle changes.
  struct Issue {
    int64_t cycle = -1;
    uint32_t count = 0;
    uint32_t first = 0;
  };
  struct Plane {
    /// This cycle's instructions; `issueLoads` when they are weight loads.
    Issue issue;
    bool issueLoads = false;
    /// The last cycle counted busy (SimStats), by either of its ports.
    int64_t counted = -1;
    /// A weight buffer's rows, then columns, loaded since the last
    /// install: the loading instruction's index + 1, or 0.
    std::vector<uint32_t> pending;
    /// The cycle the plane takes an instruction again after a matmul that
    /// keeps it busy (matrix.cycles_16bit/32bit), and that matmul.
    int64_t freeAt = -1;
    uint32_t holder = 0;
    /// lanes x lanes, allocated when first used; all +0.0 at start. Only
    /// the rows listed in `rows` are kept in memory: the others are all
    /// +0.0, and M_MATMUL skips them.
    Buffer weights;
    /// Per row, whether it is in `rows`.
    std::vector<uint8_t> live;
    /// The rows that may hold anything but +0.0, in increasing order.
    std::vector<uint32_t> rows;
    /// Per row in `rows`: where its values are, its own in `weights` or
    /// a constant's in the SRAM image, which no run changes.
    std::vector<const float *> rowData;
    /// Columns from `cols` on are +0.0 in every row.
    uint32_t cols = 0;
    /// Per row in `rows`: whether it holds only finite values.
    std::vector<uint8_t> finite;
    /// The latest weight load: when it stores and which instruction it is.
    int64_t loadStoredAt = -1;
    uint32_t loader = 0;
    /// The element type of the latest weight load (F32 before any) and
    /// the instruction that made it.
    io::ElementType weightType = io::ElementType::F32;
    bool typed = false;
    uint32_t typedBy = 0;
    /// Float M_MATMULs issued on the plane whose products are not computed
    /// yet: copies of their inputs (kMatmulBatch vectors, allocated on first
    /// use) and the stream values their results go to. See queueMatmul().
    Buffer batchInputs;
    std::vector<float *> batchOutputs;
  };
  /// The most M_MATMULs of one plane computed together.
  static constexpr uint32_t kMatmulBatch = 32;

  [[gnu::always_inline]] inline bool execute(const Step &step);
  void compute(const Op &op, const float *const *src, float *out);
  /// M_INSTALL_WEIGHTS: the plane's buffer becomes its array (the two
  /// trade places).
  bool installWeights(const Step &step);
  /// Marks the rows a buffered load writes as waiting for the install;
  /// false (a hazard) where one already waits.
  bool holdBuffered(const Step &step);
  /// Installs an M_LOAD_WEIGHTS's rows (one per part) or column, into the
  /// plane's array or, `buffered`, its weight buffer.
  void loadWeights(const Op &op, const float *src);
  void loadRow(Plane &plane, uint32_t row, const float *src);
  void loadColumn(Plane &plane, uint32_t column, const float *src);
  /// Defers the product of a float M_MATMUL until its result can first be
  /// read, so that the products of consecutive M_MATMULs on unchanged
  /// weights are computed together (same bits; see matmulBatch()).
  void queueMatmul(const Op &op, const float *src, float *out);
  /// Computes the deferred products of `plane`, or of every plane.
  void flushMatmuls(Plane &plane);
  void flushMatmuls();
  PlaneWeights weightsOf(const Plane &plane) const;
  /// Row `row` of `plane`'s weights, put in memory (as +0.0) if it was not,
  /// and in the plane's own memory if it referred to a constant.
  float *liveRow(Plane &plane, uint32_t row);
  /// Lists `row` of `plane` as in memory; the caller fills it.
  void markLive(Plane &plane, uint32_t row);
  bool claimUnit(const Step &step);
  /// Reads source `which` of `step` from (dir, group), which names its
  /// producer if `namesProducer`; `wanted` is what it must carry
  /// (valueKey).
  const float *readStream(const Step &step, int which, uint8_t dir,
                          uint32_t group, bool namesProducer,
                          uint32_t namedProducer, uint8_t wanted);
  [[gnu::cold, gnu::noinline]] bool failType(const Op &op, uint32_t index,
                                             int which, int64_t cycle,
                                             uint32_t producer);
  bool checkWeightType(const Step &step);
  [[gnu::cold, gnu::noinline]] bool failWeightType(const Op &op, uint32_t index,
                                                   int64_t cycle);
  bool checkSramRead(const Step &step);
  /// Checks the parts after the first of a MEM_READ of several (Op::parts).
  [[gnu::noinline]] bool checkPartsRead(const Step &step);
  [[gnu::cold, gnu::noinline]] bool failParts(const Op &op, uint32_t index,
                                              int64_t cycle, uint32_t producer);
  /// Books `step`'s completion (the program's cycles, the observer); true.
  bool complete(const Step &step);
  bool executeDma(const Step &step);
  bool executeLink(const Step &step, const float *sent);
  bool checkLinksDrained();
  bool checkCollisions(int64_t cycle);
  // The failures build their messages out of line, off the hot path.
  [[gnu::cold, gnu::noinline]] bool fail(const std::string &kind, int64_t cycle,
                                         uint32_t index,
                                         const std::string &details);
  [[gnu::cold, gnu::noinline]] void
  failRead(const Op &op, uint32_t index, int which, int64_t cycle,
           const float *value, uint32_t producer, const MissedRead &missed);
  /// `bank` of `op`'s slice already serves `use`'s accesses this cycle.
  [[gnu::cold, gnu::noinline]] bool failBank(const Op &op, uint32_t index,
                                             int64_t cycle, uint32_t bank,
                                             const Issue &use);
  [[gnu::cold, gnu::noinline]] bool failPlaneBusy(const Op &op, uint32_t index,
                                                  int64_t cycle);
  [[gnu::cold, gnu::noinline]] bool failPlane(const Op &op, uint32_t index,
                                              int64_t cycle);
  [[gnu::cold, gnu::noinline]] bool failDma(const Op &op, uint32_t index,
                                            int64_t cycle);
  [[gnu::cold, gnu::noinline]] bool failLink(const Op &op, uint32_t index,
                                             int64_t cycle);
  [[gnu::cold, gnu::noinline]] bool failSwitch(const Op &op, uint32_t index,
                                               int64_t cycle);
  [[gnu::cold, gnu::noinline]] bool failAlus(uint32_t index, int64_t cycle);
  /// A read of the vector of `width` words at SRAM `word` that finds it
  /// never written, in flight or not whole at that width.
  [[gnu::cold, gnu::noinline]] bool failSramRead(uint64_t word, uint32_t width,
                                                 uint32_t index, int64_t cycle);
  /// Runs a MEM_GATHER whose index vector is `indices`: stops on an index
  /// outside the table, emits the row if this slice holds it.
  bool executeGather(const Step &step, const float *indices);
  /// Runs a MEM_SCATTER whose index vector is `indices` and whose vector
  /// to store is `value`: stops on an index outside the table, stores the
  /// vector if this slice holds the row.
  bool executeScatter(const Step &step, const float *indices,
                      const float *value);
  /// The slice that holds table row `row` of `op`, a MEM_GATHER or
  /// MEM_SCATTER.
  uint32_t sliceOfRow(const Op &op, uint64_t row) const;
  /// Whether `op`, a MEM_GATHER or MEM_SCATTER, takes table row `row`:
  /// the row is in its band and, with interleaved addresses, in its slice.
  bool holdsRow(const Op &op, uint64_t row) const;
  /// With interleaved addresses, the first instruction of a chain checks
  /// that some instruction of the chain takes `row`; false with a "bad
  /// gather chain" or "bad scatter chain" error when none does.
  bool checkChainHolds(const Op &op, uint32_t index, int64_t cycle,
                       uint64_t row);
  [[gnu::cold, gnu::noinline]] bool failIndex(const Op &op, uint32_t index,
                                              int64_t cycle, int64_t value);
  [[gnu::cold, gnu::noinline]] bool failWeightsInFlight(const Op &op,
                                                        uint32_t index,
                                                        int64_t cycle,
                                                        bool buffered = false);
  static void countBusy(UnitBusy &busy, Issue &issue, int64_t cycle);

  const chip::ChipSpec &chip;
  const HazardText &text;
  const std::vector<Op> &ops;
  /// ExecutionPlan::outKeys of the plan being run.
  const uint8_t *outKeys = nullptr;
  Sram &sram;
  HostMemory &host;
  const bool timingOnly;
  ExecutionObserver *const observer;
  StreamNetwork streams;
  uint32_t lanes;
  uint32_t banksPerSlice;
  uint32_t bankLimit;
  uint32_t alus;
  /// Weight loads a plane takes per cycle (matrix.install_rows).
  uint32_t installRows;
  std::vector<Issue> banks;
  /// ExecutionPlan::chainBands of the plan being run.
  const std::map<uint32_t, std::vector<ChainBand>> *chainBands = nullptr;
  Issue vectorIssue;
  std::vector<uint32_t> vectorIssued;
  std::vector<Plane> planes;
  /// Each plane's weight buffer (the TSP's LW buffer): what buffered
  /// loads fill and M_INSTALL_WEIGHTS makes the array; its `issue` counts
  /// the buffered loads of a cycle.
  std::vector<Plane> buffers;
  /// The first cycle at which a deferred M_MATMUL's result is on its
  /// stream; INT64_MAX when none is deferred.
  int64_t matmulsDue = std::numeric_limits<int64_t>::max();
  std::vector<Issue> sliceIssue;
  /// Per DMA engine: the cycle it is free again and the instruction that
  /// holds it until then.
  std::vector<std::pair<int64_t, uint32_t>> dmaBusy;
  uint32_t dmaCycles;
  std::vector<Issue> switchIssue;
  /// A vector on its way over a C2C link, or in its receive buffer.
  struct InFlight {
    int64_t arrival;
    uint32_t sender;
    std::vector<float> values;
  };
  struct Link {
    int64_t freeAt = -1;
    uint32_t holder = 0;
    std::deque<InFlight> vectors;
  };
  std::vector<Link> links;
  uint32_t linkCycles;
  SimStats stats;
  std::string error;
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_MACHINE_H
