//===- ConstantEvaluation.cpp - Values of constant subgraphs -------------===//
//
// Exporters compute shapes, masks and tables from constants through chains
// of ops (ConstantOfShape, Split, Range, Where, ...). The ops' folders
// resolve many of them as they are imported; where a rule needs a value
// that no folder resolved, the ops that compute it (its backward slice,
// every leaf a constant) are copied into a module of their own and handed
// to the evaluator, which compiles them for the chip and runs them. So one
// evaluator, with the chip's own semantics, covers every operator hetc
// imports, and no folder has to exist for the value to be known.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

thread_local ConstantEvaluation *active = nullptr;

/// The ops that compute `v` from constants alone, in program order, or
/// failure where a graph input (or an op of another dialect, or a region)
/// feeds it, or where it takes more than `limit` ops (then `tooMany` is
/// set). A value in `known`
/// is a leaf: its value, or null where it was found not to be constant
/// (which fails the slice at once, naming it `blocker`, so a chain fed by
/// graph inputs is walked once, not once per value asked).
FailureOr<SmallVector<Operation *>>
constantSlice(Value v, size_t limit,
              const llvm::DenseMap<Value, DenseElementsAttr> &known,
              bool &tooMany, Value &blocker) {
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value next = work.pop_back_val();
    if (next != v) {
      auto it = known.find(next);
      if (it != known.end()) {
        if (!it->second) {
          blocker = next;
          return tooMany = false, failure();
        }
        continue;
      }
    }
    Operation *op = next.getDefiningOp();
    if (!op || op->getNumRegions() != 0 ||
        !isa<hgraph::HGraphDialect>(op->getDialect()))
      return tooMany = false, failure();
    if (!seen.insert(op))
      continue;
    if (seen.size() > limit) {
      // Too large, unless a value still to look at shows that the slice
      // is not computed from constants at all.
      tooMany = true;
      continue;
    }
    if (op->hasTrait<OpTrait::ConstantLike>())
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand);
  }
  if (tooMany)
    return failure();
  SmallVector<Operation *> ops(seen.begin(), seen.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

} // namespace

ConstantEvaluation::ConstantEvaluation(Evaluator evaluate)
    : evaluator(std::move(evaluate)), previous(active) {
  active = this;
}

ConstantEvaluation::~ConstantEvaluation() { active = previous; }

ConstantEvaluation *ConstantEvaluation::current() { return active; }

DenseElementsAttr ConstantEvaluation::evaluate(Value v) {
  // Values key the results: the importer erases no op once a rule has seen
  // its results (createOrFold erases only before), so a key stays the
  // value it was for the whole import.
  auto it = known.find(v);
  if (it != known.end())
    return it->second;
  DenseElementsAttr result;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (evaluator && type && type.hasStaticShape() &&
      v.getParentBlock() == v.getDefiningOp()->getBlock()) {
    bool tooMany = false;
    Value blocker;
    FailureOr<SmallVector<Operation *>> ops =
        constantSlice(v, kMaxOps, known, tooMany, blocker);
    // A value before it that could not be evaluated either says why.
    if (blocker && refusals.count(blocker))
      refusals[v] = refusals.lookup(blocker);
    if (tooMany)
      refusals[v] = "; it is computed by more than " + std::to_string(kMaxOps) +
                    " ops, more than hetc evaluates at compile time";
    else if (succeeded(ops) && type.getNumElements() > kMaxElements)
      refusals[v] = "; it is computed from constants, but has " +
                    std::to_string(type.getNumElements()) +
                    " elements, more than the " + std::to_string(kMaxElements) +
                    " hetc evaluates at compile time";
    if (succeeded(ops) && type.getNumElements() <= kMaxElements) {
      // The slice as `func.func @main() -> (...)` in a module of its own,
      // returning every result of v's op that the limits admit, so that
      // one run serves them all (the pieces of a Split, say).
      Operation *root = v.getDefiningOp();
      SmallVector<Value> wanted;
      SmallVector<Type> types;
      for (Value r : root->getResults()) {
        auto t = dyn_cast<RankedTensorType>(r.getType());
        if (r == v || (t && t.hasStaticShape() &&
                       t.getNumElements() <= kMaxElements && !known.count(r))) {
          wanted.push_back(r);
          types.push_back(r.getType());
        }
      }
      MLIRContext *context = v.getContext();
      Location loc = v.getLoc();
      OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
      OpBuilder b(context);
      b.setInsertionPointToEnd(module->getBody());
      auto func = func::FuncOp::create(b, loc, "main",
                                       FunctionType::get(context, {}, types));
      for (size_t i = 0; i < wanted.size(); ++i)
        func.setResultAttr(unsigned(i), "hgraph.name",
                           b.getStringAttr("value" + std::to_string(i)));
      b.setInsertionPointToEnd(func.addEntryBlock());
      IRMapping mapping;
      for (Operation *op : *ops) {
        // Operands evaluated before enter as constants.
        for (Value operand : op->getOperands())
          if (!mapping.contains(operand))
            if (DenseElementsAttr value = known.lookup(operand))
              mapping.map(operand, hgraph::ConstantOp::create(b, loc, value));
        b.clone(*op, mapping);
      }
      SmallVector<Value> returned;
      for (Value r : wanted)
        returned.push_back(mapping.lookup(r));
      func::ReturnOp::create(b, loc, returned);
      std::string error;
      FailureOr<SmallVector<DenseElementsAttr>> values =
          evaluator(*module, error);
      if (succeeded(values) && values->size() == wanted.size()) {
        for (auto [r, value] : llvm::zip(wanted, *values))
          if (value.getType() == r.getType())
            known[r] = value;
        result = known.lookup(v);
      }
      if (!result)
        refusals[v] = "; it is computed from constants, but evaluating it "
                      "at compile time failed" +
                      (error.empty() ? std::string() : ": " + error);
    }
  }
  known[v] = result;
  return result;
}

DenseElementsAttr hetc::frontend::constantValue(Value v) {
  DenseElementsAttr attr;
  if (!v)
    return {};
  if (matchPattern(v, m_Constant(&attr)))
    return attr;
  ConstantEvaluation *evaluation = ConstantEvaluation::current();
  if (!evaluation || !v.getDefiningOp())
    return {};
  return evaluation->evaluate(v);
}

std::string hetc::frontend::whyNotEvaluated(Value v) {
  ConstantEvaluation *evaluation = ConstantEvaluation::current();
  return evaluation && v ? evaluation->refusal(v) : std::string();
}
