//===- ConvertHTileToHIsa.cpp - Expand htile kernels to instructions --===//

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace hetc {
#define GEN_PASS_DEF_CONVERTHTILETOHISA
#include "compiler/passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {

/// A buffer as the instructions see it: base address and layout.
struct Tensor {
  int64_t base;
  BufferLayout layout;
  /// Vector address of chunk `j` of row `r`.
  int64_t at(int64_t r, int64_t j) const {
    return base + r * layout.vectorsPerRow + j;
  }
};

/// Emits hisa instructions for htile kernels, one kernel at a time.
class Expander {
public:
  Expander(OpBuilder &builder, const chip::ChipSpec &chip)
      : b(builder), chip(chip), lanes(chip.lanes()) {}

  /// Records the address of every buffer and emits the I/O bindings.
  LogicalResult bind(Operation *op);
  LogicalResult expand(Operation *op);

private:
  Tensor tensor(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return {addresses.lookup(buffer), layoutOf(type.getShape(), lanes)};
  }
  /// Lanes used by chunk `j` of a row of `cols` elements.
  int32_t lanesOf(int64_t cols, int64_t j) const {
    return int32_t(std::min<int64_t>(lanes, cols - j * lanes));
  }

  Type vec() { return hisa::VecType::get(b.getContext()); }
  Value read(Location loc, int64_t address) {
    return hisa::ReadOp::create(b, loc, vec(), b.getI64IntegerAttr(address),
                                IntegerAttr(), hisa::StreamAttr());
  }
  void write(Location loc, Value v, int64_t address) {
    hisa::WriteOp::create(b, loc, v, b.getI64IntegerAttr(address),
                          IntegerAttr());
  }
  Value binary(Location loc, hisa::VBinaryKind kind, Value x, Value y,
               int32_t n) {
    return hisa::VBinaryOp::create(b, loc, vec(), kind, x, y, n, IntegerAttr(),
                                   hisa::StreamAttr());
  }
  Value unary(Location loc, hisa::VUnaryKind kind, Value x, int32_t n) {
    return hisa::VUnaryOp::create(b, loc, vec(), kind, x, n, IntegerAttr(),
                                  hisa::StreamAttr());
  }
  Value reduce(Location loc, hisa::VReduceKind kind, Value x, int32_t n) {
    return hisa::VReduceOp::create(b, loc, vec(), kind, x, n, IntegerAttr(),
                                   hisa::StreamAttr());
  }

  void expandBinary(htile::BinaryOp op);
  void expandUnary(htile::UnaryOp op);
  void expandMatMul(htile::MatMulOp op);
  void expandSoftmax(htile::SoftmaxOp op);
  /// Softmax over rows of several vectors.
  void expandWideSoftmax(Location loc, const Tensor &in, const Tensor &out,
                         const Tensor &scratch);
  void expandTranspose(htile::TransposeOp op);
  void expandReduce(htile::ReduceOp op);
  void expandGather(htile::GatherOp op);
  Value permute(Location loc, Value input, Value into, uint32_t unit,
                ArrayRef<int32_t> map) {
    return hisa::PermuteOp::create(b, loc, vec(), input, into, unit,
                                   b.getDenseI32ArrayAttr(map), IntegerAttr(),
                                   hisa::StreamAttr());
  }
  uint32_t takeSwitch() {
    uint32_t unit = nextSwitch;
    nextSwitch = (nextSwitch + 1) % chip.switches();
    return unit;
  }
  uint32_t takePlane() {
    uint32_t plane = nextPlane;
    nextPlane = (nextPlane + 1) % chip.proto().matrix().planes();
    return plane;
  }

  OpBuilder &b;
  const chip::ChipSpec &chip;
  uint32_t lanes;
  DenseMap<Value, int64_t> addresses;
  /// Matrix planes are used round-robin across tiles and kernels so that
  /// one tile's weights load while another plane computes.
  uint32_t nextPlane = 0;
  /// Switch units, likewise round-robin per assembled vector.
  uint32_t nextSwitch = 0;
};

LogicalResult Expander::bind(Operation *op) {
  auto addressOf = [&](Operation *def) -> FailureOr<int64_t> {
    auto attr = def->getAttrOfType<IntegerAttr>("address");
    if (!attr)
      return def->emitError("buffer has no SRAM address; run "
                            "hetc-htile-plan-memory first");
    return attr.getInt();
  };
  auto tensorType = [](Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return TypeAttr::get(
        RankedTensorType::get(type.getShape(), type.getElementType()));
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::InputOp in) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(in);
        if (failed(a))
          return failure();
        addresses[in.getBuffer()] = *a;
        hisa::InputOp::create(b, in.getLoc(), in.getNameAttr(),
                              b.getI64IntegerAttr(*a), IntegerAttr(),
                              tensorType(in.getBuffer()));
        return success();
      })
      .Case([&](htile::ConstantOp c) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(c);
        if (failed(a))
          return failure();
        addresses[c.getBuffer()] = *a;
        hisa::ConstantOp::create(b, c.getLoc(), b.getI64IntegerAttr(*a),
                                 c.getValue());
        return success();
      })
      .Case([&](htile::AllocOp alloc) -> LogicalResult {
        FailureOr<int64_t> a = addressOf(alloc);
        if (failed(a))
          return failure();
        addresses[alloc.getBuffer()] = *a;
        return success();
      })
      .Case([&](htile::ViewOp view) {
        addresses[view.getResult()] = addresses.lookup(view.getSource());
        return success();
      })
      .Case([&](htile::OutputOp out) {
        hisa::OutputOp::create(b, out.getLoc(), out.getNameAttr(),
                               b.getI64IntegerAttr(
                                   addresses.lookup(out.getBuffer())),
                               IntegerAttr(), tensorType(out.getBuffer()));
        return success();
      })
      .Default([](Operation *) { return success(); });
}

LogicalResult Expander::expand(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::BinaryOp k) {
        expandBinary(k);
        return success();
      })
      .Case([&](htile::UnaryOp k) {
        expandUnary(k);
        return success();
      })
      .Case([&](htile::MatMulOp k) -> LogicalResult {
        if (std::optional<ArrayRef<int64_t>> tile = k.getTile())
          if ((*tile)[1] != int64_t(lanes) || (*tile)[2] != int64_t(lanes) ||
              (*tile)[0] != 1)
            return k.emitError("tile [")
                   << (*tile)[0] << ", " << (*tile)[1] << ", " << (*tile)[2]
                   << "] does not match chip '" << chip.name()
                   << "' (expected [1, " << lanes << ", " << lanes << "])";
        expandMatMul(k);
        return success();
      })
      .Case([&](htile::SoftmaxOp k) {
        expandSoftmax(k);
        return success();
      })
      .Case([&](htile::TransposeOp k) {
        expandTranspose(k);
        return success();
      })
      .Case([&](htile::ReduceOp k) {
        expandReduce(k);
        return success();
      })
      .Case([&](htile::GatherOp k) -> LogicalResult {
        if (chip.switches() == 0)
          return k.emitError("chip '")
                 << chip.name() << "' has no SWITCH unit to move data with";
        expandGather(k);
        return success();
      })
      .Case<htile::InputOp, htile::ConstantOp, htile::AllocOp, htile::ViewOp,
            htile::OutputOp, func::ReturnOp>([](Operation *) {
        return success();
      })
      .Default([](Operation *other) {
        return other->emitError("'")
               << other->getName() << "' cannot be lowered to hisa";
      });
}

/// Where one operand of a broadcasting elementwise kernel is read for each
/// row of the output: its row index (leading dimensions of size 1 repeat)
/// and whether its one-lane rows must be spread over the vector.
class BroadcastOperand {
public:
  BroadcastOperand(ArrayRef<int64_t> operand, ArrayRef<int64_t> output)
      : operand(operand), output(output) {
    spread = !output.empty() && output.back() != 1 &&
             (operand.empty() || operand.back() == 1);
  }
  /// The operand row that output row `row` reads.
  int64_t rowFor(int64_t row) const {
    int64_t rank = output.size(), offset = rank - int64_t(operand.size());
    int64_t result = 0, stride = 1;
    // Walk the output's leading dimensions from the innermost.
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t size = output[d], index = row % size;
      row /= size;
      int64_t od = d - offset;
      if (od < 0)
        continue;
      if (operand[od] != 1)
        result += index * stride;
      stride *= operand[od];
    }
    return result;
  }
  bool spread = false;

private:
  ArrayRef<int64_t> operand, output;
};

void Expander::expandBinary(htile::BinaryOp op) {
  Location loc = op.getLoc();
  Tensor lhs = tensor(op.getLhs()), rhs = tensor(op.getRhs()),
         out = tensor(op.getOutput());
  ArrayRef<int64_t> shape = op.getOutput().getType().getShape();
  BroadcastOperand lhsMap(op.getLhs().getType().getShape(), shape);
  BroadcastOperand rhsMap(op.getRhs().getType().getShape(), shape);
  auto address = [&](const Tensor &t, const BroadcastOperand &map, int64_t r,
                     int64_t j) {
    return t.at(map.rowFor(r), map.spread ? 0 : j);
  };
  auto operand = [&](int64_t at, const BroadcastOperand &map) {
    Value v = read(loc, at);
    // A one-lane row reaches every lane through a one-lane reduction.
    return map.spread ? reduce(loc, hisa::VReduceKind::sum, v, 1) : v;
  };
  auto kind = static_cast<hisa::VBinaryKind>(op.getKind());
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      int64_t lhsAt = address(lhs, lhsMap, r, j);
      int64_t rhsAt = address(rhs, rhsMap, r, j);
      Value x = operand(lhsAt, lhsMap);
      // x * x reads its vector once: two reads of one address in the
      // cycle the operands must meet would need one bank twice.
      Value y = lhsAt == rhsAt && lhsMap.spread == rhsMap.spread
                    ? x
                    : operand(rhsAt, rhsMap);
      write(loc, binary(loc, kind, x, y, lanesOf(out.layout.cols, j)),
            out.at(r, j));
    }
}

void Expander::expandUnary(htile::UnaryOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  auto kind = static_cast<hisa::VUnaryKind>(op.getKind());
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
      write(loc,
            unary(loc, kind, read(loc, in.at(r, j)),
                  lanesOf(out.layout.cols, j)),
            out.at(r, j));
}

void Expander::expandMatMul(htile::MatMulOp op) {
  Location loc = op.getLoc();
  Tensor x = tensor(op.getInput()), w = tensor(op.getWeight()),
         out = tensor(op.getOutput());
  std::optional<Tensor> bias;
  if (op.getBias())
    bias = tensor(op.getBias());
  int64_t k = x.layout.cols, kTiles = x.layout.vectorsPerRow;
  std::optional<hisa::VUnaryKind> activation;
  switch (op.getActivation()) {
  case htile::Activation::none:
    break;
  case htile::Activation::relu:
    activation = hisa::VUnaryKind::relu;
    break;
  case htile::Activation::sigmoid:
    activation = hisa::VUnaryKind::sigmoid;
    break;
  case htile::Activation::tanh:
    activation = hisa::VUnaryKind::tanh;
    break;
  }

  for (int64_t jn = 0; jn < out.layout.vectorsPerRow; ++jn) {
    int32_t nLanes = lanesOf(out.layout.cols, jn);
    for (int64_t jk = 0; jk < kTiles; ++jk) {
      uint32_t plane = takePlane();
      // Install the k x n weight tile, one row per instruction. Rows past
      // K keep older weights; they meet zero padding lanes of the input.
      int64_t kRows = std::min<int64_t>(lanes, k - jk * lanes);
      for (int64_t i = 0; i < kRows; ++i)
        hisa::LoadWeightsOp::create(b, loc, read(loc, w.at(jk * lanes + i, jn)),
                                    plane, hisa::WeightSlot::row, int32_t(i),
                                    IntegerAttr());
      bool last = jk == kTiles - 1;
      for (int64_t r = 0; r < x.layout.rows; ++r) {
        Value acc = hisa::MatMulOp::create(b, loc, vec(), read(loc, x.at(r, jk)),
                                           plane, IntegerAttr(),
                                           hisa::StreamAttr());
        // Partial sums over K tiles accumulate through the output buffer.
        if (jk > 0)
          acc = binary(loc, hisa::VBinaryKind::add, acc,
                       read(loc, out.at(r, jn)), nLanes);
        if (last && bias)
          acc = binary(loc, hisa::VBinaryKind::add, acc,
                       read(loc, bias->at(0, jn)), nLanes);
        if (last && activation)
          acc = unary(loc, *activation, acc, nLanes);
        write(loc, acc, out.at(r, jn));
      }
    }
  }
}

void Expander::expandSoftmax(htile::SoftmaxOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput()),
         scratch = tensor(op.getScratch());
  int32_t n = int32_t(in.layout.cols);
  if (in.layout.vectorsPerRow > 1)
    return expandWideSoftmax(loc, in, out, scratch);
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    // e = exp(x - max(x)), kept in scratch while its sum is formed.
    Value max = reduce(loc, hisa::VReduceKind::max, read(loc, in.at(r, 0)), n);
    Value shifted =
        binary(loc, hisa::VBinaryKind::sub, read(loc, in.at(r, 0)), max, n);
    write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n),
          scratch.at(r, 0));
    Value sum =
        reduce(loc, hisa::VReduceKind::sum, read(loc, scratch.at(r, 0)), n);
    write(loc,
          binary(loc, hisa::VBinaryKind::div, read(loc, scratch.at(r, 0)),
                 sum, n),
          out.at(r, 0));
  }
}

void Expander::expandWideSoftmax(Location loc, const Tensor &in,
                                 const Tensor &out, const Tensor &scratch) {
  int64_t vectors = in.layout.vectorsPerRow, cols = in.layout.cols;
  int32_t all = int32_t(lanes);
  // The row's maximum and sum are combined across its vectors, each
  // reduction broadcast to every lane. Each is parked in the output row
  // (vectors 0 and 1, which are written last) so that every later use
  // reads it on its own: one stream value read by many instructions would
  // force them into one cycle.
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    Value max = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      Value part = reduce(loc, hisa::VReduceKind::max, read(loc, in.at(r, j)),
                          lanesOf(cols, j));
      max = max ? binary(loc, hisa::VBinaryKind::max, max, part, all) : part;
    }
    write(loc, max, out.at(r, 0));
    Value sum = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      int32_t n = lanesOf(cols, j);
      Value x = read(loc, in.at(r, j));
      Value shifted =
          binary(loc, hisa::VBinaryKind::sub, x, read(loc, out.at(r, 0)), n);
      write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n),
            scratch.at(r, j));
      Value part =
          reduce(loc, hisa::VReduceKind::sum, read(loc, scratch.at(r, j)), n);
      sum = sum ? binary(loc, hisa::VBinaryKind::add, sum, part, all) : part;
    }
    write(loc, sum, out.at(r, 1));
    // Vector 1 holds the sum, so it is divided last; vector 0 (the maximum,
    // no longer needed) just before it.
    std::vector<int64_t> order;
    for (int64_t j = vectors - 1; j >= 2; --j)
      order.push_back(j);
    order.push_back(0);
    order.push_back(1);
    for (int64_t j : order) {
      Value e = read(loc, scratch.at(r, j));
      write(loc,
            binary(loc, hisa::VBinaryKind::div, e, read(loc, out.at(r, 1)),
                   lanesOf(cols, j)),
            out.at(r, j));
    }
  }
}

/// The input row that output row `row` of a dimension permutation reads,
/// for permutations of the leading dimensions (`shape` is the input's,
/// `perm` maps output dimensions to input ones, both without the
/// dimensions the rows are made of).
static int64_t permutedRow(int64_t row, ArrayRef<int64_t> inShape,
                           ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  SmallVector<int64_t> inIndex(rank, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t size = inShape[perm[d]];
    inIndex[perm[d]] = row % size;
    row /= size;
  }
  int64_t flat = 0;
  for (int64_t d = 0; d < rank; ++d)
    flat = flat * inShape[d] + inIndex[d];
  return flat;
}

void Expander::expandTranspose(htile::TransposeOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  if (!op.swapsInnermost()) {
    // Whole rows move: each vector goes from SRAM to SRAM on a stream.
    ArrayRef<int64_t> lead = rank ? perm.drop_back() : perm;
    for (int64_t r = 0; r < out.layout.rows; ++r) {
      int64_t source = permutedRow(r, inShape.drop_back(), lead);
      for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
        write(loc, read(loc, in.at(source, j)), out.at(r, j));
    }
    return;
  }
  // Each matrix [m, k] becomes [k, m], a lanes x lanes tile at a time: the
  // tile's rows go in as weight columns, and multiplying unit vector e_c
  // reads out column c as a row. Columns past the tile's rows hold older
  // weights, so the result is masked to the valid lanes.
  Tensor eye = tensor(op.getIdentity());
  int64_t m = inShape[rank - 2], k = inShape[rank - 1];
  int64_t batches = m ? in.layout.rows / m : 0;
  ArrayRef<int64_t> lead = perm.drop_back(2);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t source = permutedRow(batch, inShape.drop_back(2), lead);
    for (int64_t mi = 0; mi * lanes < m; ++mi)
      for (int64_t ki = 0; ki * lanes < k; ++ki) {
        uint32_t plane = takePlane();
        int64_t tileRows = std::min<int64_t>(lanes, m - mi * lanes);
        int64_t tileCols = std::min<int64_t>(lanes, k - ki * lanes);
        for (int64_t i = 0; i < tileRows; ++i)
          hisa::LoadWeightsOp::create(
              b, loc, read(loc, in.at(source * m + mi * lanes + i, ki)),
              plane, hisa::WeightSlot::column, int32_t(i), IntegerAttr());
        for (int64_t c = 0; c < tileCols; ++c) {
          Value column = hisa::MatMulOp::create(b, loc, vec(),
                                                read(loc, eye.at(c, 0)), plane,
                                                IntegerAttr(),
                                                hisa::StreamAttr());
          Value masked = binary(loc, hisa::VBinaryKind::max, column, column,
                                int32_t(tileRows));
          write(loc, masked, out.at(batch * k + ki * lanes + c, mi));
        }
      }
  }
}

void Expander::expandReduce(htile::ReduceOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  auto kind = static_cast<hisa::VReduceKind>(op.getKind());
  hisa::VBinaryKind combine = kind == hisa::VReduceKind::sum
                                  ? hisa::VBinaryKind::add
                              : kind == hisa::VReduceKind::max
                                  ? hisa::VBinaryKind::max
                                  : hisa::VBinaryKind::min;
  for (int64_t r = 0; r < in.layout.rows; ++r)
    for (int64_t j = 0; j < in.layout.vectorsPerRow; ++j) {
      Value part = reduce(loc, kind, read(loc, in.at(r, j)),
                          lanesOf(in.layout.cols, j));
      // The reduction fills every lane; combining (or, for the first
      // vector, max with itself) keeps lane 0 and zeroes the rest.
      Value other = j ? read(loc, out.at(r, 0)) : part;
      write(loc, binary(loc, j ? combine : hisa::VBinaryKind::max, part, other, 1),
            out.at(r, 0));
    }
}

void Expander::expandGather(htile::GatherOp op) {
  Location loc = op.getLoc();
  // The inputs as one list of elements: input k starts at first[k].
  struct Source {
    int64_t first;
    Tensor tensor;
  };
  SmallVector<Source> sources;
  int64_t total = 0;
  for (Value input : op.getInputs()) {
    sources.push_back({total, tensor(input)});
    total += cast<MemRefType>(input.getType()).getNumElements();
  }
  Tensor out = tensor(op.getOutput());
  ArrayRef<int64_t> indices = op.getIndices();
  int64_t cols = out.layout.cols;
  // One input vector an output vector draws from, and the lane map that
  // moves its lanes into place.
  struct Part {
    int64_t address;
    int32_t sourceLanes;
    SmallVector<int32_t> map;
  };
  for (int64_t r = 0; r < out.layout.rows; ++r)
    for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j) {
      int32_t n = lanesOf(cols, j);
      SmallVector<Part> parts;
      DenseMap<int64_t, unsigned> partOf;
      for (int32_t l = 0; l < n; ++l) {
        int64_t index = indices[r * cols + j * lanes + l];
        if (index < 0)
          continue;
        const Source *source = std::prev(llvm::upper_bound(
            sources, index,
            [](int64_t i, const Source &s) { return i < s.first; }));
        int64_t element = index - source->first;
        int64_t sourceCols = source->tensor.layout.cols;
        int64_t row = element / sourceCols, col = element % sourceCols;
        int64_t address = source->tensor.at(row, col / lanes);
        auto [it, inserted] = partOf.try_emplace(address, parts.size());
        if (inserted)
          parts.push_back({address, lanesOf(sourceCols, col / lanes),
                           SmallVector<int32_t>(n, -1)});
        parts[it->second].map[l] = int32_t(col % lanes);
      }
      int64_t target = out.at(r, j);
      // A whole input vector in place (same lanes, padding included) needs
      // no switch.
      if (parts.size() == 1 && parts[0].sourceLanes == n &&
          llvm::all_of(llvm::seq<int32_t>(0, n),
                       [&](int32_t l) { return parts[0].map[l] == l; })) {
        write(loc, read(loc, parts[0].address), target);
        continue;
      }
      uint32_t unit = takeSwitch();
      if (parts.empty()) {
        // Only zeros: any input vector permuted with every lane kept.
        int64_t some = sources.front().tensor.at(0, 0);
        for (const Source &source : sources)
          if (source.tensor.layout.vectors() > 0) {
            some = source.tensor.at(0, 0);
            break;
          }
        write(loc,
              permute(loc, read(loc, some), Value(), unit,
                      SmallVector<int32_t>(n, -1)),
              target);
        continue;
      }
      // Each part merges its lanes into the partial vector before it.
      Value partial;
      for (const Part &part : parts)
        partial = permute(loc, read(loc, part.address), partial, unit, part.map);
      write(loc, partial, target);
    }
}

struct ConvertHTileToHIsaPass
    : hetc::impl::ConvertHTileToHIsaBase<ConvertHTileToHIsaPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<chip::ChipSpec> spec =
        loadChipForPass(getOperation(), chip, getArgument());
    if (failed(spec))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      OpBuilder builder(func);
      auto target = func::FuncOp::create(builder, func.getLoc(),
                                         func.getName(), func.getFunctionType());
      target->setDiscardableAttrs(func->getDiscardableAttrDictionary());
      builder.setInsertionPointToStart(target.addEntryBlock());
      Expander expander(builder, *spec);
      bool ok = true;
      for (Operation &op : func.getBody().front())
        ok &= succeeded(expander.bind(&op));
      // Expand only when every buffer is bound; report every kernel that
      // cannot be expanded.
      bool bound = ok;
      for (Operation &op : func.getBody().front())
        if (bound)
          ok &= succeeded(expander.expand(&op));
      if (!ok)
        return signalPassFailure();
      func::ReturnOp::create(builder, func.getLoc());
      func.erase();
    }
  }
};

} // namespace
