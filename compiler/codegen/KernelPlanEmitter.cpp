//===- KernelPlanEmitter.cpp - Placed htile to the artifact's kernel plan ===//

#include "compiler/codegen/KernelPlanEmitter.h"
#include "compiler/codegen/HetxEmitter.h"
#include "compiler/codegen/HetxTypes.h"

#include "compiler/dialects/htile/IR/HTile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace hetc;
using namespace hetc::codegen;

void codegen::appendIndexRuns(ArrayRef<int64_t> indices,
                              ArrayRef<int64_t> bounds,
                              google::protobuf::RepeatedField<int64_t> &runs) {
  // The exclusive end of the list index `i` lies in (-1: the zeros').
  auto endOf = [&](int64_t i) -> int64_t {
    if (i < 0)
      return -1;
    return *std::upper_bound(bounds.begin(), bounds.end(), i);
  };
  size_t n = indices.size();
  for (size_t i = 0; i < n;) {
    int64_t first = indices[i], end = endOf(first);
    int64_t step = 0, count = 1;
    if (i + 1 < n) {
      int64_t next = indices[i + 1];
      if (first < 0 ? next < 0 : next >= 0 && endOf(next) == end) {
        step = first < 0 ? 0 : next - first;
        count = 2;
        while (i + count < n) {
          int64_t want = first + step * count;
          int64_t got = indices[i + count];
          if (first < 0 ? got >= 0 : got != want || endOf(got) != end)
            break;
          ++count;
        }
      }
    }
    runs.Add(first < 0 ? -1 : first);
    runs.Add(step);
    runs.Add(count);
    i += size_t(count);
  }
}

namespace {

/// A convolution's window in its plan kernel.
void setWindow(hetx::PlanKernel &kernel, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  kernel.mutable_strides()->Add(strides.begin(), strides.end());
  kernel.mutable_pads()->Add(pads.begin(), pads.end());
  kernel.mutable_dilations()->Add(dilations.begin(), dilations.end());
}

class PlanEmitter {
public:
  LogicalResult emit(func::FuncOp func);
  hetx::KernelPlan plan;

private:
  /// Adds a buffer for `value` of its memref type.
  hetx::PlanBuffer *addBuffer(Operation *op, Value value) {
    auto type = cast<MemRefType>(value.getType());
    std::optional<hetx::DataType> dtype = dataTypeOf(type.getElementType());
    if (!dtype) {
      op->emitError("buffer of element type ")
          << type.getElementType() << " has no artifact type";
      return nullptr;
    }
    buffers[value] = uint32_t(plan.buffers_size());
    hetx::PlanBuffer *buffer = plan.add_buffers();
    buffer->set_dtype(*dtype);
    for (int64_t d : type.getShape())
      buffer->add_shape(d);
    return buffer;
  }
  FailureOr<uint32_t> indexOf(Operation *op, Value value) {
    auto it = buffers.find(value);
    if (it == buffers.end())
      return op->emitError("operand is not an htile buffer of this function");
    return it->second;
  }
  /// A kernel of `kind` for `op`, reading `operands` and writing `result`;
  /// first, for each operand that is (a view of) a view of rows, the copy
  /// of those rows (copyRows).
  FailureOr<hetx::PlanKernel *> addKernel(Operation *op,
                                          hetx::PlanKernelKind kind,
                                          ValueRange operands, Value result) {
    copyRowsRead(operands);
    if (rowsOf.count(result))
      return op->emitError("writes through a view of rows of a buffer, "
                           "which is only read (htile.view)");
    hetx::PlanKernel kernel;
    kernel.set_kind(kind);
    kernel.set_node(nodeNameOf(op->getLoc()));
    for (Value operand : operands) {
      FailureOr<uint32_t> index = indexOf(op, operand);
      if (failed(index))
        return failure();
      kernel.add_operands(*index);
    }
    FailureOr<uint32_t> index = indexOf(op, result);
    if (failed(index))
      return failure();
    kernel.set_result(*index);
    hetx::PlanKernel *added = plan.add_kernels();
    *added = std::move(kernel);
    return added;
  }
  LogicalResult emitOp(Operation *op);
  /// A PLAN_GATHER kernel for `op`: element `indices[i]` of `inputs` as one
  /// list into the rows of `output` from `firstRow` on.
  LogicalResult addGather(Operation *op, ValueRange inputs, Value output,
                          ArrayRef<int64_t> indices, int64_t firstRow);
  /// Drops the kernels whose results nothing later reads, and the scratch
  /// buffers only they used. A kernel of the plan only (htile.plan_*)
  /// writes its result whole, so the chip's kernels that filled it before,
  /// and those that only fed them, go (as for any kernel that writes its
  /// whole result).
  void dropUnneeded();

  /// A view of rows of a buffer (htile.view with `rows`): the chip reads
  /// them in place; the plan holds them in a scratch buffer of their own,
  /// copied from the source before each kernel that reads them (and at the
  /// end for an output), when the source holds what the chip reads there.
  struct RowView {
    uint32_t source, copy;
    uint64_t first, count;
    Location loc;
  };
  void copyRows(const RowView &view) {
    hetx::PlanKernel *kernel = plan.add_kernels();
    kernel->set_kind(hetx::PLAN_GATHER);
    kernel->set_node(nodeNameOf(view.loc));
    kernel->add_operands(view.source);
    kernel->set_result(view.copy);
    kernel->add_index_runs(int64_t(view.first));
    kernel->add_index_runs(1);
    kernel->add_index_runs(int64_t(view.count));
  }

  /// Copies the rows of each of `values` that is a view of rows.
  void copyRowsRead(ValueRange values) {
    for (Value value : values)
      if (auto it = rowsOf.find(value); it != rowsOf.end())
        copyRows(it->second);
  }

  DenseMap<Value, uint32_t> buffers;
  /// Each view of rows, and each view of one, by value.
  DenseMap<Value, RowView> rowsOf;
  /// The views of rows that outputs name, copied after the last kernel.
  SmallVector<RowView> outputRows;
};

LogicalResult PlanEmitter::emitOp(Operation *op) {
  using Kernel = FailureOr<hetx::PlanKernel *>;
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](htile::InputOp in) -> LogicalResult {
        hetx::PlanBuffer *buffer = addBuffer(op, in.getBuffer());
        if (!buffer)
          return failure();
        buffer->set_input(in.getName().str());
        return success();
      })
      .Case([&](htile::ConstantOp c) -> LogicalResult {
        std::optional<int64_t> address = c.getAddress();
        if (!address)
          return c.emitError("constant has no SRAM address; run "
                             "hetc-htile-plan-memory first");
        hetx::PlanBuffer *buffer = addBuffer(op, c.getBuffer());
        if (!buffer)
          return failure();
        buffer->set_constant_address(uint64_t(*address));
        return success();
      })
      .Case([&](htile::AllocOp alloc) -> LogicalResult {
        hetx::PlanBuffer *buffer = addBuffer(op, alloc.getBuffer());
        if (!buffer)
          return failure();
        buffer->set_scratch(true);
        return success();
      })
      .Case([&](htile::ViewOp view) -> LogicalResult {
        FailureOr<uint32_t> source = indexOf(op, view.getSource());
        if (failed(source))
          return failure();
        hetx::PlanBuffer *buffer = addBuffer(op, view.getResult());
        if (!buffer)
          return failure();
        // The first rows of a constant are the start of its buffer, which
        // nothing changes: a plain view.
        std::optional<int64_t> first = view.getFirstRow();
        if (first == 0 && view.getSource().getDefiningOp<htile::ConstantOp>())
          first.reset();
        if (first) {
          MemRefType from = view.getSource().getType();
          uint64_t row = from.getRank() ? uint64_t(from.getShape().back()) : 1;
          RowView rows{
              *source, buffers.lookup(view.getResult()), uint64_t(*first) * row,
              uint64_t(view.getType().getNumElements()), view.getLoc()};
          // Rows of (a view of) rows are rows of the first source.
          if (auto it = rowsOf.find(view.getSource()); it != rowsOf.end()) {
            rows.source = it->second.source;
            rows.first += it->second.first;
          }
          buffer->set_scratch(true);
          rowsOf.try_emplace(view.getResult(), rows);
          return success();
        }
        buffer->set_view_of(*source);
        if (auto it = rowsOf.find(view.getSource()); it != rowsOf.end())
          rowsOf.try_emplace(view.getResult(), it->second);
        return success();
      })
      .Case([&](htile::OutputOp out) -> LogicalResult {
        FailureOr<uint32_t> index = indexOf(op, out.getBuffer());
        if (failed(index))
          return failure();
        if (auto it = rowsOf.find(out.getBuffer()); it != rowsOf.end())
          outputRows.push_back(it->second);
        hetx::PlanBinding *binding = plan.add_outputs();
        binding->set_name(out.getName().str());
        binding->set_buffer(*index);
        return success();
      })
      .Case([&](htile::MatMulOp mm) -> LogicalResult {
        SmallVector<Value> rows;
        for (Value v : {mm.getBias(), mm.getScale()})
          if (v)
            rows.push_back(v);
        copyRowsRead(rows);
        Kernel k = addKernel(op, hetx::PLAN_MATMUL,
                             {mm.getInput(), mm.getWeight()}, mm.getOutput());
        if (failed(k))
          return failure();
        if (std::optional<hisa::VUnaryKind> act =
                htile::activationKind(mm.getActivation()))
          (*k)->set_opcode(unaryOpcode(*act));
        (*k)->set_transposed_weight(mm.getTransposed());
        if (std::optional<int64_t> interleave = mm.getInterleave()) {
          (*k)->set_interleave(uint32_t(*interleave));
          (*k)->set_interleave_cols(uint32_t((*mm.getTile())[2]));
        }
        if (Value bias = mm.getBias()) {
          FailureOr<uint32_t> index = indexOf(op, bias);
          if (failed(index))
            return failure();
          (*k)->set_bias(*index);
        }
        if (Value scale = mm.getScale()) {
          FailureOr<uint32_t> index = indexOf(op, scale);
          if (failed(index))
            return failure();
          (*k)->set_scale(*index);
        }
        return success();
      })
      .Case([&](htile::BinaryOp bin) -> LogicalResult {
        // The comparisons as the chip runs them: greater (or equal) is
        // less (or equal) with the operands swapped.
        Value lhs = bin.getLhs(), rhs = bin.getRhs();
        hetx::Opcode opcode;
        bool swapped = false;
        if (auto comparison = htile::comparisonOf(bin.getKind())) {
          opcode = compareOpcode(comparison->first);
          swapped = comparison->second;
          if (swapped)
            std::swap(lhs, rhs);
        } else {
          opcode = binaryOpcode(*hisa::symbolizeVBinaryKind(
              htile::stringifyBinaryKind(bin.getKind())));
        }
        Kernel k =
            addKernel(op, hetx::PLAN_BINARY, {lhs, rhs}, bin.getOutput());
        if (failed(k))
          return failure();
        (*k)->set_opcode(opcode);
        // A packed column (R values, in copies) broadcasts as R x 1: the
        // plan reads its first copy through a view of that shape.
        if (std::optional<htile::OperandSide> side = bin.getColumn()) {
          int at = int(*side == htile::OperandSide::rhs) ^ int(swapped);
          Value column = at ? rhs : lhs;
          uint32_t source = (*k)->operands(at);
          hetx::PlanBuffer *view = plan.add_buffers();
          view->set_dtype(plan.buffers(int(source)).dtype());
          view->add_shape(cast<MemRefType>(column.getType()).getShape().back());
          view->add_shape(1);
          view->set_view_of(source);
          (*k)->set_operands(at, uint32_t(plan.buffers_size() - 1));
        }
        return success();
      })
      .Case([&](htile::UnaryOp un) -> LogicalResult {
        Kernel k =
            addKernel(op, hetx::PLAN_UNARY, {un.getInput()}, un.getOutput());
        if (failed(k))
          return failure();
        (*k)->set_opcode(unaryOpcode(un.getKind()));
        return success();
      })
      .Case([&](htile::CastOp cast) -> LogicalResult {
        Kernel k =
            addKernel(op, hetx::PLAN_CAST, {cast.getInput()}, cast.getOutput());
        if (failed(k))
          return failure();
        switch (cast.getOverflow().value_or(htile::CastOverflow::standard)) {
        case htile::CastOverflow::standard:
          break;
        case htile::CastOverflow::no_saturate:
          (*k)->set_overflow(hetx::OVERFLOW_NO_SATURATE);
          break;
        case htile::CastOverflow::wrap:
          (*k)->set_overflow(hetx::OVERFLOW_WRAP);
          break;
        }
        switch (cast.getRounding().value_or(htile::E8M0Rounding::up)) {
        case htile::E8M0Rounding::up:
          break;
        case htile::E8M0Rounding::down:
          (*k)->set_e8m0_rounding(hetx::E8M0_ROUND_DOWN);
          break;
        case htile::E8M0Rounding::nearest:
          (*k)->set_e8m0_rounding(hetx::E8M0_ROUND_NEAREST);
          break;
        }
        return success();
      })
      .Case([&](htile::SelectOp sel) -> LogicalResult {
        return addKernel(op, hetx::PLAN_SELECT,
                         {sel.getCondition(), sel.getLhs(), sel.getRhs()},
                         sel.getOutput());
      })
      .Case([&](htile::SoftmaxOp sm) -> LogicalResult {
        return addKernel(op, hetx::PLAN_SOFTMAX, {sm.getInput()},
                         sm.getOutput());
      })
      .Case([&](htile::ReduceOp red) -> LogicalResult {
        Kernel k =
            addKernel(op, hetx::PLAN_REDUCE, {red.getInput()}, red.getOutput());
        if (failed(k))
          return failure();
        (*k)->set_opcode(reduceOpcode(red.getKind()));
        return success();
      })
      .Case([&](htile::TransposeOp tr) -> LogicalResult {
        Kernel k = addKernel(op, hetx::PLAN_TRANSPOSE, {tr.getInput()},
                             tr.getOutput());
        if (failed(k))
          return failure();
        for (int64_t d : tr.getPerm())
          (*k)->add_perm(d);
        return success();
      })
      .Case([&](htile::DepthwiseConvOp conv) -> LogicalResult {
        // The copies of the weight are the chip's business: the plan
        // takes the first.
        SmallVector<Value> operands{conv.getInput(), conv.getWeights().front()};
        if (Value bias = conv.getBias())
          operands.push_back(bias);
        Kernel k = addKernel(op, hetx::PLAN_DEPTHWISE_CONV, operands,
                             conv.getOutput());
        if (failed(k))
          return failure();
        setWindow(**k, conv.getStrides(), conv.getPads(), conv.getDilations());
        return success();
      })
      .Case([&](htile::PlanDepthwiseConvOp conv) -> LogicalResult {
        SmallVector<Value> operands{conv.getInput()};
        llvm::append_range(operands, conv.getTaps());
        if (Value bias = conv.getBias())
          operands.push_back(bias);
        Kernel k = addKernel(op, hetx::PLAN_DEPTHWISE_CONV_CF, operands,
                             conv.getOutput());
        if (failed(k))
          return failure();
        for (int64_t v : conv.getInputShape())
          (*k)->add_input_shape(v);
        for (int64_t v : conv.getKernel())
          (*k)->add_kernel_shape(v);
        setWindow(**k, conv.getStrides(), conv.getPads(), conv.getDilations());
        return success();
      })
      .Case([&](htile::PlanConvOp conv) -> LogicalResult {
        SmallVector<Value> operands{conv.getInput()};
        llvm::append_range(operands, conv.getWeights());
        Kernel k = addKernel(op, hetx::PLAN_CONV, operands, conv.getOutput());
        if (failed(k))
          return failure();
        for (int64_t v : conv.getInputShape())
          (*k)->add_input_shape(v);
        for (int64_t v : conv.getKernel())
          (*k)->add_kernel_shape(v);
        setWindow(**k, conv.getStrides(), conv.getPads(), conv.getDilations());
        return success();
      })
      .Case([&](htile::GatherOp g) {
        return addGather(op, g.getInputs(), g.getOutput(), g.getIndices(),
                         g.firstRow());
      })
      .Case([&](htile::PlanGatherOp g) {
        return addGather(op, g.getInputs(), g.getOutput(), g.getIndices(), 0);
      })
      .Case([&](htile::GatherRowsOp g) -> LogicalResult {
        return addKernel(op, hetx::PLAN_GATHER_ROWS,
                         {g.getTable(), g.getIndices()}, g.getOutput());
      })
      .Case([&](htile::ScatterRowsOp s) -> LogicalResult {
        return addKernel(op, hetx::PLAN_SCATTER_ROWS,
                         {s.getUpdates(), s.getIndices()}, s.getTable());
      })
      .Case<func::ReturnOp>([](Operation *) { return success(); })
      .Default([](Operation *other) -> LogicalResult {
        return other->emitError("'")
               << other->getName()
               << "' cannot be written to a kernel plan; it needs placed htile";
      });
}

LogicalResult PlanEmitter::addGather(Operation *op, ValueRange inputs,
                                     Value output, ArrayRef<int64_t> indices,
                                     int64_t firstRow) {
  FailureOr<hetx::PlanKernel *> k =
      addKernel(op, hetx::PLAN_GATHER, inputs, output);
  if (failed(k))
    return failure();
  SmallVector<int64_t> bounds;
  int64_t total = 0;
  for (Value input : inputs) {
    total += cast<MemRefType>(input.getType()).getNumElements();
    bounds.push_back(total);
  }
  // Every index is below the last bound (the verifiers check it), so the
  // search for its end always finds one.
  bounds.push_back(std::numeric_limits<int64_t>::max());
  appendIndexRuns(indices, bounds, *(*k)->mutable_index_runs());
  (*k)->set_first_row(uint64_t(firstRow));
  return success();
}

LogicalResult PlanEmitter::emit(func::FuncOp func) {
  for (Operation &op : func.getBody().getOps())
    if (failed(emitOp(&op)))
      return failure();
  for (const RowView &view : outputRows)
    copyRows(view);
  dropUnneeded();
  return success();
}

void PlanEmitter::dropUnneeded() {
  size_t count = size_t(plan.buffers_size());
  auto rootOf = [&](uint32_t b) {
    while (plan.buffers(int(b)).origin_case() == hetx::PlanBuffer::kViewOf)
      b = plan.buffers(int(b)).view_of();
    return b;
  };
  auto isScratch = [&](uint32_t b) { return plan.buffers(int(b)).scratch(); };
  // Whether the elements a root holds now are read later. Inputs (which
  // a kernel may update in place) and outputs always are.
  std::vector<bool> needed(count, false);
  for (size_t b = 0; b < count; ++b)
    if (!isScratch(rootOf(uint32_t(b))))
      needed[rootOf(uint32_t(b))] = true;
  for (const hetx::PlanBinding &output : plan.outputs())
    needed[rootOf(output.buffer())] = true;
  auto readsOf = [](const hetx::PlanKernel &k) {
    SmallVector<uint32_t> reads(k.operands().begin(), k.operands().end());
    if (k.has_bias())
      reads.push_back(k.bias());
    if (k.has_scale())
      reads.push_back(k.scale());
    return reads;
  };
  // Whether a kernel writes every element of its result: all but a
  // scatter and a gather of some rows or elements.
  auto fillsResult = [&](const hetx::PlanKernel &k) {
    if (k.kind() == hetx::PLAN_SCATTER_ROWS)
      return false;
    if (k.kind() != hetx::PLAN_GATHER)
      return true;
    uint64_t filled = 0, elements = 1;
    for (int r = 2; r < k.index_runs_size(); r += 3)
      filled += uint64_t(k.index_runs(r));
    for (int64_t extent : plan.buffers(int(k.result())).shape())
      elements *= uint64_t(extent);
    return k.first_row() == 0 && filled == elements;
  };
  int kernels = plan.kernels_size();
  std::vector<bool> keep(size_t(kernels), false);
  for (int i = kernels - 1; i >= 0; --i) {
    const hetx::PlanKernel &k = plan.kernels(i);
    uint32_t root = rootOf(k.result());
    // Indexed kernels stop the run on an index out of range: they stay.
    bool checks = k.kind() == hetx::PLAN_GATHER_ROWS ||
                  k.kind() == hetx::PLAN_SCATTER_ROWS;
    if (!needed[root] && !checks)
      continue;
    keep[size_t(i)] = true;
    // A kernel that writes every element of its scratch result (a kernel
    // of the plan only always does): what was there before is not read.
    if (root == k.result() && isScratch(root) && fillsResult(k))
      needed[root] = false;
    for (uint32_t read : readsOf(k))
      needed[rootOf(read)] = true;
  }
  if (llvm::all_of(keep, [](bool kept) { return kept; }))
    return;
  // The buffers still used, with the buffers they view; renumbered in
  // order (a view follows what it views).
  std::vector<bool> used(count, false);
  auto use = [&](uint32_t b) {
    for (;;) {
      used[b] = true;
      if (plan.buffers(int(b)).origin_case() != hetx::PlanBuffer::kViewOf)
        return;
      b = plan.buffers(int(b)).view_of();
    }
  };
  for (size_t b = 0; b < count; ++b)
    if (!isScratch(rootOf(uint32_t(b))))
      use(uint32_t(b));
  for (const hetx::PlanBinding &output : plan.outputs())
    use(output.buffer());
  for (int i = 0; i < kernels; ++i)
    if (keep[size_t(i)]) {
      use(plan.kernels(i).result());
      for (uint32_t read : readsOf(plan.kernels(i)))
        use(read);
    }
  std::vector<uint32_t> index(count, 0);
  hetx::KernelPlan kept;
  for (size_t b = 0; b < count; ++b) {
    if (!used[b])
      continue;
    index[b] = uint32_t(kept.buffers_size());
    hetx::PlanBuffer *buffer = kept.add_buffers();
    *buffer = plan.buffers(int(b));
    if (buffer->origin_case() == hetx::PlanBuffer::kViewOf)
      buffer->set_view_of(index[buffer->view_of()]);
  }
  for (int i = 0; i < kernels; ++i) {
    if (!keep[size_t(i)])
      continue;
    hetx::PlanKernel *kernel = kept.add_kernels();
    *kernel = plan.kernels(i);
    for (uint32_t &operand : *kernel->mutable_operands())
      operand = index[operand];
    kernel->set_result(index[kernel->result()]);
    if (kernel->has_bias())
      kernel->set_bias(index[kernel->bias()]);
    if (kernel->has_scale())
      kernel->set_scale(index[kernel->scale()]);
  }
  for (hetx::PlanBinding &output : *plan.mutable_outputs())
    output.set_buffer(index[output.buffer()]);
  *kept.mutable_outputs() = std::move(*plan.mutable_outputs());
  plan = std::move(kept);
}

} // namespace

FailureOr<hetx::KernelPlan> codegen::emitKernelPlan(ModuleOp module) {
  auto funcs = module.getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1)
    return module.emitError("expected exactly one function to emit");
  PlanEmitter emitter;
  if (failed(emitter.emit(*funcs.begin())))
    return failure();
  return std::move(emitter.plan);
}
