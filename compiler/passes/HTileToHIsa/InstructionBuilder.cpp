//===- InstructionBuilder.cpp - The hisa instruction builders ------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

hisa::TrainAttr expansion::repeatOnly(hisa::TrainAttr train) {
  if (!train || train.getStep() == 0)
    return train;
  return hisa::TrainAttr::get(train.getContext(), train.getCount(),
                              train.getEvery(), 0);
}

Type expansion::elementOf(Value v) {
  return hisa::laneTypeOf(cast<MemRefType>(v.getType()).getElementType());
}

Tensor InstructionBuilder::tensor(Value buffer) const {
  auto type = cast<MemRefType>(buffer.getType());
  return {state.addresses.lookup(buffer), layoutOf(type, lanes)};
}

Type InstructionBuilder::vec() const {
  return hisa::VecType::get(b.getContext());
}

TypeAttr InstructionBuilder::dtype(Type type) const {
  return !type || type.isF32() ? TypeAttr() : TypeAttr::get(type);
}

IntegerAttr InstructionBuilder::partOf(int64_t word, Type type) const {
  int64_t part = partOfWord(word, type ? type : f32());
  return part ? b.getI32IntegerAttr(int32_t(part)) : IntegerAttr();
}

Value InstructionBuilder::read(Location loc, int64_t word, Type type,
                               hisa::TrainAttr train, int32_t parts) const {
  return hisa::ReadOp::create(
      b, loc, vec(), b.getI64IntegerAttr(word / 4), partOf(word, type),
      parts > 1 ? b.getI32IntegerAttr(parts) : IntegerAttr(), dtype(type),
      train, IntegerAttr(), hisa::StreamAttr());
}

void InstructionBuilder::write(Location loc, Value v, int64_t word, Type type,
                               hisa::TrainAttr train) const {
  hisa::WriteOp::create(b, loc, v, b.getI64IntegerAttr(word / 4),
                        partOf(word, type), dtype(type), train, IntegerAttr());
}

Value InstructionBuilder::binary(Location loc, hisa::VBinaryKind kind, Value x,
                                 Value y, int32_t n, Type type,
                                 hisa::TrainAttr train) const {
  return hisa::VBinaryOp::create(b, loc, vec(), kind, x, y, n, dtype(type),
                                 repeatOnly(train), IntegerAttr(),
                                 hisa::StreamAttr());
}

Value InstructionBuilder::unary(Location loc, hisa::VUnaryKind kind, Value x,
                                int32_t n, Type type,
                                hisa::TrainAttr train) const {
  return hisa::VUnaryOp::create(b, loc, vec(), kind, x, n, dtype(type),
                                repeatOnly(train), IntegerAttr(),
                                hisa::StreamAttr());
}

Value InstructionBuilder::reduce(Location loc, hisa::VReduceKind kind, Value x,
                                 int32_t n, Type type,
                                 hisa::TrainAttr train) const {
  return hisa::VReduceOp::create(b, loc, vec(), kind, x, n, dtype(type),
                                 repeatOnly(train), IntegerAttr(),
                                 hisa::StreamAttr());
}

Value InstructionBuilder::convert(Location loc, Value x, Type from, Type to,
                                  int32_t n, hisa::CastOverflowAttr overflow,
                                  hisa::E8M0RoundingAttr rounding,
                                  hisa::TrainAttr train, int32_t parts) const {
  return hisa::VCastOp::create(
      b, loc, vec(), x, TypeAttr::get(from), TypeAttr::get(to), overflow,
      rounding, b.getI32IntegerAttr(n),
      parts > 1 ? b.getI32IntegerAttr(parts) : IntegerAttr(), repeatOnly(train),
      IntegerAttr(), hisa::StreamAttr());
}

Value InstructionBuilder::permute(Location loc, Value input, Value into,
                                  uint32_t unit, ArrayRef<int32_t> map,
                                  Type type) const {
  return hisa::PermuteOp::create(b, loc, vec(), input, into, unit,
                                 b.getDenseI32ArrayAttr(map), dtype(type),
                                 IntegerAttr(), hisa::StreamAttr());
}

Value InstructionBuilder::spread(Location loc, Value x, Type type,
                                 hisa::TrainAttr train) const {
  if (hisa::isFloatLane(type) || type.isSignlessInteger(32))
    return reduce(loc, hisa::VReduceKind::sum, x, 1, type, train);
  assert(!train && "a permute does not repeat");
  return permute(loc, x, Value(), takeSwitch(), SmallVector<int32_t>(lanes, 0),
                 type);
}

Value InstructionBuilder::spreadLane(Location loc, Value x, uint32_t lane,
                                     Type type, hisa::TrainAttr train) const {
  return hisa::VBroadcastOp::create(b, loc, vec(), x, lane, dtype(type),
                                    repeatOnly(train), IntegerAttr(),
                                    hisa::StreamAttr());
}

uint32_t InstructionBuilder::takeSwitch() const {
  uint32_t unit = state.nextSwitch;
  state.nextSwitch = (state.nextSwitch + 1) % chip.switches();
  return unit;
}

SmallVector<uint32_t>
InstructionBuilder::takePlaneGroup(ArrayRef<SmallVector<uint32_t>> groups,
                                   size_t count) const {
  ArrayRef<uint32_t> members = groups[state.nextPlaneGroup++ % groups.size()];
  SmallVector<uint32_t> planes(members.take_front(count));
  state.nextPlane = (planes.back() + 1) % chip.proto().matrix().planes();
  return planes;
}

uint32_t InstructionBuilder::takePlane() const {
  uint32_t plane = state.nextPlane;
  state.nextPlane = (state.nextPlane + 1) % chip.proto().matrix().planes();
  return plane;
}
