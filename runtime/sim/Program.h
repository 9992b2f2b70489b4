//===- Program.h - A decoded, validated instruction list --------*- C++ -*-===//
//
// The chip model decodes each hetx::Instruction once into a flat record
// with its floorplan position and latency, after checking every field
// against the chip.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_PROGRAM_H
#define HETC_RUNTIME_SIM_PROGRAM_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/ElementType.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/HazardText.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetc::sim {

/// What an instruction does, grouped by how the model executes it.
enum class OpClass : uint8_t {
  MemRead,
  MemWrite,
  /// MEM_GATHER: an indexed read, one of a chain.
  MemGather,
  /// MEM_SCATTER: an indexed write, one of a chain.
  MemScatter,
  VectorBinary,
  VectorUnary,
  VectorReduce,
  /// V_SELECT: three sources.
  VectorSelect,
  LoadWeights,
  /// M_INSTALL_WEIGHTS: a plane's weight buffer becomes its array.
  InstallWeights,
  MatMul,
  /// DMA_IN and DMA_OUT.
  Dma,
  Permute,
  /// C2C_SEND and C2C_RECV.
  Link,
};

/// S_PERMUTE lane_map entry: the destination lane keeps src[1]'s value (or
/// becomes zero without src[1]).
constexpr uint32_t kLaneKeep = 0xFFFFFFFFu;

/// A stream group: `id` is its first stream, `dir` a hetx::Direction.
struct StreamPort {
  uint32_t id = 0;
  uint8_t dir = 0;
  /// For a source: the instruction whose value the read means, if given.
  bool hasProducer = false;
  uint32_t producer = 0;
  /// Dense index of the group: id / stream group width.
  uint32_t group() const { return id / chip::kElementBytes; }
};

/// One decoded instruction.
struct Op {
  int64_t cycle = 0;
  hetx::Opcode opcode = hetx::OPCODE_UNSPECIFIED;
  OpClass kind = OpClass::MemRead;
  uint32_t unit = 0;
  /// Floorplan position of the unit.
  uint32_t position = 0;
  uint32_t latency = 0;
  /// Cycles the unit is busy with the instruction: M_MATMUL's
  /// matrix.cycles_16bit/32bit for wide inputs, 1 otherwise.
  uint32_t busy = 1;
  uint64_t address = 0;
  /// MEM and DMA ops: the SRAM word (a quarter of a row, `lanes` bytes)
  /// where the vector starts, `address * 4 + part * width`, and the bytes
  /// a lane of its type takes (sramLaneBytes), which is also its words.
  uint64_t word = 0;
  uint8_t width = 4;
  /// MEM_READ, V_CAST and M_LOAD_WEIGHTS: the vectors of one SRAM row
  /// taken at once (Instruction.parts): read from `word` on, `width` words
  /// apart, converted each, and installed as weight rows `row` onwards. 1
  /// for every other op.
  uint8_t parts = 1;
  /// M_LOAD_WEIGHTS(_COLUMN): into the plane's weight buffer.
  bool buffered = false;
  /// MEM ops: the bank of `address` within its slice.
  uint32_t bank = 0;
  uint32_t lanes = 0;
  uint32_t row = 0;
  /// DMA ops: the host-memory vector.
  uint64_t hostAddress = 0;
  uint8_t sources = 0;
  /// S_PERMUTE: `lanes` entries of the artifact's lane_map, which outlives
  /// the decoded program; null otherwise.
  const uint32_t *laneMap = nullptr;
  /// MEM_GATHER and MEM_SCATTER: the table (`rows` rows of `stride`
  /// vectors, row 0 at `word`), the rows this slice holds, the index's
  /// lane, and the chain's first instruction, which a gather's result is
  /// recorded as.
  uint64_t stride = 0;
  uint64_t rows = 0;
  uint64_t rowBegin = 0;
  uint64_t rowEnd = 0;
  uint32_t indexLane = 0;
  /// V_BROADCAST: the lane whose word fills the result.
  uint32_t sourceLane = 0;
  uint32_t chain = 0;
  StreamPort src[3];
  StreamPort dst;
  /// Whether the instruction puts a value on `dst`.
  bool produces = false;
  /// The artifact instruction this is an issue of, and, for a train (the
  /// instruction's `repeat` > 1), which of its `repeat` issues, `every`
  /// cycles apart, it is (from 0). The chip model holds one Op per issue.
  uint32_t instruction = 0;
  uint32_t issue = 0;
  uint32_t repeat = 1;
  uint32_t every = 1;
  /// Element type of the source operands (and of the weights a load
  /// installs), and of the result.
  io::ElementType inType = io::ElementType::F32;
  io::ElementType outType = io::ElementType::F32;
  /// V_CAST: what a value beyond outType's range becomes, and how a
  /// result of F8E8M0 rounds.
  io::Overflow overflow = io::Overflow::Standard;
  io::E8M0Rounding rounding = io::E8M0Rounding::Up;

  /// The element type source `which` must carry: the condition of a
  /// V_SELECT is BOOL, the index of a MEM_GATHER or MEM_SCATTER I32,
  /// every other source is `inType`.
  io::ElementType sourceType(int which) const {
    bool indexed = opcode == hetx::MEM_GATHER || opcode == hetx::MEM_SCATTER;
    return opcode == hetx::V_SELECT && which == 0 ? io::ElementType::Bool
           : indexed && which == 0                ? io::ElementType::I32
                                                  : inType;
  }
  /// Whether the instruction is one of an indexed chain.
  bool indexed() const {
    return kind == OpClass::MemGather || kind == OpClass::MemScatter;
  }
};

/// Host memory holds at most this many vectors.
constexpr uint64_t kMaxHostVectors = uint64_t(1) << 32;
/// A train issues at most this many times, at most this many cycles apart.
constexpr uint32_t kMaxRepeat = 65536;
constexpr uint32_t kMaxRepeatCycles = 65536;
/// A program issues at most this many instructions, each issue of a train
/// counted: the chip model holds a record per issue.
constexpr uint64_t kMaxIssues = uint64_t(1) << 25;

/// The class of `opcode`, or nullopt for an unknown opcode: the one list of
/// which unit runs which opcode.
std::optional<OpClass> opClassOf(hetx::Opcode opcode);

/// Checks the element types of vector or matrix instruction `instr`
/// (`op.opcode` and `op.kind` set) as decodeProgram() does: `dtype` (and
/// for V_CAST `src_dtype`, `overflow` and `e8m0_rounding`) must be types
/// the opcode is defined on. Sets `op.inType`, `op.outType` and the cast
/// modes; on failure sets `kind` and `details` of the message.
bool decodeTypes(const hetx::Instruction &instr, Op &op, std::string &kind,
                 std::string &details);
/// Decodes and checks every instruction of `artifact` for `chip`: known
/// opcode, unit and address in range and consistent, stream groups aligned
/// and in range, lane, row and lane-map fields in range, operand counts,
/// element types the opcode is defined for, node index, and cycles in
/// non-decreasing order, and that each MEM_GATHER or MEM_SCATTER chain
/// reads or writes one table whose rows its slices cover exactly once.
/// Trains are expanded: `ops` holds one Op per issue, sorted by cycle (and
/// by instruction within a cycle), their producers and chains given as
/// indices into `ops`, and `text` learns what those indices mean. On
/// failure `error` is a hazard message for the first bad instruction.
bool decodeProgram(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   HazardText &text, std::vector<Op> &ops, std::string &error);

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_PROGRAM_H
