//===- HIsaOps.cpp - hisa verifiers -----------------------------------===//

#include "compiler/dialects/hisa/IR/HIsa.h"

using namespace mlir;
using namespace hetc::hisa;

#define GET_OP_CLASSES
#include "compiler/dialects/hisa/IR/HIsaOps.cpp.inc"

namespace {
LogicalResult verifyAddress(Operation *op, int64_t address) {
  if (address < 0)
    return op->emitOpError("address must be >= 0, got ") << address;
  return success();
}
LogicalResult verifyLanes(Operation *op, int32_t lanes) {
  if (lanes < 1)
    return op->emitOpError("lanes must be >= 1, got ") << lanes;
  return success();
}
LogicalResult verifyPlane(Operation *op, int32_t plane) {
  if (plane < 0)
    return op->emitOpError("plane must be >= 0, got ") << plane;
  return success();
}

/// A DMA instruction: addresses >= 0 and an engine index >= 0.
LogicalResult verifyDma(Operation *op, int64_t address, int64_t host,
                        int32_t engine) {
  if (failed(verifyAddress(op, address)))
    return failure();
  if (host < 0)
    return op->emitOpError("host address must be >= 0, got ") << host;
  if (engine < 0)
    return op->emitOpError("engine must be >= 0, got ") << engine;
  return success();
}

/// A binding: a non-negative SRAM address and host address.
LogicalResult verifyBinding(Operation *op, int64_t address,
                            std::optional<int64_t> host) {
  if (failed(verifyAddress(op, address)))
    return failure();
  if (host && *host < 0)
    return op->emitOpError("host address must be >= 0, got ") << *host;
  return success();
}
} // namespace

/// A `part` of an SRAM row: below the vectors of `op`'s dtype a row holds.
static LogicalResult verifyPart(Operation *op, std::optional<uint32_t> part) {
  int64_t parts = 4 / sramLaneBytes(dtypeOf(op));
  if (!part || int64_t(*part) < parts)
    return success();
  return op->emitOpError("part ")
         << *part << " is not a part of an SRAM row, which holds " << parts
         << " vector" << (parts == 1 ? "" : "s") << " of " << dtypeOf(op);
}

LogicalResult InputOp::verify() {
  return verifyBinding(*this, getAddress(), getHost());
}
LogicalResult OutputOp::verify() {
  return verifyBinding(*this, getAddress(), getHost());
}
LogicalResult C2CSendOp::verify() {
  if (int32_t(getLink()) < 0)
    return emitOpError("link must be >= 0, got ") << int32_t(getLink());
  return success();
}
LogicalResult C2CRecvOp::verify() {
  if (int32_t(getLink()) < 0)
    return emitOpError("link must be >= 0, got ") << int32_t(getLink());
  return success();
}
LogicalResult DmaInOp::verify() {
  if (failed(verifyPart(*this, getPart())))
    return failure();
  return verifyDma(*this, getAddress(), getHost(), getEngine());
}
LogicalResult DmaOutOp::verify() {
  if (failed(verifyPart(*this, getPart())))
    return failure();
  return verifyDma(*this, getAddress(), getHost(), getEngine());
}

bool hetc::hisa::isFloatLane(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

bool hetc::hisa::isNarrowLane(Type type) {
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
          Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.getWidth() == 4 || integer.getWidth() == 2) &&
         (integer.isSignless() || integer.isUnsigned());
}

bool hetc::hisa::isLaneType(Type type) {
  if (isFloatLane(type) || isNarrowLane(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return false;
  switch (integer.getWidth()) {
  case 1:
  case 32:
    return integer.isSignless();
  case 8:
    return integer.isSignless() || integer.isUnsigned();
  default:
    return false;
  }
}

bool hetc::hisa::isNarrowHeld(Type type) {
  return type.isSignlessInteger(16) || type.isUnsignedInteger(16) ||
         type.isUnsignedInteger(32) || type.isUnsignedInteger(64);
}

bool hetc::hisa::isDefinedOn(VBinaryKind kind, Type type) {
  switch (kind) {
  case VBinaryKind::pow:
    return isFloatLane(type);
  case VBinaryKind::and_:
  case VBinaryKind::or_:
  case VBinaryKind::xor_:
    return type.isSignlessInteger(1) || type.isSignlessInteger(32);
  case VBinaryKind::shl:
  case VBinaryKind::shr:
    return type.isSignlessInteger(32);
  default:
    return isFloatLane(type) || type.isSignlessInteger(32);
  }
}

StringRef hetc::hisa::typesDefinedOn(VBinaryKind kind) {
  switch (kind) {
  case VBinaryKind::pow:
    return "f32, f16 and bf16";
  case VBinaryKind::and_:
  case VBinaryKind::or_:
  case VBinaryKind::xor_:
    return "i1 and i32";
  case VBinaryKind::shl:
  case VBinaryKind::shr:
    return "i32";
  default:
    return "f32, f16, bf16 and i32";
  }
}

bool hetc::hisa::isDefinedOn(VUnaryKind kind, Type type) {
  switch (kind) {
  case VUnaryKind::relu:
  case VUnaryKind::neg:
  case VUnaryKind::abs:
    return isFloatLane(type) || type.isSignlessInteger(32);
  case VUnaryKind::not_:
    return type.isSignlessInteger(1);
  default:
    return isFloatLane(type);
  }
}

StringRef hetc::hisa::typesDefinedOn(VUnaryKind kind) {
  switch (kind) {
  case VUnaryKind::relu:
  case VUnaryKind::neg:
  case VUnaryKind::abs:
    return "f32, f16, bf16 and i32";
  case VUnaryKind::not_:
    return "i1";
  default:
    return "f32, f16 and bf16";
  }
}

bool hetc::hisa::isComparisonDefinedOn(Type type) {
  return isFloatLane(type) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(1);
}

std::string hetc::hisa::heldTypeNames() {
  return std::string(kLaneTypeNames) +
         "; held as i32: i64, i16, ui16, ui32, ui64; as f32: f64";
}

Type hetc::hisa::laneTypeOf(Type type) {
  if (isLaneType(type))
    return type;
  if (type.isSignlessInteger(64) || isNarrowHeld(type))
    return IntegerType::get(type.getContext(), 32);
  if (type.isF64())
    return Float32Type::get(type.getContext());
  return Type();
}

int64_t hetc::hisa::sramLaneBytes(Type type) {
  if (type.isF16() || type.isBF16())
    return 2;
  if (isNarrowLane(type) || type.isSignlessInteger(1) ||
      type.isSignlessInteger(8) || type.isUnsignedInteger(8))
    return 1;
  return 4;
}

Type hetc::hisa::dtypeOf(Operation *op) {
  if (auto type = op->getAttrOfType<TypeAttr>("dtype"))
    return type.getValue();
  return Float32Type::get(op->getContext());
}

namespace {
bool isI32(Type type) { return type.isSignlessInteger(32); }
bool isBool(Type type) { return type.isSignlessInteger(1); }
bool isByteLane(Type type) {
  return type.isSignlessInteger(8) || type.isUnsignedInteger(8);
}

/// Checks that `op`'s dtype is a lane type and that `defined` holds for it;
/// `what` names the kind and `where` lists the types it is defined on.
LogicalResult verifyDtype(Operation *op, StringRef what, bool defined,
                          StringRef where) {
  Type type = dtypeOf(op);
  if (!isLaneType(type))
    return op->emitOpError("dtype ")
           << type << " is not an element type of the chip (" << kLaneTypeNames
           << ")";
  if (!defined)
    return op->emitOpError() << what << " is not defined on " << type
                             << "; it is defined on " << where;
  return success();
}
} // namespace

/// Checks a train (`repeat`): at least two issues at least a cycle apart,
/// a step only where the op steps, and operands that come from trains of
/// the same count and spacing (issue k reads issue k), as do all operands
/// of an op that issues once from ops that issue once.
static LogicalResult verifyTrain(Operation *op, TrainAttr train, bool stepped) {
  if (train && (train.getCount() < 2 || train.getEvery() < 1))
    return op->emitOpError("a train issues at least twice, at least a cycle "
                           "apart, got ")
           << train;
  if (train && !stepped && train.getStep() != 0)
    return op->emitOpError("repeats without a step, got ") << train;
  for (Value operand : op->getOperands()) {
    auto producer = operand.getDefiningOp<InstructionOpInterface>();
    if (!producer)
      continue;
    TrainAttr other = producer.getTrain();
    auto count = [](TrainAttr t) { return t ? t.getCount() : 1u; };
    auto every = [](TrainAttr t) { return t ? t.getEvery() : 0u; };
    if (count(train) != count(other) || every(train) != every(other))
      return op->emitOpError("issues ")
             << count(train) << " time(s)"
             << (train ? " every " + std::to_string(train.getEvery()) : "")
             << ", but its operand comes from an instruction that issues "
             << count(other) << " time(s)"
             << (other ? " every " + std::to_string(other.getEvery()) : "")
             << "; a train reads a train as long and as spaced";
  }
  return success();
}

/// The parts a read takes or a load installs (`parts`, 1 when absent).
static int64_t partsOf(std::optional<uint32_t> parts) {
  return parts ? int64_t(*parts) : 1;
}

/// Checks that only weight loads of `parts` parts, or conversions of as
/// many on their way to one, take `op`'s value of several parts.
static LogicalResult verifyPartsUsers(Operation *op, int64_t parts) {
  if (parts <= 1)
    return success();
  for (Operation *user : op->getResult(0).getUsers()) {
    std::optional<uint32_t> taken =
        isa<LoadWeightsOp>(user) ? cast<LoadWeightsOp>(user).getParts()
        : isa<VCastOp>(user)     ? cast<VCastOp>(user).getParts()
                                 : std::nullopt;
    if (partsOf(taken) != parts)
      return op->emitOpError("makes ")
             << parts << " parts, which only a hisa.load_weights (or a "
             << "hisa.vcast on its way to one) of " << parts
             << " parts takes, not " << user->getName();
  }
  return success();
}

/// What a value of several parts carries: the parts of the read or
/// conversion that made it and their type; 1 and no type for any other.
struct Carried {
  int64_t parts = 1;
  Type type;
};
static Carried carriedBy(Value value) {
  if (auto read = value.getDefiningOp<ReadOp>())
    return {partsOf(read.getParts()), dtypeOf(read)};
  if (auto cast = value.getDefiningOp<VCastOp>())
    return {partsOf(cast.getParts()), cast.getTo()};
  return {};
}

LogicalResult ReadOp::verify() {
  if (failed(verifyDtype(*this, "read", true, "")) ||
      failed(verifyPart(*this, getPart())) ||
      failed(verifyTrain(*this, getRepeatAttr(), true)))
    return failure();
  if (std::optional<uint32_t> parts = getParts()) {
    int64_t perRow = 4 / sramLaneBytes(dtypeOf(*this));
    int64_t first = getPart().value_or(0);
    if (*parts < 1 || first + int64_t(*parts) > perRow)
      return emitOpError("parts ")
             << int32_t(*parts) << " from part " << first
             << " are not parts of one SRAM row, which holds " << perRow
             << " vector" << (perRow == 1 ? "" : "s") << " of "
             << dtypeOf(*this);
    if (failed(verifyPartsUsers(*this, *parts)))
      return failure();
  }
  return verifyAddress(*this, getAddress());
}
/// Checks the fields a gather and a scatter share: type, part, index
/// lane, a table of at least one row of one vector, and its address.
template <typename IndexedOp>
static LogicalResult verifyTable(IndexedOp op, StringRef name) {
  if (failed(verifyDtype(op, name, true, "")) ||
      failed(verifyPart(op, op.getPart())))
    return failure();
  if (int32_t(op.getLane()) < 0)
    return op.emitOpError("lane must be >= 0, got ") << int32_t(op.getLane());
  if (op.getStride() < 1 || op.getRows() < 1)
    return op.emitOpError("stride and rows must be >= 1, got stride ")
           << op.getStride() << " and rows " << op.getRows();
  return verifyAddress(op, op.getTable());
}

LogicalResult GatherOp::verify() { return verifyTable(*this, "gather"); }

LogicalResult ScatterOp::verify() {
  if (getValues().size() != getIndices().size() || getValues().empty() ||
      getValues().size() > 2)
    return emitOpError("takes one or two pairs of a value and an index, got ")
           << getValues().size() << " values and " << getIndices().size()
           << " indices";
  return verifyTable(*this, "scatter");
}

LogicalResult WriteOp::verify() {
  if (failed(verifyDtype(*this, "write", true, "")) ||
      failed(verifyPart(*this, getPart())) ||
      failed(verifyTrain(*this, getRepeatAttr(), true)))
    return failure();
  return verifyAddress(*this, getAddress());
}

LogicalResult VBinaryOp::verify() {
  if (failed(verifyDtype(*this, stringifyVBinaryKind(getKind()),
                         isDefinedOn(getKind(), dtypeOf(*this)),
                         typesDefinedOn(getKind()))))
    return failure();
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  return verifyLanes(*this, getLanes());
}

LogicalResult VUnaryOp::verify() {
  if (failed(verifyDtype(*this, stringifyVUnaryKind(getKind()),
                         isDefinedOn(getKind(), dtypeOf(*this)),
                         typesDefinedOn(getKind()))))
    return failure();
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  return verifyLanes(*this, getLanes());
}

LogicalResult VReduceOp::verify() {
  Type type = dtypeOf(*this);
  if (failed(verifyDtype(*this, "vreduce", isFloatLane(type) || isI32(type),
                         "f32, f16, bf16 and i32")))
    return failure();
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  return verifyLanes(*this, getLanes());
}

LogicalResult VBroadcastOp::verify() {
  Type type = dtypeOf(*this);
  if (failed(verifyDtype(*this, "vbroadcast", isFloatLane(type) || isI32(type),
                         "f32, f16, bf16 and i32")))
    return failure();
  return verifyTrain(*this, getRepeatAttr(), false);
}

LogicalResult VCompareOp::verify() {
  Type type = dtypeOf(*this);
  if (failed(verifyDtype(*this, "vcompare", isComparisonDefinedOn(type),
                         kComparisonTypes)))
    return failure();
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  return verifyLanes(*this, getLanes());
}

LogicalResult VSelectOp::verify() {
  if (failed(verifyDtype(*this, "vselect", true, "")))
    return failure();
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  return verifyLanes(*this, getLanes());
}

LogicalResult VCastOp::verify() {
  for (Type type : {getFrom(), getTo()})
    if (!isLaneType(type))
      return emitOpError("type ")
             << type << " is not an element type of the chip ("
             << kLaneTypeNames << ")";
  Type to = getTo();
  bool toFloat8 = isNarrowLane(to) && isa<FloatType>(to);
  if (getOverflow() == CastOverflow::no_saturate && !toFloat8)
    return emitOpError("overflow no_saturate needs an 8- or 4-bit float "
                       "result, not ")
           << to;
  if (getOverflow() == CastOverflow::wrap && !isa<IntegerType>(to))
    return emitOpError("overflow wrap needs an integer result, not ") << to;
  if (getRounding() && !isa<Float8E8M0FNUType>(to))
    return emitOpError("rounding applies to f8E8M0FNU results only, not ")
           << to;
  if (failed(verifyTrain(*this, getRepeatAttr(), false)))
    return failure();
  if (std::optional<uint32_t> parts = getParts()) {
    int64_t widest = std::max(sramLaneBytes(getFrom()), sramLaneBytes(getTo()));
    if (*parts < 1 || int64_t(*parts) * widest > 4 ||
        carriedBy(getInput()).parts != int64_t(*parts))
      return emitOpError("converts ")
             << int32_t(*parts)
             << " parts, which needs a hisa.read of as many and types of at "
                "most "
             << 4 / std::max<int64_t>(*parts, 1) << " byte(s) a lane";
    if (failed(verifyPartsUsers(*this, *parts)))
      return failure();
  } else if (int64_t carried = carriedBy(getInput()).parts; carried != 1) {
    return emitOpError("converts one vector, but its operand carries ")
           << carried << " parts";
  }
  return verifyLanes(*this, getLanes());
}

LogicalResult MatMulOp::verify() {
  Type type = dtypeOf(*this);
  if (failed(verifyDtype(*this, "matmul", isFloatLane(type) || isByteLane(type),
                         "f32, f16, bf16, i8 and ui8")))
    return failure();
  return verifyPlane(*this, getPlane());
}

LogicalResult LoadWeightsOp::verify() {
  Type type = dtypeOf(*this);
  if (failed(verifyDtype(*this, "load_weights",
                         isFloatLane(type) || isByteLane(type),
                         "f32, f16, bf16, i8 and ui8")))
    return failure();
  // I32Attr getters are unsigned; read the index as written.
  int32_t index = int32_t(getIndex());
  if (index < 0)
    return emitOpError() << stringifyWeightSlot(getSlot())
                         << " must be >= 0, got " << index;
  if (failed(verifyTrain(*this, getRepeatAttr(), true)))
    return failure();
  int64_t parts = partsOf(getParts());
  if (parts != 1) {
    Carried carried = carriedBy(getValue());
    if (parts < 1 || getSlot() != WeightSlot::row || carried.parts != parts ||
        carried.type != type)
      return emitOpError("installs ")
             << int32_t(parts)
             << " parts, which needs a row slot and a hisa.read (or "
                "hisa.vcast) of as many parts of its type";
  }
  return verifyPlane(*this, getPlane());
}

LogicalResult InstallWeightsOp::verify() {
  return verifyPlane(*this, getPlane());
}

LogicalResult PermuteOp::verify() {
  if (failed(verifyDtype(*this, "permute", true, "")))
    return failure();
  int32_t unit = int32_t(getSwitchUnit());
  if (unit < 0)
    return emitOpError("switch must be >= 0, got ") << unit;
  ArrayRef<int32_t> map = getMap();
  if (map.empty())
    return emitOpError("map must have at least one lane");
  for (auto [j, from] : llvm::enumerate(map))
    if (from < -1)
      return emitOpError("map[")
             << j << "] is " << from
             << "; entries are source lanes (>= 0) or -1 (keep)";
  return success();
}
