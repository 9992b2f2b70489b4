//===- HetxEmitter.cpp - Scheduled hisa to a .hetx artifact -----------===//

#include "compiler/codegen/HetxEmitter.h"
#include "compiler/codegen/HetxTypes.h"

#include "compiler/dialects/hisa/IR/BufferLayout.h"
#include "compiler/dialects/hisa/IR/HIsa.h"
#include "runtime/artifact/ArtifactFile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace hetc;
using namespace hetc::codegen;

namespace {

/// Appends the `bytes` low-order bytes of `value`, little-endian.
void appendLittleEndian(std::string &data, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    data.push_back(char((value >> (8 * i)) & 0xFF));
}

/// The elements of `dense`, dense and little-endian in its own type: 4
/// bytes for f32 and i32, 2 for f16 and bf16, 1 for i8, ui8, i1 and the 8-,
/// 4- and 2-bit types (one encoding per byte, integers sign-extended); the
/// types held as i32 (i64, i16, ui16, ui32, ui64) become 4-byte i32,
/// failing at `op` for an element out of the int32 range.
LogicalResult writeConstantData(Operation *op, DenseElementsAttr dense,
                                std::string &data) {
  Type element = dense.getElementType();
  data.clear();
  if (element.isF64()) {
    // Held as f32: rounded to nearest even, beyond its range to infinity.
    data.reserve(dense.getNumElements() * 4);
    for (APFloat v : dense.getValues<APFloat>()) {
      bool inexact;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &inexact);
      appendLittleEndian(data, v.bitcastToAPInt().getZExtValue(), 4);
    }
    return success();
  }
  if (auto floatType = dyn_cast<FloatType>(element)) {
    unsigned bytes = std::max(floatType.getWidth() / 8, 1u);
    data.reserve(dense.getNumElements() * bytes);
    for (const APFloat &v : dense.getValues<APFloat>())
      appendLittleEndian(data, v.bitcastToAPInt().getZExtValue(), bytes);
    return success();
  }
  auto integer = cast<IntegerType>(element);
  unsigned width = integer.getWidth();
  bool held = !hisa::isLaneType(element);
  unsigned bytes = width < 8 ? 1 : held ? 4 : width / 8;
  data.reserve(dense.getNumElements() * bytes);
  for (const APInt &v : dense.getValues<APInt>()) {
    int64_t value = integer.isUnsigned() || width == 1
                        ? int64_t(v.getZExtValue())
                        : v.getSExtValue();
    if (held && (integer.isUnsigned() ? !v.isIntN(31) : !v.isSignedIntN(32)))
      return op->emitError("constant element ")
             << (integer.isUnsigned() ? v.getZExtValue() : v.getSExtValue())
             << " of type " << element
             << " is outside the int32 range in which the chip holds it";
    appendLittleEndian(data, uint64_t(value), bytes);
  }
  return success();
}

/// Sets the instruction's dtype from `op`'s `dtype` attribute; f32, the
/// default, is left unset.
void setDtype(hetx::Instruction &inst, Operation *op) {
  Type type = hisa::dtypeOf(op);
  if (!type.isF32())
    inst.set_dtype(*dataTypeOf(type));
}

class Emitter {
public:
  Emitter(const chip::ChipSpec &chip) : chip(chip) { artifact.add_nodes(""); }
  LogicalResult emit(func::FuncOp func);
  hetx::Artifact artifact;

private:
  uint32_t nodeIndex(Location loc) {
    std::string name = nodeNameOf(loc);
    if (name.empty())
      return 0;
    auto [it, inserted] = nodes.try_emplace(name, artifact.nodes_size());
    if (inserted)
      artifact.add_nodes(name);
    return it->second;
  }
  /// The index in the artifact's lane_maps of `map` (-1, keep, is
  /// LANE_KEEP, 0xFFFFFFFF, in the artifact), added when new.
  uint32_t laneMapIndex(ArrayRef<int32_t> map) {
    std::string key(reinterpret_cast<const char *>(map.data()),
                    map.size() * sizeof(int32_t));
    auto [it, inserted] = laneMaps.try_emplace(key, artifact.lane_maps_size());
    if (inserted) {
      hetx::LaneMap *entry = artifact.add_lane_maps();
      for (int32_t from : map)
        entry->add_lanes(uint32_t(from));
    }
    return it->second;
  }
  LogicalResult bind(Operation *op, hetx::TensorBinding &binding,
                     StringRef name, int64_t address, ShapedType type) {
    std::optional<hetx::DataType> dtype =
        dataTypeOf(type.getElementType(), !isa<hisa::ConstantOp>(op));
    if (!dtype)
      return op->emitError("tensor '")
             << name << "' has element type " << type.getElementType()
             << ", which the chip does not hold (" << hisa::heldTypeNames()
             << ")";
    binding.set_name(name.str());
    binding.set_dtype(*dtype);
    for (int64_t d : type.getShape())
      binding.add_shape(d);
    binding.set_address(address);
    BufferLayout layout = layoutOf(type, chip.lanes());
    binding.set_vectors_per_row(layout.vectorsPerRow);
    // hisa packs every narrow type (docs/isa.md, "Native width").
    binding.set_packed(layout.perSramRow > 1);
    return success();
  }
  static void setStream(hetx::StreamRef &ref, hisa::StreamAttr stream) {
    ref.set_id(stream.getId());
    ref.set_dir(stream.getDir() == hisa::Direction::east ? hetx::EAST
                                                         : hetx::WEST);
  }
  LogicalResult addSource(hetx::Instruction &inst, Operation *op, Value value);
  LogicalResult addInstruction(hisa::InstructionOpInterface op);
  /// Sets the fields of a gather's or scatter's instruction on `band`:
  /// its slice, the table and the rows the slice holds.
  template <typename IndexedOp>
  static void setTableFields(hetx::Instruction &inst, IndexedOp op,
                             const hisa::GatherBand &band) {
    inst.set_unit(band.slice);
    inst.set_address(op.getTable());
    inst.set_part(op.getPart().value_or(0));
    inst.set_stride(op.getStride());
    inst.set_rows(op.getRows());
    inst.set_row_begin(band.rowBegin);
    inst.set_row_end(band.rowEnd);
    inst.set_index_lane(op.getLane());
  }
  /// Adds a gather's chain: one MEM_GATHER per slice of its table.
  LogicalResult addGather(hisa::GatherOp op);
  /// Adds a scatter's chain: one MEM_SCATTER per slice of its table.
  LogicalResult addScatter(hisa::ScatterOp op);

  const chip::ChipSpec &chip;
  llvm::StringMap<uint32_t> nodes;
  llvm::StringMap<uint32_t> laneMaps;
  /// Instructions are added to the artifact in program order and put in
  /// issue order at the end (emit()), without a second copy of them.
  size_t added() const { return size_t(artifact.instructions_size()); }
  void add(hetx::Instruction &&inst) {
    *artifact.add_instructions() = std::move(inst);
  }
  /// Program-order index of each instruction op.
  DenseMap<Operation *, size_t> indexOf;
  /// (reader's program-order index, source slot, producer op).
  struct ProducerRef {
    size_t reader;
    int slot;
    Operation *producer;
  };
  std::vector<ProducerRef> pendingProducers;
  /// (MEM_GATHER's program-order index, its chain's first's).
  std::vector<std::pair<size_t, size_t>> pendingChains;
};

LogicalResult Emitter::addGather(hisa::GatherOp op) {
  IntegerAttr cycle = op.getCycleAttr();
  hisa::StreamAttr stream = op.getStreamAttr();
  if (!cycle || !stream)
    return op->emitError("gather has no cycle or stream; run "
                         "hetc-hisa-schedule first");
  std::vector<hisa::GatherBand> bands = op.getBands(chip);
  // The chain runs the way its row flows, from the slice nearest the
  // index, which issues at the op's cycle.
  if (stream.getDir() == hisa::Direction::west)
    std::reverse(bands.begin(), bands.end());
  int64_t hop = chip.proto().streams().hop_cycles();
  size_t head = added();
  for (const hisa::GatherBand &band : bands) {
    hetx::Instruction inst;
    int64_t distance = band.position - bands.front().position;
    inst.set_cycle(cycle.getInt() +
                   (distance < 0 ? -distance : distance) * hop);
    inst.set_node(nodeIndex(op.getLoc()));
    setStream(*inst.mutable_dst(), stream);
    setDtype(inst, op);
    inst.set_opcode(hetx::MEM_GATHER);
    setTableFields(inst, op, band);
    if (failed(addSource(inst, op, op.getIndex())))
      return failure();
    pendingChains.push_back({added(), head});
    add(std::move(inst));
  }
  indexOf[op] = head;
  return success();
}

LogicalResult Emitter::addScatter(hisa::ScatterOp op) {
  IntegerAttr cycle = op.getCycleAttr();
  auto source = dyn_cast_if_present<hisa::InstructionOpInterface>(
      op.getValues().front().getDefiningOp());
  std::optional<hisa::IssueInfo> unit =
      source ? source.describe(chip) : std::nullopt;
  if (!cycle || !unit)
    return op->emitError("scatter has no cycle, or its values no unit; run "
                         "hetc-hisa-schedule first");
  std::vector<hisa::GatherBand> bands = op.getBands(chip);
  // The chain runs from the slice nearest the unit that sends the pairs,
  // which issues at the op's cycle, outwards; the one nearest on each
  // side reads the pair that flows that way.
  int64_t from = unit->position;
  auto distance = [&](const hisa::GatherBand &band) {
    return std::abs(band.position - from);
  };
  std::stable_sort(bands.begin(), bands.end(),
                   [&](const hisa::GatherBand &a, const hisa::GatherBand &b) {
                     return distance(a) < distance(b);
                   });
  int64_t hop = chip.proto().streams().hop_cycles();
  size_t head = added();
  bool twoPairs = op.getValues().size() == 2;
  for (const hisa::GatherBand &band : bands) {
    hetx::Instruction inst;
    inst.set_cycle(cycle.getInt() +
                   (distance(band) - distance(bands.front())) * hop);
    inst.set_node(nodeIndex(op.getLoc()));
    setDtype(inst, op);
    inst.set_opcode(hetx::MEM_SCATTER);
    setTableFields(inst, op, band);
    unsigned pair = twoPairs && band.position > from ? 1 : 0;
    if (failed(addSource(inst, op, op.getIndices()[pair])) ||
        failed(addSource(inst, op, op.getValues()[pair])))
      return failure();
    pendingChains.push_back({added(), head});
    add(std::move(inst));
  }
  indexOf[op] = head;
  return success();
}

LogicalResult Emitter::addSource(hetx::Instruction &inst, Operation *op,
                                 Value value) {
  Operation *producer = value.getDefiningOp();
  auto instruction =
      dyn_cast_if_present<hisa::InstructionOpInterface>(producer);
  hisa::StreamAttr stream =
      instruction ? instruction.getResultStream() : hisa::StreamAttr();
  if (!stream)
    return op->emitError("reads a vector whose producer has no stream; run "
                         "hetc-hisa-schedule first");
  setStream(*inst.add_src(), stream);
  pendingProducers.push_back({added(), inst.src_size() - 1, producer});
  return success();
}

LogicalResult Emitter::addInstruction(hisa::InstructionOpInterface op) {
  IntegerAttr cycle = op.getIssueCycleAttr();
  if (!cycle)
    return op->emitError("instruction has no cycle; run hetc-hisa-schedule "
                         "first");
  hetx::Instruction inst;
  inst.set_cycle(cycle.getInt());
  inst.set_node(nodeIndex(op->getLoc()));
  if (hisa::StreamAttr stream = op.getResultStream())
    setStream(*inst.mutable_dst(), stream);
  setDtype(inst, op);
  if (hisa::TrainAttr train = op.getTrain()) {
    inst.set_repeat(train.getCount());
    inst.set_repeat_cycles(train.getEvery());
    inst.set_repeat_step(train.getStep());
  }
  auto memory = [&](int64_t address, hetx::Opcode opcode) {
    inst.set_opcode(opcode);
    inst.set_address(address);
    inst.set_unit(chip.sliceOf(address));
  };
  // The part of the row a MEM or DMA instruction's narrow vector takes.
  if (std::optional<hisa::MemoryAccess> access = op.getMemoryAccess();
      access && access->part)
    inst.set_part(access->part);
  LogicalResult result =
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](hisa::ReadOp r) {
            memory(r.getAddress(), hetx::MEM_READ);
            if (std::optional<uint32_t> parts = r.getParts())
              inst.set_parts(*parts);
            return success();
          })
          .Case([&](hisa::WriteOp w) {
            memory(w.getAddress(), hetx::MEM_WRITE);
            return addSource(inst, op, w.getValue());
          })
          .Case([&](hisa::VBinaryOp v) {
            inst.set_opcode(binaryOpcode(v.getKind()));
            inst.set_lanes(v.getLanes());
            if (failed(addSource(inst, op, v.getLhs())))
              return failure();
            return addSource(inst, op, v.getRhs());
          })
          .Case([&](hisa::VUnaryOp v) {
            inst.set_opcode(unaryOpcode(v.getKind()));
            inst.set_lanes(v.getLanes());
            return addSource(inst, op, v.getInput());
          })
          .Case([&](hisa::VCompareOp v) {
            inst.set_opcode(compareOpcode(v.getKind()));
            inst.set_lanes(v.getLanes());
            if (failed(addSource(inst, op, v.getLhs())))
              return failure();
            return addSource(inst, op, v.getRhs());
          })
          .Case([&](hisa::VSelectOp v) {
            inst.set_opcode(hetx::V_SELECT);
            inst.set_lanes(v.getLanes());
            if (failed(addSource(inst, op, v.getCondition())) ||
                failed(addSource(inst, op, v.getLhs())))
              return failure();
            return addSource(inst, op, v.getRhs());
          })
          .Case([&](hisa::VCastOp v) {
            inst.set_opcode(hetx::V_CAST);
            inst.set_lanes(v.getLanes());
            inst.set_dtype(*dataTypeOf(v.getTo()));
            inst.set_src_dtype(*dataTypeOf(v.getFrom()));
            if (std::optional<uint32_t> parts = v.getParts())
              inst.set_parts(*parts);
            if (std::optional<hisa::CastOverflow> overflow = v.getOverflow())
              inst.set_overflow(*overflow == hisa::CastOverflow::wrap
                                    ? hetx::OVERFLOW_WRAP
                                : *overflow == hisa::CastOverflow::no_saturate
                                    ? hetx::OVERFLOW_NO_SATURATE
                                    : hetx::OVERFLOW_STANDARD);
            if (std::optional<hisa::E8M0Rounding> rounding = v.getRounding())
              inst.set_e8m0_rounding(*rounding == hisa::E8M0Rounding::down
                                         ? hetx::E8M0_ROUND_DOWN
                                     : *rounding == hisa::E8M0Rounding::nearest
                                         ? hetx::E8M0_ROUND_NEAREST
                                         : hetx::E8M0_ROUND_UP);
            return addSource(inst, op, v.getInput());
          })
          .Case([&](hisa::VReduceOp v) {
            inst.set_opcode(reduceOpcode(v.getKind()));
            inst.set_lanes(v.getLanes());
            return addSource(inst, op, v.getInput());
          })
          .Case([&](hisa::VBroadcastOp v) {
            // The whole vector is read; one lane of it fills the result.
            inst.set_opcode(hetx::V_BROADCAST);
            inst.set_lanes(chip.lanes());
            inst.set_source_lane(v.getLane());
            return addSource(inst, op, v.getInput());
          })
          .Case([&](hisa::LoadWeightsOp l) {
            inst.set_opcode(l.getSlot() == hisa::WeightSlot::row
                                ? hetx::M_LOAD_WEIGHTS
                                : hetx::M_LOAD_WEIGHTS_COLUMN);
            inst.set_unit(l.getPlane());
            inst.set_row(l.getIndex());
            if (std::optional<uint32_t> parts = l.getParts())
              inst.set_parts(*parts);
            inst.set_buffered(l.getBuffered());
            return addSource(inst, op, l.getValue());
          })
          .Case([&](hisa::InstallWeightsOp i) {
            inst.set_opcode(hetx::M_INSTALL_WEIGHTS);
            inst.set_unit(i.getPlane());
            return success();
          })
          .Case([&](hisa::MatMulOp m) {
            inst.set_opcode(hetx::M_MATMUL);
            inst.set_unit(m.getPlane());
            return addSource(inst, op, m.getInput());
          })
          .Case([&](hisa::C2CSendOp c) {
            inst.set_opcode(hetx::C2C_SEND);
            inst.set_unit(c.getLink());
            return addSource(inst, op, c.getValue());
          })
          .Case([&](hisa::C2CRecvOp c) {
            inst.set_opcode(hetx::C2C_RECV);
            inst.set_unit(c.getLink());
            return success();
          })
          .Case([&](hisa::DmaInOp d) {
            inst.set_opcode(hetx::DMA_IN);
            inst.set_unit(d.getEngine());
            inst.set_address(d.getAddress());
            inst.set_host_address(d.getHost());
            return success();
          })
          .Case([&](hisa::DmaOutOp d) {
            inst.set_opcode(hetx::DMA_OUT);
            inst.set_unit(d.getEngine());
            inst.set_address(d.getAddress());
            inst.set_host_address(d.getHost());
            return success();
          })
          .Case([&](hisa::PermuteOp p) {
            inst.set_opcode(hetx::S_PERMUTE);
            inst.set_unit(p.getSwitchUnit());
            inst.set_lanes(uint32_t(p.getMap().size()));
            inst.set_lane_map(laneMapIndex(p.getMap()));
            if (failed(addSource(inst, op, p.getInput())))
              return failure();
            if (Value into = p.getInto())
              return addSource(inst, op, into);
            return success();
          })
          .Default([](Operation *) { return success(); });
  if (failed(result))
    return failure();
  indexOf[op] = added();
  add(std::move(inst));
  return success();
}

LogicalResult Emitter::emit(func::FuncOp func) {
  auto predicted = func->getAttrOfType<IntegerAttr>("hetc.predicted_cycles");
  if (!predicted)
    return func.emitError("function is not scheduled; run hetc-hisa-schedule "
                          "first");
  artifact.set_predicted_cycles(predicted.getInt());
  for (Operation &op : func.getBody().front()) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](hisa::InputOp in) {
              hetx::TensorBinding &binding = *artifact.add_inputs();
              if (std::optional<int64_t> host = in.getHost())
                binding.set_host_address(*host);
              return bind(in, binding, in.getName(), in.getAddress(),
                          cast<ShapedType>(in.getType()));
            })
            .Case([&](hisa::OutputOp out) {
              hetx::TensorBinding &binding = *artifact.add_outputs();
              if (std::optional<int64_t> host = out.getHost())
                binding.set_host_address(*host);
              return bind(out, binding, out.getName(), out.getAddress(),
                          cast<ShapedType>(out.getType()));
            })
            .Case([&](hisa::ConstantOp c) -> LogicalResult {
              auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
              if (!dense)
                return c.emitError("only dense constants can be written to "
                                   "an artifact");
              hetx::Constant *constant = artifact.add_constants();
              std::string name = nodeNameOf(c.getLoc());
              if (failed(bind(c, *constant->mutable_binding(),
                              name.empty()
                                  ? "constant@" + std::to_string(c.getAddress())
                                  : name,
                              c.getAddress(), dense.getType())))
                return failure();
              return writeConstantData(c, dense, *constant->mutable_data());
            })
            .Case<func::ReturnOp>([](Operation *) { return success(); })
            .Case([&](hisa::GatherOp g) { return addGather(g); })
            .Case([&](hisa::ScatterOp s) { return addScatter(s); })
            .Default([&](Operation *other) -> LogicalResult {
              if (auto inst = dyn_cast<hisa::InstructionOpInterface>(other))
                return addInstruction(inst);
              return other->emitError("'")
                     << other->getName() << "' is not a hisa instruction";
            });
    if (failed(result))
      return failure();
  }

  // Issue order: by cycle, program order within a cycle. Sources name
  // their producer by its index in that order.
  auto &instructions = *artifact.mutable_instructions();
  std::vector<size_t> order(instructions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return instructions[int(a)].cycle() < instructions[int(b)].cycle();
  });
  std::vector<uint32_t> position(instructions.size());
  for (size_t i = 0; i < order.size(); ++i)
    position[order[i]] = uint32_t(i);
  for (const ProducerRef &ref : pendingProducers)
    instructions[int(ref.reader)].mutable_src(ref.slot)->set_producer(
        position[indexOf.lookup(ref.producer)]);
  for (auto [member, head] : pendingChains)
    instructions[int(member)].set_chain(position[head]);
  // The field owns its messages through pointers: putting the pointers in
  // issue order moves no message.
  {
    std::vector<hetx::Instruction *> inOrder(order.size());
    for (size_t i = 0; i < order.size(); ++i)
      inOrder[i] = instructions.Mutable(int(order[i]));
    std::copy(inOrder.begin(), inOrder.end(), instructions.pointer_begin());
  }
  std::map<uint32_t, hetx::Kernel> kernels;
  for (const hetx::Instruction &inst : instructions) {
    uint64_t cycle = inst.cycle();
    hetx::Kernel &kernel = kernels[inst.node()];
    if (kernel.instructions() == 0) {
      kernel.set_name(artifact.nodes(inst.node()));
      kernel.set_node(inst.node());
      kernel.set_first_cycle(cycle);
    }
    // A train's last issue.
    uint64_t last = cycle + uint64_t(std::max<uint32_t>(1, inst.repeat()) - 1) *
                                inst.repeat_cycles();
    kernel.set_last_cycle(std::max<uint64_t>(kernel.last_cycle(), last));
    kernel.set_instructions(kernel.instructions() + 1);
  }
  for (auto &[node, kernel] : kernels)
    *artifact.add_kernels() = std::move(kernel);
  return success();
}

} // namespace

FailureOr<hetx::Artifact>
hetc::codegen::emitArtifact(ModuleOp module, const chip::ChipSpec &chip) {
  auto funcs = module.getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return module.emitError("expected exactly one function to emit");
  Emitter emitter(chip);
  *emitter.artifact.mutable_chip() = artifact::identityOf(chip);
  emitter.artifact.set_producer(kProducer);
  if (failed(emitter.emit(*funcs.begin())))
    return failure();
  return std::move(emitter.artifact);
}
