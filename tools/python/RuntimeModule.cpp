//===- RuntimeModule.cpp - hetc._runtime: artifacts for Python ------------===//
//
// The native half of the `hetc` Python package: loads a .hetx artifact,
// describes it, and runs it on the chip model with the same runtime as
// `hetc run`. Tensors cross the boundary as .npy bytes, so that every
// element type keeps the conversions `hetc run` uses for .npy files. The
// compiler is not linked here: hetc.compile runs the `hetc` executable, as
// iree.compiler's tools do, which keeps LLVM's and MLIR's process-wide
// state out of the Python process.
//
//===----------------------------------------------------------------------===//

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Npy.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Sram.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;
using namespace hetc;

namespace {

/// Any failure to load or run an artifact; hetc.RunError in Python.
struct RunFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string &error) {
  if (!ok)
    throw RunFailure(error);
}

/// A binding as Python sees it: {"name", "shape", "dtype"}.
py::dict describe(const hetx::TensorBinding &binding) {
  py::dict d;
  d["name"] = binding.name();
  d["shape"] = std::vector<int64_t>(binding.shape().begin(),
                                    binding.shape().end());
  std::optional<io::ElementType> type = sim::elementTypeOf(binding.dtype());
  d["dtype"] = type ? io::typeName(*type) : std::string("unknown");
  return d;
}

py::dict unitBusy(const sim::UnitBusy &unit) {
  py::dict d;
  d["instructions"] = unit.instructions;
  d["cycles"] = unit.cycles;
  return d;
}

py::list unitsBusy(const std::vector<sim::UnitBusy> &units) {
  py::list list;
  for (const sim::UnitBusy &unit : units)
    list.append(unitBusy(unit));
  return list;
}

/// A loaded .hetx artifact.
class Artifact {
public:
  explicit Artifact(std::string path) : path(std::move(path)) {
    std::string error;
    check(artifact::readFile(this->path, proto, error), error);
  }

  py::list bindings(bool inputs) const {
    py::list list;
    for (const hetx::TensorBinding &b :
         inputs ? proto.inputs() : proto.outputs())
      list.append(describe(b));
    return list;
  }

  /// Runs on the chip of `chipPath` with `inputs` (name -> .npy bytes, one
  /// for every input). Returns the outputs (name, .npy bytes) in binding
  /// order and the run's figures.
  py::tuple run(const std::string &chipPath,
                const std::map<std::string, py::bytes> &inputs) const {
    std::string error;
    chip::ChipSpec chip;
    check(chip::ChipSpec::load(chipPath, chip, error), error);
    check(artifact::checkChipMatch(proto, chip, error), error);
    for (const auto &[name, bytes] : inputs) {
      bool known = false;
      for (const hetx::TensorBinding &b : proto.inputs())
        known |= b.name() == name;
      if (!known)
        throw RunFailure("the artifact has no input '" + name + "'");
    }
    std::map<std::string, io::Tensor> tensors;
    for (const hetx::TensorBinding &b : proto.inputs()) {
      // The binding is checked against the chip before anything of its
      // size is allocated.
      sim::BindingLayout layout;
      check(sim::checkBinding(b, "input '" + b.name() + "'", chip, layout,
                              error),
            error);
      auto given = inputs.find(b.name());
      if (given == inputs.end())
        throw RunFailure("input '" + b.name() + "' is missing");
      io::Tensor tensor;
      check(io::parseNpy(std::string(given->second), "input '" + b.name() + "'",
                         tensor, error),
            error);
      std::vector<int64_t> shape(b.shape().begin(), b.shape().end());
      if (tensor.shape != shape)
        throw RunFailure("input '" + b.name() + "' has shape " +
                         io::shapeString(tensor.shape) +
                         ", but the artifact expects " +
                         io::shapeString(shape));
      tensors[b.name()] = std::move(tensor);
    }
    sim::SimResult result;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = sim::simulate(proto, chip, tensors, sim::SimOptions(), result,
                         error);
    }
    check(ok, error);
    if (result.stats.cycles != proto.predicted_cycles())
      throw RunFailure("the artifact predicts " +
                       std::to_string(proto.predicted_cycles()) +
                       " cycles, but the chip model took " +
                       std::to_string(result.stats.cycles));
    py::list outputs;
    for (const sim::NamedTensor &output : result.outputs) {
      std::string bytes;
      check(io::serializeNpy(output.tensor, bytes, error), error);
      outputs.append(py::make_tuple(output.name, py::bytes(bytes)));
    }
    const sim::SimStats &s = result.stats;
    py::dict stats;
    stats["simulated_cycles"] = s.cycles;
    stats["predicted_cycles"] = proto.predicted_cycles();
    stats["instructions"] = s.instructions;
    stats["clock_mhz"] = chip.clockMHz();
    stats["sram_high_water_bytes"] = s.sramHighWater;
    stats["vector"] = unitBusy(s.vector);
    stats["slices"] = unitsBusy(s.slices);
    stats["planes"] = unitsBusy(s.planes);
    stats["switches"] = unitsBusy(s.switches);
    stats["dma"] = unitsBusy(s.dma);
    return py::make_tuple(outputs, stats);
  }

  std::string path;
  hetx::Artifact proto;
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "hetc's runtime: load .hetx artifacts and run them on the chip "
            "model";
  py::register_exception<RunFailure>(m, "RunError");
  py::class_<Artifact>(m, "Artifact")
      .def(py::init<std::string>(), py::arg("path"))
      .def_readonly("path", &Artifact::path)
      .def_property_readonly(
          "chip_name",
          [](const Artifact &a) { return a.proto.chip().name(); })
      .def_property_readonly(
          "chip_revision",
          [](const Artifact &a) { return a.proto.chip().revision(); })
      .def_property_readonly(
          "predicted_cycles",
          [](const Artifact &a) { return a.proto.predicted_cycles(); })
      .def_property_readonly(
          "instructions",
          [](const Artifact &a) { return a.proto.instructions_size(); })
      .def_property_readonly(
          "inputs", [](const Artifact &a) { return a.bindings(true); })
      .def_property_readonly(
          "outputs", [](const Artifact &a) { return a.bindings(false); })
      .def("run", &Artifact::run, py::arg("chip_path"), py::arg("inputs"));
}
