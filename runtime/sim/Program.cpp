//===- Program.cpp - Decoding and checking instructions ----------------===//

#include "runtime/sim/Program.h"

#include "runtime/sim/DataTypes.h"

#include <algorithm>
#include <tuple>
#include <map>

namespace hetc::sim {

std::optional<OpClass> opClassOf(hetx::Opcode opcode) {
  switch (opcode) {
  case hetx::MEM_READ:
    return OpClass::MemRead;
  case hetx::MEM_WRITE:
    return OpClass::MemWrite;
  case hetx::MEM_GATHER:
    return OpClass::MemGather;
  case hetx::MEM_SCATTER:
    return OpClass::MemScatter;
  case hetx::V_ADD:
  case hetx::V_SUB:
  case hetx::V_MUL:
  case hetx::V_DIV:
  case hetx::V_MAX:
  case hetx::V_MIN:
  case hetx::V_POW:
  case hetx::V_EQUAL:
  case hetx::V_LESS:
  case hetx::V_LESS_EQUAL:
  case hetx::V_AND:
  case hetx::V_OR:
  case hetx::V_XOR:
  case hetx::V_MOD:
  case hetx::V_FMOD:
  case hetx::V_SHL:
  case hetx::V_SHR:
    return OpClass::VectorBinary;
  case hetx::V_SELECT:
    return OpClass::VectorSelect;
  case hetx::V_RELU:
  case hetx::V_SIGMOID:
  case hetx::V_TANH:
  case hetx::V_EXP:
  case hetx::V_NEG:
  case hetx::V_ABS:
  case hetx::V_SQRT:
  case hetx::V_RECIPROCAL:
  case hetx::V_LOG:
  case hetx::V_ERF:
  case hetx::V_FLOOR:
  case hetx::V_CEIL:
  case hetx::V_SIN:
  case hetx::V_COS:
  case hetx::V_ROUND:
  case hetx::V_CAST:
  case hetx::V_NOT:
    return OpClass::VectorUnary;
  case hetx::V_REDUCE_SUM:
  case hetx::V_REDUCE_MAX:
  case hetx::V_REDUCE_MIN:
  case hetx::V_BROADCAST:
    return OpClass::VectorReduce;
  case hetx::M_LOAD_WEIGHTS:
  case hetx::M_LOAD_WEIGHTS_COLUMN:
    return OpClass::LoadWeights;
  case hetx::M_MATMUL:
    return OpClass::MatMul;
  case hetx::M_INSTALL_WEIGHTS:
    return OpClass::InstallWeights;
  case hetx::DMA_IN:
  case hetx::DMA_OUT:
    return OpClass::Dma;
  case hetx::S_PERMUTE:
    return OpClass::Permute;
  case hetx::C2C_SEND:
  case hetx::C2C_RECV:
    return OpClass::Link;
  default:
    return std::nullopt;
  }
}

namespace {
/// Cycles beyond this are rejected so that cycle arithmetic never
/// overflows.
constexpr uint64_t kMaxCycle = uint64_t(1) << 48;

/// Sets the class, operand count and latency of `op`; false for an unknown
/// opcode.
bool classify(const chip::Latencies &lat, Op &op) {
  std::optional<OpClass> kind = opClassOf(op.opcode);
  if (!kind)
    return false;
  op.kind = *kind;
  op.sources =
      *kind == OpClass::MemRead || *kind == OpClass::Dma ||
              *kind == OpClass::InstallWeights || op.opcode == hetx::C2C_RECV
          ? 0
      : *kind == OpClass::VectorBinary || *kind == OpClass::MemScatter ? 2
      : *kind == OpClass::VectorSelect                                 ? 3
                                                                       : 1;
  switch (*kind) {
  case OpClass::MemRead:
  case OpClass::MemGather:
    op.latency = lat.mem_read();
    break;
  case OpClass::MemWrite:
  case OpClass::MemScatter:
    op.latency = lat.mem_write();
    break;
  case OpClass::VectorBinary:
  case OpClass::VectorUnary:
  case OpClass::VectorSelect:
    op.latency = lat.vector_op();
    break;
  case OpClass::VectorReduce:
    op.latency = lat.vector_reduce();
    break;
  case OpClass::LoadWeights:
  case OpClass::InstallWeights:
    op.latency = lat.matrix_load();
    break;
  case OpClass::MatMul:
    op.latency = lat.matrix_mul();
    break;
  case OpClass::Dma:
    break; // from the chip's dma section, by decodeOne
  case OpClass::Permute:
    op.latency = lat.switch_op();
    break;
  case OpClass::Link:
    break; // by decodeOne: the link's latency, or the switch's
  }
  return true;
}

/// Whether `opcode` is defined on int32 lanes.
bool definedOnI32(hetx::Opcode opcode) {
  switch (opcode) {
  case hetx::V_ADD:
  case hetx::V_SUB:
  case hetx::V_MUL:
  case hetx::V_DIV:
  case hetx::V_MAX:
  case hetx::V_MIN:
  case hetx::V_RELU:
  case hetx::V_NEG:
  case hetx::V_ABS:
  case hetx::V_REDUCE_SUM:
  case hetx::V_REDUCE_MAX:
  case hetx::V_REDUCE_MIN:
  case hetx::V_BROADCAST:
  case hetx::V_EQUAL:
  case hetx::V_LESS:
  case hetx::V_LESS_EQUAL:
  case hetx::V_MOD:
  case hetx::V_FMOD:
    return true;
  default:
    return false;
  }
}

/// Whether `opcode` is one of the comparisons, whose result is BOOL.
bool isComparison(hetx::Opcode opcode) {
  return opcode == hetx::V_EQUAL || opcode == hetx::V_LESS ||
         opcode == hetx::V_LESS_EQUAL;
}

/// Whether `opcode` is a logical operation: BOOL lanes, and for V_AND,
/// V_OR and V_XOR also I32 lanes (bitwise).
bool isLogical(hetx::Opcode opcode) {
  return opcode == hetx::V_AND || opcode == hetx::V_OR ||
         opcode == hetx::V_XOR || opcode == hetx::V_NOT;
}

/// Sets the overflow and rounding of V_CAST `op` (whose types are set)
/// from the instruction; false, with `details`, for one its result type
/// does not take.
bool decodeCastModes(const hetx::Instruction &instr, Op &op,
                     std::string &details) {
  std::string to = io::typeName(op.outType);
  switch (instr.overflow()) {
  case hetx::OVERFLOW_STANDARD:
    break;
  case hetx::OVERFLOW_NO_SATURATE:
    if (!io::isNarrowFloat(op.outType)) {
      details = "V_CAST to " + to +
                " with OVERFLOW_NO_SATURATE (only the "
                "8- and 4-bit float types take it)";
      return false;
    }
    op.overflow = io::Overflow::NoSaturate;
    break;
  case hetx::OVERFLOW_WRAP:
    if (io::isFloat(op.outType)) {
      details = "V_CAST to " + to +
                " with OVERFLOW_WRAP (only integer "
                "types take it)";
      return false;
    }
    op.overflow = io::Overflow::Wrap;
    break;
  default:
    details = "V_CAST overflow " + std::to_string(instr.overflow()) +
              " is not a CastOverflow";
    return false;
  }
  if (instr.e8m0_rounding() != hetx::E8M0_ROUND_UP &&
      op.outType != io::ElementType::F8E8M0) {
    details = "V_CAST to " + to +
              " sets e8m0_rounding (only casts to "
              "f8e8m0 round by it)";
    return false;
  }
  switch (instr.e8m0_rounding()) {
  case hetx::E8M0_ROUND_UP:
    op.rounding = io::E8M0Rounding::Up;
    return true;
  case hetx::E8M0_ROUND_DOWN:
    op.rounding = io::E8M0Rounding::Down;
    return true;
  case hetx::E8M0_ROUND_NEAREST:
    op.rounding = io::E8M0Rounding::Nearest;
    return true;
  default:
    details = "V_CAST e8m0_rounding " + std::to_string(instr.e8m0_rounding()) +
              " is not an E8M0Rounding";
    return false;
  }
}

/// Sets the operand and result types of `op` from the instruction's dtype
/// fields; on failure sets `kind` and `details`.
/// "I32 lanes" or "F32 lanes": how the chip holds host-only `type`.
std::string heldLanes(io::ElementType type) {
  return io::heldAs(type) == io::ElementType::F32 ? "F32 lanes" : "I32 lanes";
}

} // namespace

bool decodeTypes(const hetx::Instruction &instr, Op &op, std::string &kind,
                 std::string &details) {
  kind = "bad dtype";
  std::string name = HazardText::opcodeName(op.opcode);
  hetx::DataType raw =
      instr.dtype() == hetx::DTYPE_UNSPECIFIED ? hetx::F32 : instr.dtype();
  std::optional<io::ElementType> type = elementTypeOf(raw);
  if (type && io::isHostOnly(*type)) {
    details = io::typeName(*type) +
              " is a binding type only; the chip "
              "holds such tensors as " +
              heldLanes(*type);
    return false;
  }
  if (!type) {
    details = "dtype " + std::to_string(instr.dtype()) +
              " is not an element type of the chip";
    return false;
  }
  if (op.opcode != hetx::V_CAST &&
      instr.src_dtype() != hetx::DTYPE_UNSPECIFIED) {
    details = "src_dtype is set, but only V_CAST converts between types";
    return false;
  }
  if (op.opcode != hetx::V_CAST &&
      (instr.overflow() != hetx::OVERFLOW_STANDARD ||
       instr.e8m0_rounding() != hetx::E8M0_ROUND_UP)) {
    details = "overflow or e8m0_rounding is set, but only V_CAST converts "
              "between types";
    return false;
  }
  op.inType = op.outType = *type;
  auto refuse = [&](const char *why) {
    details = name + " is not defined on " + io::typeName(*type) + " " + why;
    return false;
  };
  // The narrow float types are only moved and converted, never computed on.
  bool isFloat = io::isArithmeticFloat(*type);
  bool isByte = *type == io::ElementType::I8 || *type == io::ElementType::U8;
  switch (op.kind) {
  case OpClass::MemRead:
  case OpClass::MemWrite:
  case OpClass::MemGather:
  case OpClass::MemScatter:
  case OpClass::Dma:
  case OpClass::Permute: // moves lane words of any type
  case OpClass::Link:
  case OpClass::VectorSelect:
    return true;
  case OpClass::LoadWeights:
    return isFloat || isByte ? true
                             : refuse("(weights are f32, f16, bf16, i8 or u8)");
  case OpClass::InstallWeights:
    return true; // the buffer keeps the type of its loads
  case OpClass::MatMul:
    if (!isFloat && !isByte)
      return refuse("(inputs are f32, f16, bf16, i8 or u8)");
    op.outType = isFloat ? io::ElementType::F32 : io::ElementType::I32;
    return true;
  default:
    break;
  }
  if (op.opcode == hetx::V_CAST) {
    std::optional<io::ElementType> from = elementTypeOf(instr.src_dtype());
    if (from && io::isHostOnly(*from)) {
      details = io::typeName(*from) +
                " is a binding type only; the chip "
                "holds such tensors as " +
                heldLanes(*from);
      return false;
    }
    if (!from) {
      details = "V_CAST needs src_dtype, the type it converts from";
      return false;
    }
    op.inType = *from;
    return decodeCastModes(instr, op, details);
  }
  if (isComparison(op.opcode)) {
    op.outType = io::ElementType::Bool;
    if (isFloat || *type == io::ElementType::I32 ||
        *type == io::ElementType::Bool)
      return true;
    return refuse("lanes (comparisons take f32, f16, bf16, i32 or bool)");
  }
  if (op.opcode == hetx::V_SHL || op.opcode == hetx::V_SHR)
    return *type == io::ElementType::I32
               ? true
               : refuse("lanes (shifts take i32 lanes)");
  if (isLogical(op.opcode))
    return *type == io::ElementType::Bool ||
                   (*type == io::ElementType::I32 && op.opcode != hetx::V_NOT)
               ? true
               : refuse("lanes (bool, and i32 for V_AND, V_OR and V_XOR)");
  if (isFloat)
    return true;
  if (*type == io::ElementType::I32 && definedOnI32(op.opcode))
    return true;
  return refuse("lanes (the vector unit computes on f32, f16, bf16 and, for "
                "add, sub, mul, div, max, min, relu, neg, abs, fmod, the "
                "comparisons and the reductions, i32; convert other types "
                "with V_CAST)");
}

namespace {

bool isVector(OpClass kind) {
  return kind == OpClass::VectorBinary || kind == OpClass::VectorUnary ||
         kind == OpClass::VectorReduce || kind == OpClass::VectorSelect;
}

/// Checks that `unit` is one of the chip's `count` units of a kind, named
/// `name` (e.g. "matrix plane"), `plural` in the message.
bool checkUnit(uint32_t unit, uint32_t count, const std::string &name,
               const std::string &plural, std::string &kind,
               std::string &details) {
  if (unit < count)
    return true;
  kind = "bad unit";
  details = name + " " + std::to_string(unit) +
            " does not exist (the chip has " + std::to_string(count) + " " +
            plural + ")";
  return false;
}

/// Checks one stream operand; `role` is "src[0]" or "dst".
bool checkStream(const hetx::StreamRef &ref, const std::string &role,
                 const chip::ChipSpec &chip, StreamPort &port,
                 std::string &kind, std::string &details) {
  uint32_t perDirection = chip.proto().streams().per_direction();
  uint32_t width = chip.streamGroupWidth();
  if (ref.dir() != hetx::EAST && ref.dir() != hetx::WEST) {
    kind = "bad stream direction";
    details = role + " has direction " + std::to_string(ref.dir()) +
              ", which is neither EAST (0) nor WEST (1)";
    return false;
  }
  if (ref.id() % width != 0) {
    kind = "misaligned stream id";
    details = role + " names stream " + std::to_string(ref.id()) +
              ", but a vector takes a group of " + std::to_string(width) +
              " streams whose first id is a multiple of " +
              std::to_string(width);
    return false;
  }
  if (ref.id() >= perDirection) {
    kind = "bad stream id";
    details = role + " names stream " + std::to_string(ref.id()) +
              ", but the chip has " + std::to_string(perDirection) +
              " streams per direction (streams.per_direction)";
    return false;
  }
  port.id = ref.id();
  port.dir = static_cast<uint8_t>(ref.dir());
  port.hasProducer = ref.has_producer();
  port.producer = ref.producer();
  return true;
}

/// Decodes the fields of a MEM_GATHER or MEM_SCATTER on slice `op.unit`:
/// every row it may read or write lies in that slice; on failure sets
/// `kind` and `details`.
bool decodeIndexed(const hetx::Instruction &instr, const chip::ChipSpec &chip,
                   Op &op, std::string &kind, std::string &details) {
  kind =
      op.kind == OpClass::MemGather ? "bad gather field" : "bad scatter field";
  op.stride = instr.stride();
  op.rows = instr.rows();
  op.rowBegin = instr.row_begin();
  op.rowEnd = instr.row_end();
  op.indexLane = instr.index_lane();
  op.chain = instr.chain();
  uint64_t total = chip.totalVectors();
  if (op.stride < 1 || op.stride > total || op.rows < 1 || op.rows > total) {
    details = "stride " + std::to_string(op.stride) + " and rows " +
              std::to_string(op.rows) + " must be in [1, " +
              std::to_string(total) + "], the vectors of SRAM";
    return false;
  }
  if (op.rowBegin >= op.rowEnd || op.rowEnd > op.rows) {
    details = "rows [" + std::to_string(op.rowBegin) + ", " +
              std::to_string(op.rowEnd) + ") are not a non-empty part of the " +
              std::to_string(op.rows) + " rows of the table";
    return false;
  }
  if (op.indexLane >= chip.lanes()) {
    details = "index_lane " + std::to_string(op.indexLane) +
              " is not a lane of the chip's " + std::to_string(chip.lanes());
    return false;
  }
  // Rows are counted in SRAM words here (a vector takes `width` of them).
  // Both factors are at most the SRAM's rows, which the chip file bounds
  // far below 2^30, so the products do not overflow.
  uint64_t first = (op.word + op.rowBegin * op.stride * op.width) / 4;
  uint64_t last = (op.word + (op.rowEnd - 1) * op.stride * op.width) / 4;
  if (op.address >= total || last >= total || chip.sliceOf(first) != op.unit ||
      chip.sliceOf(last) != op.unit) {
    kind = "bad address";
    // With interleaved addresses a band holds rows of other slices
    // between its ends, which the instruction leaves to them.
    details =
        "rows [" + std::to_string(op.rowBegin) + ", " +
        std::to_string(op.rowEnd) + ") of the table at " +
        std::to_string(op.address) + " (stride " + std::to_string(op.stride) +
        ") " +
        (chip.interleaved()
             ? "do not begin and end in MEM slice " + std::to_string(op.unit)
             : "are not all in MEM slice " + std::to_string(op.unit) +
                   ", vectors [" +
                   std::to_string(uint64_t(op.unit) * chip.vectorsPerSlice()) +
                   ", " +
                   std::to_string(uint64_t(op.unit + 1) *
                                  chip.vectorsPerSlice()) +
                   ")");
    return false;
  }
  return true;
}

/// Checks the MEM_GATHER and MEM_SCATTER chains once all instructions are
/// decoded: each names a first instruction of its own opcode heading its
/// own chain on the same table, index lane and type, and together a
/// chain's slices hold each row of the table once. A gather's
/// instructions read one index stream and emit onto one result stream
/// (readers name the chain's first instruction as their producer); a
/// scatter's may read their index and vector from different streams, as
/// they pass on either side of the unit that sends them. On failure
/// `error` is set.
bool checkIndexedChains(const std::vector<Op> &ops, const chip::ChipSpec &chip,
                        const HazardText &text, std::string &error) {
  auto same = [](const Op &a, const Op &b) {
    bool sameTable = a.opcode == b.opcode && a.word == b.word &&
                     a.stride == b.stride && a.rows == b.rows &&
                     a.indexLane == b.indexLane && a.outType == b.outType;
    if (a.kind == OpClass::MemScatter)
      return sameTable;
    return sameTable && a.src[0].id == b.src[0].id &&
           a.src[0].dir == b.src[0].dir &&
           a.src[0].hasProducer == b.src[0].hasProducer &&
           a.src[0].producer == b.src[0].producer && a.dst.id == b.dst.id &&
           a.dst.dir == b.dst.dir;
  };
  // The bands of each chain, by its first instruction.
  std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> bands;
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> slicesOf;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const Op &op = ops[i];
    if (!op.indexed())
      continue;
    uint32_t head = op.chain;
    if (head > i || ops[head].chain != head || !same(op, ops[head])) {
      bool gather = op.kind == OpClass::MemGather;
      error = text.format(
          gather ? "bad gather chain" : "bad scatter chain", uint64_t(op.cycle),
          i,
          "chain names instruction " + std::to_string(head) +
              ", which is not an earlier " +
              (gather ? "MEM_GATHER heading its own chain with the same "
                        "index, result stream, table and type"
                      : "MEM_SCATTER heading its own chain with the same "
                        "table, index lane and type"));
      return false;
    }
    bands[head].push_back({op.rowBegin, op.rowEnd});
    if (chip.interleaved())
      slicesOf[head].push_back({op.unit, i});
  }
  // With interleaved addresses the bands of a chain overlap, each
  // instruction taking its slice's rows: one instruction a slice, and the
  // chain's first checks at run time that the row it is given lies in a
  // slice of the chain (Machine::checkChainHolds).
  for (auto &[head, list] : slicesOf) {
    std::sort(list.begin(), list.end());
    for (size_t k = 1; k < list.size(); ++k)
      if (list[k].first == list[k - 1].first) {
        error = text.format(ops[head].kind == OpClass::MemGather
                                ? "bad gather chain"
                                : "bad scatter chain",
                            uint64_t(ops[list[k].second].cycle), list[k].second,
                            "the chain of instruction " + std::to_string(head) +
                                " has two instructions on MEM slice " +
                                std::to_string(list[k].first) + " (#" +
                                std::to_string(list[k - 1].second) + " and #" +
                                std::to_string(list[k].second) + ")");
        return false;
      }
  }
  if (chip.interleaved())
    return true;
  for (auto &[head, list] : bands) {
    std::sort(list.begin(), list.end());
    uint64_t next = 0;
    for (auto [begin, end] : list) {
      if (begin != next)
        break;
      next = end;
    }
    if (next != ops[head].rows) {
      error = text.format(
          ops[head].kind == OpClass::MemGather ? "bad gather chain"
                                               : "bad scatter chain",
          uint64_t(ops[head].cycle), head,
          "the slices of the chain do not hold each of the table's " +
              std::to_string(ops[head].rows) + " rows exactly once (row " +
              std::to_string(next) + " is missing or held twice)");
      return false;
    }
  }
  return true;
}

/// Decodes the part of the SRAM row a MEM or DMA instruction's vector
/// takes (isa.md, "Native width") into `word` and `width`; every other
/// instruction must leave `part` unset.
bool decodePart(const hetx::Instruction &instr, Op &op, std::string &kind,
                std::string &details) {
  bool inSram = op.kind == OpClass::MemRead || op.kind == OpClass::MemWrite ||
                op.indexed() || op.kind == OpClass::Dma;
  op.width = uint8_t(inSram ? sramLaneBytes(op.inType) : 4);
  uint32_t parts = 4 / op.width;
  if (instr.part() >= parts) {
    kind = "bad part";
    details = inSram ? "part " + std::to_string(instr.part()) +
                           " is not a part of a row, which holds " +
                           std::to_string(parts) + " vector" +
                           (parts == 1 ? "" : "s") + " of " +
                           io::typeName(op.inType)
                     : "part is set, but only MEM and DMA instructions take "
                       "it";
    return false;
  }
  op.word = op.address * 4 + uint64_t(instr.part()) * op.width;
  return true;
}

/// Decodes how many vectors of one SRAM row a MEM_READ takes, a V_CAST
/// converts or an M_LOAD_WEIGHTS installs (isa.md, "Native width"); the
/// types and `row` are decoded. Every other instruction must leave `parts`
/// unset.
bool decodeParts(const hetx::Instruction &instr, const chip::ChipSpec &chip,
                 Op &op, std::string &kind, std::string &details) {
  if (instr.parts() <= 1)
    return true;
  kind = "bad parts";
  bool read = op.kind == OpClass::MemRead;
  bool cast = op.opcode == hetx::V_CAST;
  if (!read && !cast && op.opcode != hetx::M_LOAD_WEIGHTS) {
    details = "parts is " + std::to_string(instr.parts()) +
              ", but only MEM_READ, V_CAST and M_LOAD_WEIGHTS take several "
              "parts";
    return false;
  }
  uint32_t width = sramLaneBytes(op.inType);
  if (cast && sramLaneBytes(op.outType) * instr.parts() > 4) {
    details = "a V_CAST of " + std::to_string(instr.parts()) +
              " parts makes more than a row of " + io::typeName(op.outType);
    return false;
  }
  uint32_t first = read ? instr.part() : 0;
  if (width * (first + instr.parts()) > 4) {
    details = "parts " + std::to_string(first) + " to " +
              std::to_string(first + instr.parts() - 1) +
              " are not parts of one row, which holds " +
              std::to_string(4 / width) + " vector" + (width == 4 ? "" : "s") +
              " of " + io::typeName(op.inType);
    return false;
  }
  if (!read && uint64_t(op.row) + instr.parts() > chip.lanes()) {
    details = "its last part would install weight row " +
              std::to_string(uint64_t(op.row) + instr.parts() - 1) +
              " (a plane has " + std::to_string(chip.lanes()) + " rows)";
    return false;
  }
  op.parts = uint8_t(instr.parts());
  return true;
}

/// Decodes instruction `index`; on failure sets `kind` and `details`.
bool decodeOne(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
               int index, Op &op, std::string &kind, std::string &details) {
  const hetx::Instruction &instr = artifact.instructions(index);
  const chip::Chip &proto = chip.proto();
  op.cycle = static_cast<int64_t>(instr.cycle());
  op.opcode = instr.opcode();
  op.unit = instr.unit();
  op.address = instr.address();
  op.lanes = instr.lanes();
  op.row = instr.row();
  op.buffered = instr.buffered();
  op.hostAddress = instr.host_address();
  if (!classify(proto.latency(), op)) {
    kind = "unknown opcode";
    details =
        HazardText::opcodeName(instr.opcode()) + " is not a hisa instruction";
    return false;
  }
  if (!op.indexed() &&
      (instr.stride() || instr.rows() || instr.row_begin() || instr.row_end() ||
       instr.index_lane() || instr.chain())) {
    kind = "bad gather field";
    details = "stride, rows, row_begin, row_end, index_lane or chain is set, "
              "but only MEM_GATHER and MEM_SCATTER take them";
    return false;
  }
  switch (op.kind) {
  case OpClass::MemRead:
  case OpClass::MemWrite:
    if (op.address >= chip.totalVectors()) {
      kind = "bad address";
      details = "address " + std::to_string(op.address) +
                " is outside SRAM, which holds " +
                std::to_string(chip.totalVectors()) + " vectors (" +
                std::to_string(proto.memory().slices()) + " slices of " +
                std::to_string(chip.vectorsPerSlice()) + ")";
      return false;
    }
    if (op.unit != chip.sliceOf(op.address)) {
      kind = "bad unit";
      details = "address " + std::to_string(op.address) + " is in MEM slice " +
                std::to_string(chip.sliceOf(op.address)) +
                ", but the instruction names slice " + std::to_string(op.unit);
      return false;
    }
    op.position = chip.slicePosition(op.unit);
    op.bank = chip.bankOf(op.address);
    break;
  case OpClass::MemGather: // its table is checked with its types
  case OpClass::MemScatter:
    if (!checkUnit(op.unit, proto.memory().slices(), "MEM slice", "slices",
                   kind, details))
      return false;
    op.position = chip.slicePosition(op.unit);
    break;
  case OpClass::LoadWeights:
  case OpClass::InstallWeights:
  case OpClass::MatMul:
    if (!checkUnit(op.unit, proto.matrix().planes(), "matrix plane", "planes",
                   kind, details))
      return false;
    op.position = chip.planePosition(op.unit);
    break;
  case OpClass::Dma:
    if (!checkUnit(op.unit, proto.dma().engines(), "DMA engine", "engines",
                   kind, details))
      return false;
    if (op.address >= chip.totalVectors() ||
        op.hostAddress >= kMaxHostVectors) {
      kind = "bad address";
      details = op.address >= chip.totalVectors()
                    ? "address " + std::to_string(op.address) +
                          " is outside SRAM, which holds " +
                          std::to_string(chip.totalVectors()) + " vectors"
                    : "host address " + std::to_string(op.hostAddress) +
                          " is beyond the host memory of " +
                          std::to_string(kMaxHostVectors) + " vectors";
      return false;
    }
    op.latency = proto.dma().latency();
    // Not on the streams: the engine's port reaches every slice.
    op.position = 0;
    break;
  case OpClass::Permute:
    if (!checkUnit(op.unit, chip.switches(), "switch unit", "SWITCH units",
                   kind, details))
      return false;
    op.position = chip.switchPosition(op.unit);
    break;
  case OpClass::Link:
    if (!checkUnit(op.unit, proto.c2c().links(), "C2C link", "links, c2c.links",
                   kind, details))
      return false;
    op.position = chip.switchPosition(chip.linkSwitch(op.unit));
    // A send is complete when its vector arrives; a receive when the
    // switch unit has emitted it.
    op.latency = op.opcode == hetx::C2C_SEND ? proto.c2c().latency()
                                             : proto.latency().switch_op();
    break;
  default:
    if (op.unit != 0) {
      kind = "bad unit";
      details = "vector instructions run on unit 0, not unit " +
                std::to_string(op.unit);
      return false;
    }
    op.position = chip.vectorPosition();
    break;
  }
  // A permute merges into an optional second vector.
  if (op.kind == OpClass::Permute && instr.src_size() == 2)
    op.sources = 2;
  if (instr.src_size() != op.sources) {
    kind = "bad operands";
    std::string count = op.kind == OpClass::Permute
                            ? std::string("1 or 2")
                            : std::to_string(op.sources);
    details = HazardText::opcodeName(op.opcode) + " takes " + count +
              " source stream" + (count == "1" ? "" : "s") +
              ", but the instruction has " + std::to_string(instr.src_size());
    return false;
  }
  for (int s = 0; s < instr.src_size(); ++s)
    if (!checkStream(instr.src(s), "src[" + std::to_string(s) + "]", chip,
                     op.src[s], kind, details))
      return false;
  op.produces = op.kind != OpClass::MemWrite &&
                op.kind != OpClass::MemScatter &&
                op.kind != OpClass::LoadWeights && op.kind != OpClass::Dma &&
                op.opcode != hetx::C2C_SEND;
  if (op.produces &&
      !checkStream(instr.dst(), "dst", chip, op.dst, kind, details))
    return false;
  if (!decodeTypes(instr, op, kind, details) ||
      !decodePart(instr, op, kind, details) ||
      !decodeParts(instr, chip, op, kind, details) ||
      (op.indexed() && !decodeIndexed(instr, chip, op, kind, details)))
    return false;
  kind.clear();
  if ((isVector(op.kind) || op.kind == OpClass::Permute) &&
      (op.lanes < 1 || op.lanes > chip.lanes())) {
    kind = "bad lanes";
    details = "lanes is " + std::to_string(op.lanes) + ", but must be in [1, " +
              std::to_string(chip.lanes()) + "]";
    return false;
  }
  if (op.opcode == hetx::V_BROADCAST) {
    op.sourceLane = instr.source_lane();
    if (op.sourceLane >= op.lanes) {
      kind = "bad lanes";
      details = "source_lane " + std::to_string(op.sourceLane) +
                " is not among the lanes [0, " + std::to_string(op.lanes) +
                ") read";
      return false;
    }
  } else if (instr.source_lane()) {
    kind = "bad lanes";
    details = "source_lane is set, but only V_BROADCAST takes it";
    return false;
  }
  if (op.kind == OpClass::Permute) {
    // The maps' entries were checked once, by checkLaneMaps.
    if (instr.lane_map() >= uint32_t(artifact.lane_maps_size())) {
      kind = "bad lane map";
      details = "field lane_map is " + std::to_string(instr.lane_map()) +
                ", but the artifact has " +
                std::to_string(artifact.lane_maps_size()) + " lane maps";
      return false;
    }
    const hetx::LaneMap &map = artifact.lane_maps(int(instr.lane_map()));
    if (map.lanes_size() != int(op.lanes)) {
      kind = "bad lane map";
      details = "lane map " + std::to_string(instr.lane_map()) + " has " +
                std::to_string(map.lanes_size()) + " entries, but lanes is " +
                std::to_string(op.lanes) +
                "; S_PERMUTE needs one entry per lane";
      return false;
    }
    op.laneMap = map.lanes().data();
  } else if (instr.lane_map() != 0) {
    kind = "bad lane map";
    details = "field lane_map is set, but only S_PERMUTE takes one";
    return false;
  }
  if (op.kind == OpClass::MatMul)
    op.busy = chip.matmulCycles(8 * io::byteWidth(op.inType));
  if (op.buffered && op.kind != OpClass::LoadWeights) {
    kind = "bad field";
    details = "buffered is set, but only M_LOAD_WEIGHTS(_COLUMN) loads into "
              "a plane's weight buffer";
    return false;
  }
  if (op.kind == OpClass::LoadWeights && op.row >= chip.lanes()) {
    kind = "bad row";
    details = "weight row " + std::to_string(op.row) +
              " does not exist (a plane has " + std::to_string(chip.lanes()) +
              " rows)";
    return false;
  }
  if (instr.node() >= uint32_t(artifact.nodes_size())) {
    kind = "bad node index";
    details = "node index " + std::to_string(instr.node()) +
              " is outside the artifact's " +
              std::to_string(artifact.nodes_size()) + " node names";
    return false;
  }
  return true;
}

/// Decodes the train fields of `instr` into `op` (decoded otherwise): a
/// train repeats an instruction that may repeat, within the limits, and
/// each of its issues stays on the instruction's unit (a MEM slice's
/// vectors, a plane's rows). On failure sets `kind` and `details`.
bool decodeRepeat(const hetx::Instruction &instr, const chip::ChipSpec &chip,
                  Op &op, std::string &kind, std::string &details) {
  kind = "bad repeat";
  if (instr.repeat() <= 1) {
    if (instr.repeat_cycles() == 0 && instr.repeat_step() == 0) {
      kind.clear();
      return true;
    }
    details = "repeat_cycles or repeat_step is set, but the instruction "
              "issues once (repeat is " +
              std::to_string(instr.repeat()) + ")";
    return false;
  }
  bool stepped = op.kind == OpClass::MemRead || op.kind == OpClass::MemWrite ||
                 op.kind == OpClass::LoadWeights;
  if (!stepped && op.kind != OpClass::MatMul && !isVector(op.kind)) {
    details = HazardText::opcodeName(op.opcode) +
              " does not repeat; trains are of MEM_READ, MEM_WRITE, "
              "M_LOAD_WEIGHTS(_COLUMN), M_MATMUL and vector instructions";
    return false;
  }
  if (instr.repeat() > kMaxRepeat || instr.repeat_cycles() < 1 ||
      instr.repeat_cycles() > kMaxRepeatCycles) {
    details = "it repeats " + std::to_string(instr.repeat()) + " times every " +
              std::to_string(instr.repeat_cycles()) +
              " cycles; a train issues at most " + std::to_string(kMaxRepeat) +
              " times, 1 to " + std::to_string(kMaxRepeatCycles) +
              " cycles apart";
    return false;
  }
  if (!stepped && instr.repeat_step() != 0) {
    details = "repeat_step is " + std::to_string(instr.repeat_step()) +
              ", but only MEM_READ, MEM_WRITE and M_LOAD_WEIGHTS(_COLUMN) "
              "step from issue to issue";
    return false;
  }
  op.repeat = instr.repeat();
  op.every = instr.repeat_cycles();
  int64_t last = int64_t(op.repeat - 1);
  int64_t step = instr.repeat_step();
  if (op.kind == OpClass::LoadWeights) {
    int64_t end = int64_t(op.row) + last * step + int64_t(op.parts) - 1;
    if (end < 0 || end >= int64_t(chip.lanes())) {
      details = "its last issue would install weight row " +
                std::to_string(end) + ", but a plane has rows 0 to " +
                std::to_string(chip.lanes() - 1);
      return false;
    }
  } else if (stepped) {
    // Vectors `step` apart, in words of the type's width; every issue's
    // vector lies in the instruction's slice.
    int64_t words = int64_t(chip.totalVectors()) * 4;
    for (int64_t k = 1; k <= last; ++k) {
      int64_t word = int64_t(op.word) + k * step * op.width;
      if (word < 0 || word >= words ||
          chip.sliceOf(uint64_t(word / 4)) != op.unit) {
        details = "issue " + std::to_string(k + 1) + " would " +
                  (op.kind == OpClass::MemRead ? "read" : "write") +
                  (word < 0 || word >= words
                       ? " outside SRAM"
                       : " row " + std::to_string(word / 4) +
                             ", which is in MEM slice " +
                             std::to_string(chip.sliceOf(uint64_t(word / 4)))) +
                  "; every issue of a train stays in its instruction's "
                  "slice, " +
                  std::to_string(op.unit);
        return false;
      }
    }
  }
  if (op.cycle + last * int64_t(op.every) > int64_t(kMaxCycle)) {
    details = "its last issue would be past cycle " + std::to_string(kMaxCycle);
    return false;
  }
  kind.clear();
  return true;
}

/// Issue `k` of the train decoded as `first`.
Op issueOf(const Op &first, uint32_t k, int64_t step,
           const chip::ChipSpec &chip) {
  Op op = first;
  op.issue = k;
  op.cycle = first.cycle + int64_t(k) * first.every;
  if (op.kind == OpClass::LoadWeights) {
    op.row = uint32_t(int64_t(first.row) + int64_t(k) * step);
  } else if (op.kind == OpClass::MemRead || op.kind == OpClass::MemWrite) {
    op.word = uint64_t(int64_t(first.word) + int64_t(k) * step * first.width);
    op.address = op.word / 4;
    op.bank = chip.bankOf(op.address);
  }
  return op;
}

/// Expands the trains among `decoded` (one Op per instruction) into one Op
/// per issue, sorted by cycle, and points sources and chains at issues:
/// issue k of a train reads issue k of its producer. On failure sets
/// `error`.
bool expandTrains(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                  HazardText &text, std::vector<Op> &ops, std::string &error) {
  size_t count = ops.size();
  // The first issue of each instruction among the expanded ones.
  std::vector<uint64_t> first(count + 1, 0);
  for (size_t i = 0; i < count; ++i)
    first[i + 1] = first[i] + ops[i].repeat;
  if (first[count] == count)
    return true;
  if (first[count] > kMaxIssues) {
    error = "the program issues " + std::to_string(first[count]) +
            " instructions (each issue of a train counted), more than the " +
            std::to_string(kMaxIssues) + " the chip model holds";
    return false;
  }
  // Sources name producers that are trains as long and as spaced, or
  // instructions that issue once read by instructions that issue once.
  for (size_t i = 0; i < count; ++i)
    for (uint8_t s = 0; s < ops[i].sources; ++s) {
      const StreamPort &port = ops[i].src[s];
      if (!port.hasProducer || port.producer >= count)
        continue;
      const Op &producer = ops[port.producer];
      if (producer.repeat == ops[i].repeat &&
          (producer.repeat == 1 || producer.every == ops[i].every))
        continue;
      error = text.format(
          "bad producer", uint64_t(ops[i].cycle), uint32_t(i),
          "src[" + std::to_string(s) + "] names instruction " +
              text.instruction(port.producer) + ", which issues " +
              std::to_string(producer.repeat) + " time(s) " +
              std::to_string(producer.every) +
              " cycle(s) apart, but this instruction issues " +
              std::to_string(ops[i].repeat) + " time(s) " +
              std::to_string(ops[i].every) +
              " apart; a train reads a train as long and as spaced");
      return false;
    }
  // The issues by cycle, then instruction, then issue, sorted as small keys
  // (an Op is some 200 bytes) and then built in that order.
  struct Issue {
    int64_t cycle;
    uint32_t instruction, k;
    bool operator<(const Issue &o) const {
      return std::tie(cycle, instruction, k) <
             std::tie(o.cycle, o.instruction, o.k);
    }
  };
  std::vector<Issue> order;
  order.reserve(size_t(first[count]));
  for (size_t i = 0; i < count; ++i)
    for (uint32_t k = 0; k < ops[i].repeat; ++k)
      order.push_back(
          {ops[i].cycle + int64_t(k) * ops[i].every, uint32_t(i), k});
  std::sort(order.begin(), order.end());
  std::vector<Op> issues;
  issues.reserve(order.size());
  // Where issue k of instruction i went, at first[i] + k.
  std::vector<uint32_t> position(order.size());
  std::vector<uint32_t> instructionOf(order.size()), issueNumber(order.size());
  for (uint32_t j = 0; j < order.size(); ++j) {
    auto [cycle, i, k] = order[j];
    issues.push_back(issueOf(ops[i], k,
                             artifact.instructions(int(i)).repeat_step(), chip));
    position[first[i] + k] = j;
    instructionOf[j] = i;
    issueNumber[j] = k;
  }
  order = std::vector<Issue>();
  ops.swap(issues);
  issues = std::vector<Op>();
  for (Op &op : ops) {
    for (uint8_t s = 0; s < op.sources; ++s)
      if (op.src[s].hasProducer && op.src[s].producer < count)
        op.src[s].producer = position[first[op.src[s].producer] + op.issue];
    if (op.indexed())
      op.chain = position[first[op.chain]];
  }
  text.setIssues(std::move(instructionOf), std::move(issueNumber));
  return true;
}

/// Checks every entry of the artifact's lane maps once: a lane of the chip
/// or LANE_KEEP.
bool checkLaneMaps(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   std::string &error) {
  for (int m = 0; m < artifact.lane_maps_size(); ++m) {
    const hetx::LaneMap &map = artifact.lane_maps(m);
    if (map.lanes_size() > int(chip.lanes())) {
      error = "artifact lane map " + std::to_string(m) + " has " +
              std::to_string(map.lanes_size()) + " entries, more than the " +
              std::to_string(chip.lanes()) + " lanes of chip '" + chip.name() +
              "'";
      return false;
    }
    for (int j = 0; j < map.lanes_size(); ++j) {
      uint32_t from = map.lanes(j);
      if (from == kLaneKeep || from < chip.lanes())
        continue;
      error = "artifact lane map " + std::to_string(m) + " entry " +
              std::to_string(j) + " is " + std::to_string(from) +
              ", but must be a lane below " + std::to_string(chip.lanes()) +
              " or LANE_KEEP (" + std::to_string(kLaneKeep) + ")";
      return false;
    }
  }
  return true;
}
} // namespace

bool decodeProgram(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                   HazardText &text, std::vector<Op> &ops, std::string &error) {
  if (!checkLaneMaps(artifact, chip, error))
    return false;
  ops.assign(size_t(artifact.instructions_size()), Op());
  uint64_t previous = 0;
  for (int i = 0; i < artifact.instructions_size(); ++i) {
    uint64_t cycle = artifact.instructions(i).cycle();
    std::string kind, details;
    if (cycle > kMaxCycle) {
      kind = "cycle out of range";
      details =
          "the chip model accepts cycles up to " + std::to_string(kMaxCycle);
    } else if (cycle < previous) {
      kind = "unsorted cycles";
      details = "it issues at cycle " + std::to_string(cycle) +
                ", before instruction " + text.instruction(uint32_t(i - 1)) +
                " at cycle " + std::to_string(previous) +
                "; instructions must be sorted by cycle";
    } else if (decodeOne(artifact, chip, i, ops[size_t(i)], kind, details)) {
      ops[size_t(i)].instruction = uint32_t(i);
      decodeRepeat(artifact.instructions(i), chip, ops[size_t(i)], kind,
                   details);
    }
    if (!kind.empty()) {
      error = text.format(kind, cycle, uint32_t(i), details);
      return false;
    }
    previous = cycle;
  }
  // A source's intended producer must be an instruction that emits.
  for (size_t i = 0; i < ops.size(); ++i)
    for (uint8_t s = 0; s < ops[i].sources; ++s) {
      const StreamPort &port = ops[i].src[s];
      if (!port.hasProducer ||
          (port.producer < ops.size() && ops[port.producer].produces))
        continue;
      error = text.format(
          "bad producer", ops[i].cycle, uint32_t(i),
          "src[" + std::to_string(s) + "] names instruction " +
              std::to_string(port.producer) +
              " as its producer, which is not an instruction that emits a "
              "vector");
      return false;
    }
  // A gather's result is recorded as its chain's first instruction's.
  for (size_t i = 0; i < ops.size(); ++i)
    for (uint8_t s = 0; s < ops[i].sources; ++s) {
      const StreamPort &port = ops[i].src[s];
      if (!port.hasProducer || ops[port.producer].kind != OpClass::MemGather ||
          ops[port.producer].chain == port.producer)
        continue;
      error = text.format(
          "bad producer", ops[i].cycle, uint32_t(i),
          "src[" + std::to_string(s) + "] names instruction " +
              std::to_string(port.producer) +
              ", a MEM_GATHER that is not the first of its chain; readers "
              "name the chain's first instruction, " +
              std::to_string(ops[port.producer].chain));
      return false;
    }
  return expandTrains(artifact, chip, text, ops, error) &&
         checkIndexedChains(ops, chip, text, error);
}

} // namespace hetc::sim
